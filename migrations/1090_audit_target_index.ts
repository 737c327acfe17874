import type { Knex } from 'knex';

/**
 * The ticket page (issue 25) reads the audit entries about one ticket and its records (drafts,
 * fix attempts, releases, jobs): `target_id = any(…)`, newest first, 50 at most. Through the
 * organization's index that read walked the whole log of the organization (18 ms for 20,000
 * entries on PGlite, and growing with the log); this index finds each target's entries directly.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index if not exists audit_entries_target_idx on audit_entries (org_id, target_id, created_at desc, id desc)
    where target_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists audit_entries_target_idx');
}
