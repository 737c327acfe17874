import type { Knex } from 'knex';

/**
 * The ticket page (issue 25) reads a ticket's fix approvals and its latest release by ticket_id;
 * neither table had an index on it, so each read scanned the organization's approvals and
 * releases (and deleting a ticket scanned them for the foreign keys' cascade and set null).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create index if not exists fix_approvals_ticket_idx on fix_approvals (ticket_id) where ticket_id is not null',
  );
  await knex.raw(
    'create index if not exists fix_releases_ticket_idx on fix_releases (ticket_id, created_at desc, id desc) where ticket_id is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists fix_releases_ticket_idx');
  await knex.raw('drop index if exists fix_approvals_ticket_idx');
}
