import type { Knex } from 'knex';

/**
 * Requests for sponsored managed credits from open-source projects (POST
 * /v1/public/oss-sponsorship-requests, plugin analytics): kept for a person to review by hand.
 * Global (no organization: the requester may have no account yet).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oss_sponsorship_requests', (t) => {
    t.text('id').primary();
    t.text('repository_url').notNullable();
    t.text('repository_key').notNullable(); // lower-case host/owner/name
    t.text('name').notNullable();
    t.text('email').notNullable();
    t.text('project_description');
    t.integer('monthly_issues');
    t.text('locale').notNullable().defaultTo('en');
    t.text('status').notNullable().defaultTo('received'); // received | approved | declined
    t.text('ip_hash');
    t.timestamps(true, true);
  });
  await knex.raw(
    `create unique index oss_sponsorship_open_uq on oss_sponsorship_requests (repository_key) where status = 'received'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('oss_sponsorship_requests');
}
