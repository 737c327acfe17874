import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Onboarding: the wizard's state per organization, the write-only credentials of execution
 * settings (sealed with the secret box; only last4 in clear), and the demo runs that follow a demo
 * ticket through the fix loop. See docs/onboarding.md.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('onboarding_states', (t) => {
    idAndOrgId(t).unique().references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id');
    t.text('repository_id');
    // { repository|channels|agent|logs: { status: todo|done|skipped, completed_at } }
    t.jsonb('steps').notNullable().defaultTo('{}');
    // { answer, detail, mode, agent, auth, transport, credential_pending, confirmed_at }
    t.jsonb('agent');
    t.text('demo_consent'); // granted | refused
    ts(t, 'demo_consent_at');
    ts(t, 'completed_at');
    t.timestamps(true, true);
  });
  await knex.schema.createTable('onboarding_credentials', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable();
    t.text('kind').notNullable();
    t.text('sealed').notNullable();
    t.text('last4').notNullable();
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
    ts(t, 'rotated_at');
    t.index(['org_id', 'workspace_id', 'created_at']);
  });
  // Non-secret execution details per workspace that the workspace row has no column for.
  await knex.schema.createTable('onboarding_execution', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable().unique();
    t.jsonb('runs_on').notNullable().defaultTo('[]');
    t.jsonb('cloud_auth').notNullable().defaultTo('{}');
    t.boolean('credential_later').notNullable().defaultTo(false);
    t.timestamps(true, true);
  });
  await knex.schema.createTable('onboarding_demo_runs', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable();
    t.text('mode').notNullable(); // managed | workspace
    t.text('status').notNullable().defaultTo('pending');
    t.text('phase').notNullable().defaultTo('choosing_case');
    t.text('outcome');
    t.text('case_kind');
    t.jsonb('source');
    t.jsonb('email');
    t.jsonb('repository');
    t.text('repository_id');
    t.text('ticket_id');
    t.jsonb('ticket_ids').notNullable().defaultTo('[]');
    t.boolean('indexed').notNullable().defaultTo(false);
    ts(t, 'started_at').notNullable();
    ts(t, 'first_diagnosis_at');
    ts(t, 'completed_at');
    t.decimal('cost_usd', 12, 4).notNullable().defaultTo(0);
    t.decimal('cap_usd', 12, 4).notNullable();
    t.text('error_code');
    t.text('error_detail');
    t.integer('attempts').notNullable().defaultTo(1);
    t.timestamps(true, true);
    t.index(['org_id', 'created_at']);
    t.index(['ticket_id']);
  });
  // Once per organization, also under concurrent starts.
  await knex.raw(
    `create unique index onboarding_demo_runs_managed_uq on onboarding_demo_runs (org_id) where mode = 'managed'`,
  );
  await knex.raw('create index onboarding_demo_runs_started_idx on onboarding_demo_runs (started_at)');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['onboarding_demo_runs', 'onboarding_execution', 'onboarding_credentials', 'onboarding_states'])
    await knex.schema.dropTableIfExists(t);
}
