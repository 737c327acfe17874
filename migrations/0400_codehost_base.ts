import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Code host: installations of the app linked to organizations, single-use states of the install
 * and sign-in flows, connected repositories, open-source settings per workspace, issues and pull
 * requests followed as tickets, webhook deliveries (dedupe by delivery id) and the outbound
 * comment queue (oss_comments_per_hour). See docs/codehost.md.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('codehost_installations', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    // Adapter identifier (codehost-local, codehost-github) and the host's own installation id.
    t.text('host').notNullable();
    t.text('external_id').notNullable();
    t.text('account_login').notNullable();
    t.text('account_type').notNullable();
    t.text('repository_selection').notNullable();
    t.jsonb('permissions').notNullable().defaultTo('{}');
    ts(t, 'suspended_at');
    // Set when the host reports the app uninstalled; the row is kept for the record.
    ts(t, 'removed_at');
    t.text('linked_by_user_id');
    ts(t, 'last_synced_at');
    t.timestamps(true, true);
  });
  // One organization per live installation of the host.
  await knex.raw(
    'create unique index codehost_installations_host_ext_uq on codehost_installations (host, external_id) where removed_at is null',
  );
  await knex.raw('create index codehost_installations_org_idx on codehost_installations (org_id, created_at, id)');

  // Single-use states: install (bound to an organization) and sign-in/link (bound to a browser).
  await knex.schema.createTable('codehost_states', (t) => {
    t.text('id').primary();
    t.text('purpose').notNullable(); // install | signin | link
    t.text('state_hash').notNullable().unique();
    t.text('org_id');
    t.text('user_id');
    // sign-in: hash of the browser-binding cookie, PKCE verifier sealed with the secret box.
    t.text('browser_hash');
    t.text('verifier_sealed');
    t.text('redirect_to');
    ts(t, 'expires_at').notNullable();
    ts(t, 'used_at');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index codehost_states_expiry_idx on codehost_states (expires_at)');

  await knex.schema.createTable('repositories', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('installation_id').notNullable().references('codehost_installations.id').onDelete('CASCADE');
    t.text('host').notNullable();
    t.text('external_id').notNullable();
    t.text('full_name').notNullable();
    t.text('html_url').notNullable();
    t.text('clone_url').notNullable();
    t.text('default_branch').notNullable();
    t.boolean('is_public').notNullable();
    t.boolean('archived').notNullable().defaultTo(false);
    t.text('agent_key_last4');
    ts(t, 'agent_key_set_at');
    t.jsonb('guidelines'); // { contributing, code_of_conduct, read_at }
    ts(t, 'labels_created_at');
    t.jsonb('onboarding_pr'); // { number, url, status, requested_at, error, title, branch }
    t.jsonb('runs_on').notNullable().defaultTo('[]');
    t.jsonb('cloud_auth').notNullable().defaultTo('{}');
    t.text('index_status').notNullable().defaultTo('none'); // none | queued | building | ready | failed
    t.text('indexed_sha');
    ts(t, 'indexed_at');
    t.text('index_error');
    t.integer('index_files').notNullable().defaultTo(0);
    t.integer('index_symbols').notNullable().defaultTo(0);
    ts(t, 'last_refreshed_at');
    t.text('connected_by_user_id');
    t.timestamps(true, true);
  });
  // A repository of the host is connected once (to one workspace of one organization).
  await knex.raw('create unique index repositories_host_ext_uq on repositories (host, external_id)');
  await knex.raw('create index repositories_org_idx on repositories (org_id, full_name, id)');
  await knex.raw('create index repositories_ws_idx on repositories (workspace_id)');
  await knex.raw('create index repositories_inst_idx on repositories (installation_id)');

  await knex.schema.createTable('codehost_oss_settings', (t) => {
    t.text('workspace_id').primary().references('workspaces.id').onDelete('CASCADE');
    t.text('org_id').notNullable();
    t.boolean('enabled').notNullable().defaultTo(false);
    t.text('intake').notNullable().defaultTo('opt_in'); // opt_in | opt_out
    t.text('opt_in_label').notNullable();
    t.text('opt_out_label').notNullable();
    t.boolean('issues').notNullable().defaultTo(true);
    t.boolean('pull_requests').notNullable().defaultTo(false);
    t.boolean('follow_guidelines').notNullable().defaultTo(true);
    t.boolean('ignore_bots').notNullable().defaultTo(true);
    t.timestamps(true, true);
  });

  // Issues and pull requests followed as tickets (numbers share one space per repository).
  await knex.schema.createTable('codehost_items', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable();
    t.text('repository_id').notNullable().references('repositories.id').onDelete('CASCADE');
    t.text('kind').notNullable(); // issue | pull_request
    t.integer('number').notNullable();
    t.text('ticket_id');
    t.text('html_url');
    t.text('author_login');
    t.text('state').notNullable().defaultTo('open'); // open | closed
    ts(t, 'closed_by_service_at');
    t.timestamps(true, true);
    t.unique(['repository_id', 'number']);
  });
  await knex.raw('create index codehost_items_ticket_idx on codehost_items (ticket_id)');

  // Every webhook delivery once (by the host's delivery id); the body stays for the consumer.
  await knex.schema.createTable('codehost_webhook_deliveries', (t) => {
    t.text('host').notNullable();
    t.text('delivery_id').notNullable();
    t.text('org_id');
    t.text('event').notNullable();
    t.text('kind').notNullable();
    t.text('action');
    t.text('installation_external_id');
    t.text('repository_external_id');
    t.jsonb('payload').notNullable();
    t.text('outcome'); // set by the consumer: what was done or why nothing
    ts(t, 'received_at').notNullable().defaultTo(knex.fn.now());
    ts(t, 'processed_at');
    t.primary(['host', 'delivery_id']);
  });
  await knex.raw('create index codehost_webhook_deliveries_received_idx on codehost_webhook_deliveries (received_at)');

  // Outbound comments on issues and pull requests, posted within oss_comments_per_hour.
  await knex.schema.createTable('codehost_comments', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable();
    t.text('repository_id').notNullable().references('repositories.id').onDelete('CASCADE');
    t.integer('number').notNullable();
    t.text('ticket_id');
    // What asked for it (e.g. `draft:<id>`): the same source posts once.
    t.text('source').notNullable();
    t.text('body').notNullable();
    t.text('status').notNullable().defaultTo('pending'); // pending | posting | posted | failed
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('external_id');
    t.text('url');
    t.text('error');
    ts(t, 'posted_at');
    t.timestamps(true, true);
    t.unique(['org_id', 'source']);
  });
  await knex.raw(
    "create index codehost_comments_pending_idx on codehost_comments (created_at) where status = 'pending'",
  );
  await knex.raw(
    "create index codehost_comments_posted_idx on codehost_comments (workspace_id, posted_at) where status = 'posted'",
  );

  // The code-host user token of a linked login (credential kind code_host_user_token), sealed.
  await knex.schema.createTable('codehost_user_tokens', (t) => {
    t.text('user_id').primary().references('users.id').onDelete('CASCADE');
    t.text('org_id').notNullable();
    t.text('host').notNullable();
    t.text('login').notNullable();
    t.text('token_sealed').notNullable();
    t.text('last4').notNullable();
    t.timestamps(true, true);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of [
    'codehost_user_tokens',
    'codehost_comments',
    'codehost_webhook_deliveries',
    'codehost_items',
    'codehost_oss_settings',
    'repositories',
    'codehost_states',
    'codehost_installations',
  ]) {
    await knex.schema.dropTableIfExists(t);
  }
}
