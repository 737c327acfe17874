import type { Knex } from 'knex';
import { idAndOrgId } from './columns.js';

/**
 * Privacy operations: erasures done (by a hash of the subject, never the address), organization
 * closures waiting for their purge, organization exports and their expiring download links.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('privacy_erasures', (t) => {
    idAndOrgId(t);
    t.text('subject_kind').notNullable(); // email | user_id
    t.text('subject_hash').notNullable(); // sha256 of the normalized subject
    t.jsonb('counts').notNullable().defaultTo('{}');
    t.text('requested_by_user_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['org_id', 'created_at']);
  });
  await knex.schema.createTable('privacy_closures', (t) => {
    t.text('org_id').primary();
    t.text('closed_by_user_id');
    t.text('reason');
    t.timestamp('closed_at', { useTz: true }).notNullable();
    t.timestamp('purge_after', { useTz: true }).notNullable();
    t.timestamp('purged_at', { useTz: true });
    t.jsonb('purge_counts');
  });
  await knex.schema.createTable('privacy_exports', (t) => {
    idAndOrgId(t);
    t.text('requested_by_user_id');
    t.text('email').notNullable(); // where the link goes (the requesting owner)
    t.text('locale').notNullable().defaultTo('en');
    t.text('status').notNullable().defaultTo('pending'); // pending | ready | failed | expired
    t.text('file_path');
    t.bigInteger('size_bytes');
    t.text('sha256');
    t.text('download_token_hash');
    t.timestamp('expires_at', { useTz: true });
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['org_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('privacy_exports');
  await knex.schema.dropTableIfExists('privacy_closures');
  await knex.schema.dropTableIfExists('privacy_erasures');
}
