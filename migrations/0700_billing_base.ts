import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Billing: the organization's account at the payment provider, the credits ledger (balances by
 * source with expiry, append-only entries), job costs and reservations, processed provider
 * events (deduplication), invoices, checkouts, claims and referrals. The public billing fields
 * of an organization (plan, subscription_status, trial_ends_at, current_period_end,
 * spend_cap_usd, badge_removal_addon, overage_enabled, payment_connect_account_id,
 * connect_charges_enabled, …) stay on `organizations` (accounts creates them); this migration
 * adds any of them that are missing, so billing works whatever accounts shipped.
 */
export async function up(knex: Knex): Promise<void> {
  const orgColumns: [string, string][] = [
    ['plan', "text not null default 'none'"],
    ['subscription_status', "text not null default 'none'"],
    ['trial_ends_at', 'timestamptz'],
    ['current_period_end', 'timestamptz'],
    ['plan_activated_at', 'timestamptz'],
    ['billing_email', 'text'],
    ['spend_cap_usd', 'numeric(12,2)'],
    ['badge_removal_addon', 'boolean not null default false'],
    ['overage_enabled', 'boolean not null default false'],
    ['referral_code', 'text'],
    ['referred_by_code', 'text'],
    ['payment_connect_account_id', 'text'],
    ['connect_charges_enabled', 'boolean not null default false'],
  ];
  for (const [name, ddl] of orgColumns) {
    if (!(await knex.schema.hasColumn('organizations', name)))
      await knex.raw(`alter table organizations add column "${name}" ${ddl}`);
  }
  // The client a reseller bills for a workspace (PUT /v1/billing/workspaces/{id}/resale).
  const wsColumns: [string, string][] = [
    ['resale_price', 'numeric(12,2)'],
    ['collect_via_connect', 'boolean not null default false'],
    ['managed_addon', 'boolean not null default false'],
    ['resale_client_email', 'text'],
  ];
  for (const [name, ddl] of wsColumns) {
    if (!(await knex.schema.hasColumn('workspaces', name)))
      await knex.raw(`alter table workspaces add column "${name}" ${ddl}`);
  }

  // One per organization: who it is at the provider and the subscription state billing keeps.
  await knex.schema.createTable('billing_accounts', (t) => {
    idAndOrgId(t).unique().references('organizations.id').onDelete('CASCADE');
    t.text('provider');
    t.text('customer_id');
    t.text('subscription_id');
    ts(t, 'current_period_start');
    t.boolean('cancel_at_period_end').notNullable().defaultTo(false);
    t.boolean('has_payment_method').notNullable().defaultTo(false);
    // A subscription existed once: no second trial.
    t.boolean('trial_used').notNullable().defaultTo(false);
    ts(t, 'first_subscribed_at');
    // Provider time and precedence of the last subscription state applied (order independence).
    ts(t, 'subscription_event_at');
    t.integer('subscription_event_rank').notNullable().defaultTo(0);
    ts(t, 'connect_event_at');
    t.text('connect_country');
    t.boolean('connect_payouts_enabled').notNullable().defaultTo(false);
    t.boolean('connect_details_submitted').notNullable().defaultTo(false);
    // Start of the period whose 80 % alert / 100 % notice was mailed (once per period).
    ts(t, 'spend_alert_period_start');
    ts(t, 'spend_block_period_start');
    // Add-on quantities billed on the subscription.
    t.integer('badge_removal_quantity').notNullable().defaultTo(0);
    t.integer('managed_workspace_quantity').notNullable().defaultTo(0);
    t.timestamps(true, true);
  });
  await knex.raw(
    'create unique index billing_accounts_customer_uq on billing_accounts (provider, customer_id) where customer_id is not null',
  );
  await knex.raw(
    'create index billing_accounts_subscription_idx on billing_accounts (subscription_id) where subscription_id is not null',
  );

  await knex.schema.createTable('credit_balances', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id');
    t.text('source').notNullable();
    t.integer('granted_fixes').notNullable();
    t.integer('fixes_remaining').notNullable();
    ts(t, 'granted_at').notNullable();
    ts(t, 'expires_at');
    // What granted it (period, payment, claim, referral…): one balance per (org, source, reference).
    t.text('reference').notNullable();
    t.timestamps(true, true);
  });
  await knex.raw(
    'alter table credit_balances add constraint credit_balances_remaining_check check (fixes_remaining >= 0 and fixes_remaining <= granted_fixes)',
  );
  await knex.raw(
    "alter table credit_balances add constraint credit_balances_source_check check (source in ('plan', " +
      "'referral', 'review', 'case_study', 'sponsored', 'topup'))",
  );
  await knex.raw('create unique index credit_balances_reference_uq on credit_balances (org_id, source, reference)');
  await knex.raw(
    'create index credit_balances_live_idx on credit_balances (org_id, expires_at) where fixes_remaining > 0',
  );

  await knex.schema.createTable('credit_ledger', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('balance_id').notNullable().references('credit_balances.id').onDelete('CASCADE');
    t.text('source').notNullable();
    t.text('kind').notNullable();
    // Signed: grant and refund add, consume and expire take away, adjust either.
    t.integer('fixes').notNullable();
    t.text('job_id');
    t.text('note');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "alter table credit_ledger add constraint credit_ledger_kind_check check (kind in ('grant', 'consume', 'refund', 'expire', 'adjust'))",
  );
  await knex.raw('create index credit_ledger_org_idx on credit_ledger (org_id, created_at desc, id desc)');
  // A job consumes at most one fix, and is refunded at most once.
  await knex.raw(
    "create unique index credit_ledger_consume_job_uq on credit_ledger (org_id, job_id) where kind = 'consume' and job_id is not null",
  );
  await knex.raw(
    "create unique index credit_ledger_refund_job_uq on credit_ledger (org_id, job_id) where kind = 'refund' and job_id is not null",
  );

  // Each job the fix loop authorized or recorded: funding, cost and charge, for the gate and usage.
  await knex.schema.createTable('billing_job_costs', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id');
    t.text('job_id').notNullable();
    t.text('kind').notNullable(); // fix | diagnosis
    t.text('status').notNullable(); // reserved | recorded
    t.text('funding').notNullable(); // credit | overage | included | none
    t.text('balance_id');
    t.decimal('estimated_cost_usd', 12, 4);
    t.decimal('cost_usd', 12, 4).notNullable().defaultTo(0);
    t.boolean('consumed_fix').notNullable().defaultTo(false);
    // What the organization is charged for it (an overage fix), counted against the spend cap.
    t.decimal('charged_usd', 12, 2).notNullable().defaultTo(0);
    ts(t, 'period_start').notNullable();
    ts(t, 'recorded_at');
    t.timestamps(true, true);
  });
  await knex.raw('create unique index billing_job_costs_job_uq on billing_job_costs (org_id, job_id)');
  await knex.raw('create index billing_job_costs_period_idx on billing_job_costs (org_id, created_at)');

  // Provider events handled, by provider event id: a repeated delivery is answered and ignored.
  await knex.schema.createTable('billing_events', (t) => {
    t.text('provider').notNullable();
    t.text('event_id').notNullable();
    t.text('endpoint').notNullable();
    t.text('type').notNullable();
    t.text('org_id');
    ts(t, 'occurred_at').notNullable();
    ts(t, 'received_at').notNullable().defaultTo(knex.fn.now());
    t.text('outcome');
    t.primary(['provider', 'event_id']);
  });
  await knex.raw('create index billing_events_org_idx on billing_events (org_id, received_at desc)');

  await knex.schema.createTable('billing_invoices', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('provider').notNullable();
    t.text('provider_invoice_id').notNullable();
    t.text('number');
    t.text('status').notNullable();
    t.integer('status_rank').notNullable().defaultTo(0);
    t.text('purpose').notNullable();
    t.decimal('amount_paid_usd', 12, 2).notNullable().defaultTo(0);
    t.decimal('amount_due_usd', 12, 2).notNullable().defaultTo(0);
    t.text('currency').notNullable().defaultTo('usd');
    ts(t, 'period_start');
    ts(t, 'period_end');
    ts(t, 'paid_at');
    t.text('hosted_invoice_url');
    t.timestamps(true, true);
  });
  await knex.raw(
    'create unique index billing_invoices_provider_uq on billing_invoices (provider, provider_invoice_id)',
  );
  await knex.raw('create index billing_invoices_org_idx on billing_invoices (org_id, created_at desc, id desc)');

  await knex.schema.createTable('billing_checkouts', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('provider').notNullable();
    t.text('provider_checkout_id').notNullable();
    t.text('mode').notNullable(); // subscription | topup
    t.text('plan');
    t.text('pack');
    t.integer('trial_days').notNullable().defaultTo(0);
    t.text('status').notNullable().defaultTo('open'); // open | completed
    t.text('created_by_user_id');
    ts(t, 'completed_at');
    t.timestamps(true, true);
  });
  await knex.raw(
    'create unique index billing_checkouts_provider_uq on billing_checkouts (provider, provider_checkout_id)',
  );

  await knex.schema.createTable('billing_claims', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('kind').notNullable(); // review | case_study
    t.text('status').notNullable().defaultTo('pending'); // pending | approved | rejected
    t.text('url').notNullable();
    t.text('note');
    t.integer('fixes').notNullable().defaultTo(0);
    t.text('balance_id');
    t.text('requested_by_user_id');
    t.text('decided_by');
    ts(t, 'decided_at');
    t.text('decision_note');
    t.timestamps(true, true);
  });
  await knex.raw(
    "create unique index billing_claims_open_uq on billing_claims (org_id, kind) where status in ('pending', 'approved')",
  );
  await knex.raw('create index billing_claims_org_idx on billing_claims (org_id, created_at desc, id desc)');

  // A referred organization credits its referrer once (unique referred_org_id).
  await knex.schema.createTable('referrals', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('referred_org_id').notNullable().unique().references('organizations.id').onDelete('CASCADE');
    t.text('code').notNullable();
    t.integer('fixes').notNullable().defaultTo(0);
    t.text('balance_id');
    ts(t, 'credited_at');
    t.timestamps(true, true);
  });
  await knex.raw('create index referrals_org_idx on referrals (org_id, created_at desc, id desc)');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of [
    'referrals',
    'billing_claims',
    'billing_checkouts',
    'billing_invoices',
    'billing_events',
    'billing_job_costs',
    'credit_ledger',
    'credit_balances',
    'billing_accounts',
  ]) {
    await knex.schema.dropTableIfExists(t);
  }
  await knex.raw('alter table workspaces drop column if exists resale_client_email');
}
