import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Billing: extra workspaces billed on the subscription, and agency resale collected through the
 * agency's payout account.
 *
 * - `billing_accounts.extra_workspace_quantity`: the extra workspaces the provider bills now;
 *   `extra_workspace_sync_seq` numbers each change sent, so a retried call reuses its
 *   idempotency key and a later change never does.
 * - `billing_resales`: one per client workspace once collection started: the provider's checkout
 *   (the page the client pays on) and subscription, its status (from `resale.updated` events, in
 *   provider time order), price and platform fee.
 * - `billing_resale_charges`: the ledger of what each client paid, what went to the payout
 *   account and what the platform kept; one row per provider invoice and at most one paid row
 *   per workspace and period (the same period is never recorded as charged twice).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.integer('extra_workspace_quantity').notNullable().defaultTo(0);
    t.integer('extra_workspace_sync_seq').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('billing_resales', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable();
    t.text('provider').notNullable();
    t.text('destination_account_id').notNullable();
    t.text('client_email').notNullable();
    t.text('checkout_id');
    t.text('checkout_url');
    t.text('customer_id');
    t.text('subscription_id');
    // pending (the client has not paid yet) | trialing | active | past_due | incomplete | canceled
    t.text('status').notNullable().defaultTo('pending');
    t.decimal('amount_usd', 12, 2).notNullable();
    t.decimal('platform_fee_percent', 5, 2).notNullable();
    t.boolean('cancel_at_period_end').notNullable().defaultTo(false);
    ts(t, 'current_period_start');
    ts(t, 'current_period_end');
    // Provider time of the last state applied: an older event never moves it back.
    ts(t, 'event_at');
    // Each provider call of this resale gets its own idempotency key suffix.
    t.integer('sync_seq').notNullable().defaultTo(0);
    t.timestamps(true, true);
  });
  // One running collection per client workspace (a canceled one may be followed by a new one).
  await knex.raw(
    "create unique index billing_resales_live_uq on billing_resales (org_id, workspace_id) where status <> 'canceled'",
  );
  await knex.raw('create unique index billing_resales_subscription_uq on billing_resales (provider, subscription_id)');
  await knex.raw('create unique index billing_resales_checkout_uq on billing_resales (provider, checkout_id)');

  await knex.schema.createTable('billing_resale_charges', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable();
    t.text('resale_id').references('billing_resales.id').onDelete('SET NULL');
    t.text('provider').notNullable();
    t.text('provider_invoice_id').notNullable();
    t.text('subscription_id');
    t.text('status').notNullable(); // paid | payment_failed
    ts(t, 'period_start').notNullable();
    ts(t, 'period_end');
    t.decimal('amount_usd', 12, 2).notNullable();
    t.decimal('platform_fee_usd', 12, 2).notNullable().defaultTo(0);
    t.decimal('transferred_usd', 12, 2).notNullable().defaultTo(0);
    t.text('destination_account_id');
    ts(t, 'paid_at');
    t.timestamps(true, true);
  });
  await knex.raw(
    'create unique index billing_resale_charges_invoice_uq on billing_resale_charges (provider, provider_invoice_id)',
  );
  await knex.raw(
    "create unique index billing_resale_charges_period_uq on billing_resale_charges (org_id, workspace_id, period_start) where status = 'paid'",
  );
  await knex.raw('create index billing_resale_charges_org_idx on billing_resale_charges (org_id, created_at desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('billing_resale_charges');
  await knex.schema.dropTableIfExists('billing_resales');
  await knex.schema.alterTable('billing_accounts', (t) => {
    t.dropColumn('extra_workspace_quantity');
    t.dropColumn('extra_workspace_sync_seq');
  });
}
