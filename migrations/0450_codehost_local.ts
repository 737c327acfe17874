import type { Knex } from 'knex';
import { ts } from './columns.js';

/**
 * The codehost-local adapter's own records: the "code host" that lives inside the service.
 * Repositories themselves are bare git repositories under `<dataDir>/git/<owner>/<name>.git`;
 * these tables hold what a code host keeps beside git: installations, repository settings,
 * issues and pull requests (one number space per repository), comments, labels, releases, CI
 * statuses, CI secrets (sealed) and OAuth codes of the local sign-in page. They belong to the
 * host, not to a tenant: rows are keyed by repository full name, as on a real host.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('codehost_local_installations', (t) => {
    t.text('id').primary();
    t.text('account_login').notNullable().unique();
    t.text('account_type').notNullable().defaultTo('organization');
    ts(t, 'suspended_at');
    t.text('pending_state_hash');
    t.text('pending_setup_url');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('codehost_local_repositories', (t) => {
    t.text('id').primary();
    t.text('full_name').notNullable().unique();
    t.boolean('is_public').notNullable().defaultTo(false);
    t.boolean('archived').notNullable().defaultTo(false);
    t.integer('last_number').notNullable().defaultTo(0);
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('codehost_local_items', (t) => {
    t.text('repo').notNullable();
    t.integer('number').notNullable();
    t.text('kind').notNullable(); // issue | pull_request
    t.text('title').notNullable();
    t.text('body').notNullable().defaultTo('');
    t.text('author').notNullable();
    t.text('state').notNullable(); // open | closed | merged
    t.text('state_reason');
    t.boolean('draft').notNullable().defaultTo(false);
    t.text('head_branch');
    t.text('head_sha');
    t.text('base_branch');
    t.text('merge_sha');
    t.text('merge_method');
    t.jsonb('labels').notNullable().defaultTo('[]');
    ts(t, 'closed_at');
    ts(t, 'merged_at');
    t.timestamps(true, true);
    t.primary(['repo', 'number']);
  });
  await knex.raw('create index codehost_local_items_head_idx on codehost_local_items (repo, head_branch)');

  await knex.schema.createTable('codehost_local_comments', (t) => {
    t.text('id').primary();
    t.text('repo').notNullable();
    t.integer('number').notNullable();
    t.text('author').notNullable();
    t.text('body').notNullable();
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index codehost_local_comments_item_idx on codehost_local_comments (repo, number, created_at)');

  await knex.schema.createTable('codehost_local_labels', (t) => {
    t.text('repo').notNullable();
    t.text('name').notNullable();
    t.text('color').notNullable();
    t.text('description');
    t.primary(['repo', 'name']);
  });

  await knex.schema.createTable('codehost_local_releases', (t) => {
    t.text('id').primary();
    t.text('repo').notNullable();
    t.text('tag').notNullable();
    t.text('name').notNullable();
    t.text('body').notNullable();
    t.boolean('draft').notNullable().defaultTo(false);
    t.boolean('prerelease').notNullable().defaultTo(false);
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
    t.unique(['repo', 'tag']);
  });

  await knex.schema.createTable('codehost_local_statuses', (t) => {
    t.text('repo').notNullable();
    t.text('sha').notNullable();
    t.text('context').notNullable();
    t.text('state').notNullable(); // success | failure | pending
    t.text('target_url');
    ts(t, 'updated_at').notNullable().defaultTo(knex.fn.now());
    t.primary(['repo', 'sha', 'context']);
  });

  await knex.schema.createTable('codehost_local_secrets', (t) => {
    t.text('repo').notNullable();
    t.text('name').notNullable();
    t.text('value_sealed').notNullable();
    ts(t, 'updated_at').notNullable().defaultTo(knex.fn.now());
    t.primary(['repo', 'name']);
  });

  await knex.schema.createTable('codehost_local_oauth_codes', (t) => {
    t.text('code_hash').primary();
    t.text('login').notNullable();
    t.text('email');
    t.text('code_challenge').notNullable();
    t.text('redirect_uri').notNullable();
    ts(t, 'expires_at').notNullable();
    ts(t, 'used_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of [
    'codehost_local_oauth_codes',
    'codehost_local_secrets',
    'codehost_local_statuses',
    'codehost_local_releases',
    'codehost_local_labels',
    'codehost_local_comments',
    'codehost_local_items',
    'codehost_local_repositories',
    'codehost_local_installations',
  ])
    await knex.schema.dropTableIfExists(t);
}
