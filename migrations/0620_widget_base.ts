import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Widget: per-workspace settings of the embeddable widget (the public key and allowed origins
 * stay on `workspaces`, created with the workspace), end users identified by the host site, and
 * the reports the widget sent. See docs/widget.md.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('widget_settings', (t) => {
    t.text('workspace_id').primary().references('workspaces.id').onDelete('CASCADE');
    t.text('org_id').notNullable();
    t.boolean('capture_console').notNullable().defaultTo(true);
    t.boolean('capture_network').notNullable().defaultTo(true);
    t.boolean('capture_screenshot').notNullable().defaultTo(true);
    t.integer('max_entries').notNullable().defaultTo(30);
    t.boolean('passive_enabled').notNullable().defaultTo(false);
    // The identify HMAC key, sealed with the secret box (context widget:<workspace_id>:identity_secret).
    t.text('identity_secret_sealed');
    ts(t, 'key_rotated_at');
    ts(t, 'last_seen_at');
    t.text('last_seen_origin');
    t.timestamps(true, true);
  });
  await knex.raw('create index widget_settings_org_idx on widget_settings (org_id)');

  await knex.schema.createTable('widget_identities', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.text('user_id');
    ts(t, 'consent_at').notNullable();
    ts(t, 'identified_at').notNullable();
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index widget_identities_email_uq on widget_identities (workspace_id, email)');
  await knex.raw(
    'create index widget_identities_user_idx on widget_identities (workspace_id, user_id) where user_id is not null',
  );

  await knex.schema.createTable('widget_reports', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('ticket_id').notNullable();
    t.text('email');
    t.text('user_id');
    t.boolean('identified').notNullable().defaultTo(false);
    t.boolean('test').notNullable().defaultTo(false);
    t.text('origin');
    t.text('page_url');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index widget_reports_ws_idx on widget_reports (org_id, workspace_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('widget_reports');
  await knex.schema.dropTableIfExists('widget_identities');
  await knex.schema.dropTableIfExists('widget_settings');
}
