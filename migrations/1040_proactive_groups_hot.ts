import type { Knex } from 'knex';

/**
 * Ingest updates each error group it touches once or twice per batch (counts, last seen), a few
 * hundred times a second on a busy install. An update that changes no indexed column and finds
 * room on its page is HOT: no new index entries, and the page prunes its own old versions on the
 * next visit, without vacuum. `error_groups_list_idx` (org_id, last_seen, id) made every count
 * update a full one: with autovacuum at its defaults the table grew to hundreds of pages of dead
 * versions per live row between runs, which every later batch read through. The group list sorts
 * an organization's groups itself (bounded by grouping; `error_groups_org_idx` finds them), and
 * pages are left half empty so that updated versions fit next to the old ones.
 *
 * An event's workspace is its group's: deleting a workspace deletes its groups, and their events
 * with them (error_events.group_id, on delete cascade). The second foreign key of every stored
 * event, to workspaces, checked the same thing again for each row of each batch (a seventh of
 * the batch statement's time).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists error_groups_list_idx');
  await knex.raw('create index error_groups_org_idx on error_groups (org_id)');
  await knex.raw('alter table error_groups set (fillfactor = 50)');
  await knex.raw('alter table error_events drop constraint if exists error_events_workspace_id_foreign');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'alter table error_events add constraint error_events_workspace_id_foreign foreign key (workspace_id) references workspaces (id) on delete cascade',
  );
  await knex.raw('alter table error_groups reset (fillfactor)');
  await knex.raw('drop index if exists error_groups_org_idx');
  await knex.raw('create index error_groups_list_idx on error_groups (org_id, last_seen desc, id desc)');
}
