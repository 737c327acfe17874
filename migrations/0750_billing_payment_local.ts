import type { Knex } from 'knex';

/**
 * State of the simulated payment provider (adapter payment-local): customers, checkout and portal
 * sessions, subscriptions, invoices, payout accounts and onboarding links, and idempotency keys,
 * as JSON documents by kind. It is the provider's side, not billing's: billing only sees what
 * the provider's webhooks tell it, as with a real provider.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_local_objects', (t) => {
    t.text('id').primary();
    t.text('kind').notNullable();
    t.jsonb('data').notNullable();
    t.timestamps(true, true);
  });
  await knex.raw('create index payment_local_objects_kind_idx on payment_local_objects (kind, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('payment_local_objects');
}
