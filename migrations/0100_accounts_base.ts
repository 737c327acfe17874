import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Accounts: organizations, users (one organization each), the base `workspaces` table (the
 * workspaces plugin adds its other columns later), workspace access of reviewers and client
 * viewers, server-side sessions, API tokens, invitations and one-time email tokens.
 * Every credential is stored as its SHA-256 only (`token_hash`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('slug').notNullable().unique();
    t.text('type').notNullable().defaultTo('direct');
    t.text('plan').notNullable().defaultTo('none');
    t.text('subscription_status').notNullable().defaultTo('none');
    ts(t, 'trial_ends_at');
    ts(t, 'current_period_end');
    ts(t, 'plan_activated_at');
    t.text('billing_email');
    t.decimal('spend_cap_usd', 12, 2);
    t.boolean('show_engine_brand').notNullable().defaultTo(true);
    t.boolean('patterns_opt_in').notNullable().defaultTo(false);
    t.boolean('badge_removal_addon').notNullable().defaultTo(false);
    t.boolean('overage_enabled').notNullable().defaultTo(false);
    t.integer('retention_days').notNullable().defaultTo(90);
    t.text('signup_source').notNullable().defaultTo('direct');
    // The organization's own shareable code; the code it signed up with is referred_by_code.
    t.text('referral_code').unique();
    t.text('referred_by_code');
    t.text('locale').notNullable().defaultTo('en');
    t.boolean('sso_enforced').notNullable().defaultTo(false);
    t.integer('approval_min_approvers').notNullable().defaultTo(1);
    t.jsonb('approval_roles')
      .notNullable()
      .defaultTo(JSON.stringify(['owner', 'admin']));
    t.text('payment_connect_account_id');
    t.boolean('connect_charges_enabled').notNullable().defaultTo(false);
    ts(t, 'demo_used_at');
    t.timestamps(true, true);
  });

  await knex.schema.createTable('users', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('email').notNullable(); // stored lower-case
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.text('password_hash');
    ts(t, 'email_verified_at');
    t.text('code_host_login');
    t.text('locale').notNullable().defaultTo('en');
    ts(t, 'last_login_at');
    ts(t, 'disabled_at');
    // Removed members keep their row (other tables point at it) but free their address.
    ts(t, 'removed_at');
    t.boolean('staff').notNullable().defaultTo(false);
    t.timestamps(true, true);
  });
  await knex.raw('create unique index users_email_active_uq on users (email) where removed_at is null');
  await knex.raw('create index users_org_idx on users (org_id, created_at, id)');

  await knex.schema.createTable('workspaces', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('slug').notNullable();
    t.text('client_name');
    t.text('locale').notNullable().defaultTo('en');
    t.text('execution_mode').notNullable().defaultTo('managed');
    t.text('autonomy').notNullable().defaultTo('approve');
    ts(t, 'archived_at');
    t.timestamps(true, true);
    t.unique(['org_id', 'slug']);
  });

  await knex.schema.createTable('user_workspaces', (t) => {
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('org_id').notNullable();
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
    t.primary(['user_id', 'workspace_id']);
  });
  await knex.raw('create index user_workspaces_ws_idx on user_workspaces (workspace_id)');

  await knex.schema.createTable('sessions', (t) => {
    idAndOrgId(t);
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.boolean('sso').notNullable().defaultTo(false);
    t.text('ip');
    t.text('user_agent');
    ts(t, 'last_seen_at').notNullable();
    ts(t, 'idle_expires_at').notNullable();
    ts(t, 'absolute_expires_at').notNullable();
    ts(t, 'revoked_at');
    t.text('revoked_reason');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index sessions_user_idx on sessions (user_id) where revoked_at is null');

  await knex.schema.createTable('api_tokens', (t) => {
    idAndOrgId(t);
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('role').notNullable();
    t.jsonb('workspace_ids'); // null: the creator's workspaces
    t.text('token_hash').notNullable().unique();
    t.text('last4').notNullable();
    ts(t, 'expires_at').notNullable();
    ts(t, 'last_used_at');
    ts(t, 'revoked_at');
    t.timestamps(true, true);
  });
  await knex.raw('create index api_tokens_org_idx on api_tokens (org_id, created_at desc, id desc)');

  await knex.schema.createTable('invitations', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('role').notNullable();
    t.jsonb('workspace_ids').notNullable().defaultTo('[]');
    t.text('token_hash').notNullable().unique();
    t.text('invited_by_user_id');
    ts(t, 'expires_at').notNullable();
    ts(t, 'accepted_at');
    t.text('accepted_user_id');
    ts(t, 'revoked_at');
    t.timestamps(true, true);
  });
  await knex.raw('create index invitations_org_idx on invitations (org_id, created_at desc, id desc)');

  await knex.schema.createTable('email_tokens', (t) => {
    idAndOrgId(t);
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('purpose').notNullable(); // magic_link | password_reset | verify_email
    t.text('email').notNullable();
    t.text('token_hash').notNullable().unique();
    t.text('redirect_to');
    ts(t, 'expires_at').notNullable();
    ts(t, 'used_at');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index email_tokens_user_idx on email_tokens (user_id, purpose) where used_at is null');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of [
    'email_tokens',
    'invitations',
    'api_tokens',
    'sessions',
    'user_workspaces',
    'workspaces',
    'users',
    'organizations',
  ]) {
    await knex.schema.dropTableIfExists(t);
  }
}
