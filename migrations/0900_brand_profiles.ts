import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Brand profiles of an organization (plugin brand): look (colors, font, theme, widget texts),
 * sender, an uploaded or linked logo (the bytes kept here, at most 512 KiB) and a status-page
 * domain with its DNS challenge and verification state. One default profile per organization.
 * Workspaces point at a profile with `workspaces.brand_profile_id` (null: the default).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('brand_profiles', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.text('primary_color').notNullable();
    t.text('font_family').notNullable();
    t.text('locale').notNullable().defaultTo('en');
    t.text('theme').notNullable().defaultTo('light');
    t.text('sender_name');
    t.text('sender_email');
    t.text('website_url');
    t.boolean('show_badge').notNullable().defaultTo(true);
    t.jsonb('widget_texts').notNullable().defaultTo('{}');
    // Logo: a linked URL (logo_source url) or uploaded bytes (logo_source upload).
    t.text('logo_source'); // upload | url | null
    t.text('logo_url');
    t.binary('logo_data');
    t.text('logo_content_type');
    t.integer('logo_width');
    t.integer('logo_height');
    t.integer('logo_size_bytes');
    t.text('logo_sha256');
    ts(t, 'logo_uploaded_at');
    // Status-page domain (CNAME to the service, TXT challenge).
    t.text('status_domain');
    t.text('status_txt_token');
    t.boolean('status_verified').notNullable().defaultTo(false);
    ts(t, 'status_verified_at');
    t.boolean('status_cname_ok').notNullable().defaultTo(false);
    t.boolean('status_txt_ok').notNullable().defaultTo(false);
    ts(t, 'status_last_checked_at');
    t.text('status_last_error');
    ts(t, 'status_failing_since');
    t.timestamps(true, true);
  });
  await knex.raw('create index brand_profiles_org_idx on brand_profiles (org_id, created_at, id)');
  await knex.raw('create unique index brand_profiles_default_uq on brand_profiles (org_id) where is_default');
  // A status domain serves one brand: once verified, nobody else can verify it.
  await knex.raw(
    'create unique index brand_profiles_status_domain_uq on brand_profiles (lower(status_domain)) where status_verified',
  );
  await knex.raw('create index brand_profiles_status_domain_idx on brand_profiles (lower(status_domain))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('brand_profiles');
}
