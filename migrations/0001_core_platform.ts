import type { Knex } from 'knex';
import { idAndOrgId } from './columns.js';

export async function up(knex: Knex): Promise<void> {
  // Transactional outbox: rows written in the caller's transaction, relayed to the bus with confirms.
  await knex.schema.createTable('outbox', (t) => {
    t.text('id').primary();
    t.text('type').notNullable();
    t.text('org_id');
    t.jsonb('payload').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('published_at', { useTz: true });
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index outbox_pending_idx on outbox (next_attempt_at, id) where published_at is null');
  await knex.raw('create index outbox_published_idx on outbox (published_at) where published_at is not null');

  // Inbox of idempotent consumers: one row per (consumer, message) handled.
  await knex.schema.createTable('inbox', (t) => {
    t.text('consumer').notNullable();
    t.text('message_id').notNullable();
    t.timestamp('handled_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['consumer', 'message_id']);
  });
  await knex.raw('create index inbox_handled_idx on inbox (handled_at)');

  // Dead letters of the in-process bus and of RabbitMQ consumers, kept for operators.
  await knex.schema.createTable('dead_letters', (t) => {
    t.text('id').primary();
    t.text('consumer').notNullable();
    t.text('message_id').notNullable();
    t.text('type').notNullable();
    t.text('org_id');
    t.jsonb('message').notNullable();
    t.text('error').notNullable();
    t.timestamp('failed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index dead_letters_consumer_idx on dead_letters (consumer, failed_at)');

  // Fixed-window counters shared by every process.
  await knex.schema.createTable('rate_limits', (t) => {
    t.text('key').primary();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('count').notNullable();
  });

  // Append-only audit log of administrative changes.
  await knex.schema.createTable('audit_entries', (t) => {
    idAndOrgId(t);
    t.text('actor_type').notNullable();
    t.text('actor_id');
    t.text('actor_email');
    t.text('action').notNullable();
    t.text('target_type');
    t.text('target_id');
    t.text('workspace_id');
    t.jsonb('changes');
    t.jsonb('metadata');
    t.text('ip');
    t.text('user_agent');
    t.text('request_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index audit_entries_org_idx on audit_entries (org_id, created_at desc, id desc)');

  // Scheduler bookkeeping: last run of each periodic task.
  await knex.schema.createTable('scheduled_tasks', (t) => {
    t.text('name').primary();
    t.timestamp('last_run_at', { useTz: true });
    t.timestamp('last_success_at', { useTz: true });
    t.text('last_error');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['scheduled_tasks', 'audit_entries', 'rate_limits', 'dead_letters', 'inbox', 'outbox'])
    await knex.schema.dropTableIfExists(t);
}
