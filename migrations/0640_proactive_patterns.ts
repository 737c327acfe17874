import type { Knex } from 'knex';
import { idAndOrgId } from './columns.js';

/**
 * Patterns (section patterns): learned problem → fix patterns, made from resolved tickets, masked,
 * and shared with other organizations that opted in (patterns_opt_in). See docs/proactive.md.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('patterns', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    // No foreign key: the pattern holds no customer data and outlives a deleted ticket.
    t.text('source_ticket_id');
    t.text('title').notNullable();
    t.text('category').notNullable().defaultTo('unknown');
    t.text('error_type');
    t.text('normalized_message').notNullable().defaultTo('');
    // [{file, function}] of the first in-app frames, normalised.
    t.jsonb('frames').notNullable().defaultTo('[]');
    t.jsonb('keywords').notNullable().defaultTo('[]');
    // SHA-1 of error type, normalised message and frames: an exact match of the problem.
    t.text('signature').notNullable();
    // The error group's fingerprint when the ticket came from one (matches within the workspace).
    t.text('group_fingerprint');
    t.text('fix_summary').notNullable().defaultTo('');
    t.integer('files_changed');
    t.integer('additions');
    t.integer('deletions');
    t.boolean('shared').notNullable().defaultTo(false);
    t.text('created_by_user_id');
    t.timestamps(true, true);
  });
  await knex.raw(
    'create unique index patterns_source_ticket_uq on patterns (org_id, source_ticket_id) where source_ticket_id is not null',
  );
  await knex.raw('create index patterns_org_list_idx on patterns (org_id, created_at desc, id desc)');
  await knex.raw('create index patterns_shared_idx on patterns (created_at desc, id desc) where shared');
  await knex.raw('create index patterns_signature_idx on patterns (signature)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('patterns');
}
