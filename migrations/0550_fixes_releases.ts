import type { Knex } from 'knex';

/**
 * Releases section (plugin `fixes`, docs/fixes.md "Releases"): a release is either a ticket's own
 * (`per_ticket`) or a batched proposal (`batched`) that collects the merged fixes of a workspace
 * until a person approves it at the default branch's head. A ticket's merge that joined a batch
 * points at it with `batch_id` (status `batched`). At most one open proposal per workspace and
 * repository.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fix_releases', (t) => {
    // per_ticket | batched
    t.text('kind').notNullable().defaultTo('per_ticket');
    t.text('batch_id');
    // The default branch's head when the last fix joined a proposal (what approve is expected at).
    t.text('head_sha');
    t.text('changelog');
  });
  await knex.raw('create index fix_releases_batch_idx on fix_releases (org_id, batch_id) where batch_id is not null');
  await knex.raw(
    'create unique index fix_releases_open_proposal_uq on fix_releases (org_id, workspace_id, ' +
      "coalesce(repository_id, '')) where kind = 'batched' and status = 'proposed'",
  );
  await knex.raw('create index fix_releases_ws_idx on fix_releases (org_id, workspace_id, created_at desc, id desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists fix_releases_ws_idx');
  await knex.raw('drop index if exists fix_releases_open_proposal_uq');
  await knex.raw('drop index if exists fix_releases_batch_idx');
  await knex.schema.alterTable('fix_releases', (t) => {
    t.dropColumn('changelog');
    t.dropColumn('head_sha');
    t.dropColumn('batch_id');
    t.dropColumn('kind');
  });
}
