import type { Knex } from 'knex';

/**
 * The inbox's "needs the team" view (issue 26: GET /v1/tickets?needs_team_action=true, newest
 * first) and its count: a partial index holds only the tickets waiting for the team, so a page
 * walks those rows instead of filtering the organization's whole created_at index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create index if not exists tickets_needs_team_idx on tickets (org_id, created_at desc, id desc) where needs_team_action',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists tickets_needs_team_idx');
}
