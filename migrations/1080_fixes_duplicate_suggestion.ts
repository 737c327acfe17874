import type { Knex } from 'knex';

/**
 * A diagnosis can name the open ticket the report likely duplicates (same error group, or the same
 * places in the code as a bug being fixed): the loop then offers the duplicate to the team instead
 * of starting a second fix (docs/fixes.md, "Duplicates"). Null when none was found.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fix_diagnoses', (t) => {
    t.text('duplicate_of_ticket_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fix_diagnoses', (t) => {
    t.dropColumn('duplicate_of_ticket_id');
  });
}
