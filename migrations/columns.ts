import type { Knex } from 'knex';

/**
 * Column definitions shared by the migrations (not a migration itself: the name has no `NNNN_`).
 * Frozen history: every applied migration that calls one of these replays it on each new database,
 * so changing a function changes those tables. A new need gets a new function; these stay as they are.
 * The `created_at`/`updated_at` pair is knex's own `t.timestamps(true, true)`: on Postgres both are
 * `timestamptz not null default CURRENT_TIMESTAMP`, as `ts(t, …).notNullable().defaultTo(knex.fn.now())` writes them.
 */

/** A `timestamptz` column (no default, nullable until the caller says otherwise). */
export const ts = (t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder => t.timestamp(name, { useTz: true });

/**
 * The first two columns of a tenant table: `id` text primary key, then `org_id` text not null.
 * Returns `org_id`'s builder, so the table states its own foreign key or uniqueness on it.
 */
export function idAndOrgId(t: Knex.CreateTableBuilder): Knex.ColumnBuilder {
  t.text('id').primary();
  return t.text('org_id').notNullable();
}
