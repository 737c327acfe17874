import type { Knex } from 'knex';

/**
 * Partner profiles of agencies (plugin agency): the public listing an agency edits and the
 * certification staff decide (GET/PUT /v1/agency/partner, GET /v1/public/partners).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agency_partner_profiles', (t) => {
    t.text('org_id').primary().references('organizations.id').onDelete('CASCADE');
    t.text('display_name').notNullable();
    t.text('website_url');
    t.text('description');
    t.text('contact_email');
    t.jsonb('countries').notNullable().defaultTo('[]');
    t.jsonb('languages').notNullable().defaultTo('[]');
    t.jsonb('services').notNullable().defaultTo('[]');
    t.boolean('listed').notNullable().defaultTo(false);
    t.text('certification').notNullable().defaultTo('none'); // none | requested | certified | revoked
    t.timestamp('certification_requested_at', { useTz: true });
    t.timestamp('certified_at', { useTz: true });
    t.text('certified_by');
    t.timestamps(true, true);
  });
  await knex.raw(
    `create index agency_partner_listed_idx on agency_partner_profiles (lower(display_name)) where listed and certification = 'certified'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('agency_partner_profiles');
}
