import type { Knex } from 'knex';

/**
 * A release's `affected_users` in a group's detail, counted as events arrive, like the group's own.
 * The detail counted the distinct users of every stored event of the group, per release, on
 * every read. That is a scan of all the group's events, and it grows without bound: 0.37–0.49 s
 * for a group of 96,000 events on the benchmark's database.
 *
 * `error_group_release_users` holds each (group, release, user) once. The ingest statement
 * inserts the pairs of a batch with `on conflict do nothing` and adds the new ones to
 * `error_group_releases.affected_users`. A pair already known writes nothing.
 *
 * The count is now a total, like the group's `affected_users`: events that retention deletes no
 * longer lower it. The upgrade counts what the stored events hold.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('error_group_release_users', (t) => {
    t.text('group_id').notNullable().references('error_groups.id').onDelete('CASCADE');
    t.text('release').notNullable(); // '' for events without a release, as in error_group_releases
    t.text('user_key').notNullable();
    t.text('org_id').notNullable();
    t.primary(['group_id', 'release', 'user_key']);
  });
  await knex.schema.alterTable('error_group_releases', (t) => {
    t.integer('affected_users').notNullable().defaultTo(0);
  });
  await knex.raw(`
    insert into error_group_release_users (group_id, release, user_key, org_id)
    select group_id, coalesce(release, ''), user_key, min(org_id) from error_events where user_key is not null
    group by 1, 2, 3`);
  await knex.raw(`
    update error_group_releases r set affected_users = u.n
    from (select group_id, release, count(*)::int as n from error_group_release_users group by 1, 2) u
    where u.group_id = r.group_id and u.release = r.release`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('error_group_releases', (t) => {
    t.dropColumn('affected_users');
  });
  await knex.schema.dropTableIfExists('error_group_release_users');
}
