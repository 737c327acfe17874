import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Proactive: log connectors, the error events they bring, and the error groups events fall into
 * (with per-release rows, distinct affected users and hourly counts for trends). See
 * docs/proactive.md.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('connectors', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('kind').notNullable(); // error_tracker | metrics_platform | cloud_logs | endpoint
    t.text('name').notNullable();
    t.text('status').notNullable().defaultTo('active'); // active | paused | error
    t.jsonb('config').notNullable().defaultTo('{}');
    // {<name>: {box: <secretBox ciphertext>, last4}}; sealed with context connector:<id>:<name>.
    t.jsonb('secrets').notNullable().defaultTo('{}');
    // Push token of the generic endpoint: SHA-256 of it, its last four characters and a public key id.
    t.text('token_hash');
    t.text('token_last4');
    t.text('key_id');
    t.text('cursor');
    ts(t, 'last_activity_at');
    ts(t, 'last_delivery_at');
    ts(t, 'next_poll_at');
    t.text('last_error_code');
    t.text('last_error');
    t.integer('error_count').notNullable().defaultTo(0);
    t.timestamps(true, true);
  });
  await knex.raw('create index connectors_workspace_idx on connectors (org_id, workspace_id)');
  await knex.raw(
    'create unique index connectors_token_hash_uq on connectors (token_hash) where token_hash is not null',
  );
  await knex.raw("create index connectors_poll_idx on connectors (next_poll_at) where status <> 'paused'");

  // The external id an assumed cloud-logs role must require, one per workspace.
  await knex.schema.createTable('connector_setups', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.text('external_id').notNullable();
    t.timestamps(true, true);
  });
  await knex.raw('create unique index connector_setups_uq on connector_setups (workspace_id, kind)');

  await knex.schema.createTable('error_groups', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('fingerprint').notNullable();
    t.text('status').notNullable().defaultTo('watching'); // watching | ticketed | resolved | ignored
    t.text('type').notNullable();
    t.text('title').notNullable();
    t.text('normalized_message').notNullable();
    t.text('sample_stack');
    t.jsonb('frames').notNullable().defaultTo('[]');
    t.boolean('symbolicated').notNullable().defaultTo(false);
    t.bigInteger('event_count').notNullable().defaultTo(0);
    t.integer('affected_users').notNullable().defaultTo(0);
    ts(t, 'first_seen').notNullable();
    ts(t, 'last_seen').notNullable();
    t.text('release');
    t.jsonb('sources').notNullable().defaultTo('[]');
    t.jsonb('environments').notNullable().defaultTo('[]');
    t.text('trigger'); // user_threshold | critical_path | regression
    t.boolean('critical_path_hit').notNullable().defaultTo(false);
    t.boolean('noise').notNullable().defaultTo(false);
    t.text('held_reason');
    ts(t, 'held_at');
    t.text('resolved_in_release');
    ts(t, 'resolved_at');
    ts(t, 'regressed_at');
    t.text('ticket_id');
    // Set when a trigger fired and the proactive ticket is being opened (once per trigger).
    ts(t, 'triggered_at');
    t.timestamps(true, true);
  });
  await knex.raw('create unique index error_groups_fingerprint_uq on error_groups (workspace_id, fingerprint)');
  await knex.raw('create index error_groups_list_idx on error_groups (org_id, last_seen desc, id desc)');

  await knex.schema.createTable('error_group_releases', (t) => {
    t.text('group_id').notNullable().references('error_groups.id').onDelete('CASCADE');
    t.text('release').notNullable(); // '' for events without a release
    t.text('org_id').notNullable();
    t.text('status').notNullable().defaultTo('watching');
    t.bigInteger('event_count').notNullable().defaultTo(0);
    ts(t, 'first_seen').notNullable();
    ts(t, 'last_seen').notNullable();
    t.text('resolved_in_release');
    t.primary(['group_id', 'release']);
  });

  await knex.schema.createTable('error_group_users', (t) => {
    t.text('group_id').notNullable().references('error_groups.id').onDelete('CASCADE');
    t.text('user_key').notNullable();
    t.text('org_id').notNullable();
    ts(t, 'first_seen').notNullable();
    ts(t, 'last_seen').notNullable();
    t.primary(['group_id', 'user_key']);
  });

  // Events per group and hour: events_24h and the 24-hour trend.
  await knex.schema.createTable('error_group_hours', (t) => {
    t.text('group_id').notNullable().references('error_groups.id').onDelete('CASCADE');
    ts(t, 'hour').notNullable();
    t.text('org_id').notNullable();
    t.integer('count').notNullable().defaultTo(0);
    t.primary(['group_id', 'hour']);
  });

  // Stored events. connector_id has no foreign key: events outlive a deleted connector until retention.
  await knex.schema.createTable('error_events', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('group_id').notNullable().references('error_groups.id').onDelete('CASCADE');
    t.text('connector_id');
    t.text('source').notNullable(); // widget | error_tracker | metrics_platform | cloud_logs | endpoint
    t.text('external_id');
    t.text('type').notNullable();
    t.text('level').notNullable();
    t.text('message').notNullable();
    t.text('stack');
    t.jsonb('frames');
    t.text('url');
    t.jsonb('browser');
    t.text('release');
    t.text('environment');
    t.jsonb('user');
    t.text('user_key');
    t.boolean('symbolicated').notNullable().defaultTo(false);
    ts(t, 'occurred_at').notNullable();
    ts(t, 'received_at').notNullable();
  });
  await knex.raw(
    'create unique index error_events_external_uq on error_events (connector_id, external_id) where external_id is not null',
  );
  await knex.raw('create index error_events_group_idx on error_events (group_id, occurred_at desc)');
  await knex.raw('create index error_events_retention_idx on error_events (org_id, received_at)');
  await knex.raw('create index error_events_connector_idx on error_events (connector_id, received_at)');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'error_events',
    'error_group_hours',
    'error_group_users',
    'error_group_releases',
    'error_groups',
    'connector_setups',
    'connectors',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
