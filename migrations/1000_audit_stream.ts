import type { Knex } from 'knex';
import { idAndOrgId } from './columns.js';

/**
 * The audit stream: one destination per organization and a durable delivery queue. A trigger on
 * audit_entries enqueues every new entry of an organization that has a stream, inside the
 * transaction that writes the entry, so an entry that commits is queued and one that rolls back
 * is not; the deliverer removes queue rows only after the destination accepted them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_streams', (t) => {
    idAndOrgId(t).unique();
    t.text('kind').notNullable(); // https | cloudwatch
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('url');
    t.text('cw_region');
    t.text('cw_log_group');
    t.text('cw_log_stream');
    t.text('cw_access_key_id');
    t.text('cw_secret_encrypted');
    t.text('cw_secret_last4');
    t.text('secret_encrypted').notNullable();
    t.text('secret_last4').notNullable();
    t.text('previous_secret_encrypted');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.bigInteger('delivered_count').notNullable().defaultTo(0);
    t.text('last_delivered_entry_id');
    t.timestamp('last_delivered_at', { useTz: true });
    t.timestamp('last_attempt_at', { useTz: true });
    t.text('last_error');
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('lease_until', { useTz: true });
    t.timestamps(true, true);
  });
  await knex.schema.createTable('audit_stream_queue', (t) => {
    t.bigIncrements('seq').primary();
    t.text('stream_id').notNullable().references('id').inTable('audit_streams').onDelete('CASCADE');
    t.text('org_id').notNullable();
    t.text('entry_id').notNullable();
    t.unique(['stream_id', 'entry_id']);
  });
  await knex.raw('create index audit_stream_queue_stream_idx on audit_stream_queue (stream_id, seq)');
  await knex.raw(`
    create function audit_stream_enqueue() returns trigger language plpgsql as $$
    begin
      insert into audit_stream_queue (stream_id, org_id, entry_id)
        select s.id, s.org_id, new.id from audit_streams s where s.org_id = new.org_id;
      return new;
    end $$`);
  await knex.raw(
    'create trigger audit_entries_stream after insert on audit_entries for each row execute function audit_stream_enqueue()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists audit_entries_stream on audit_entries');
  await knex.raw('drop function if exists audit_stream_enqueue()');
  await knex.schema.dropTableIfExists('audit_stream_queue');
  await knex.schema.dropTableIfExists('audit_streams');
}
