import type { Knex } from 'knex';

/**
 * Every release notice carries an unsubscribe link (docs/fixes.md, "Notices"). A subscriber who
 * follows it gets `ticket_subscribers.unsubscribed_at`; the ticket's own customer, who is no
 * subscriber, gets `tickets.notices_unsubscribed_at`: no more automated notices of that ticket.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tickets', (t) => {
    t.timestamp('notices_unsubscribed_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tickets', (t) => {
    t.dropColumn('notices_unsubscribed_at');
  });
}
