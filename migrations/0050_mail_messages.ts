import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Every email the service sends by itself (verification, magic links, invitations, notices):
  // rendered when it is enqueued, sent by the mail plugin's consumer through the channel adapter.
  await knex.schema.createTable('mail_messages', (t) => {
    t.text('id').primary();
    // Null for mail that belongs to no organization (e.g. platform notices).
    t.text('org_id');
    t.text('template').notNullable();
    t.text('locale').notNullable();
    // Several recipients are joined with ", ".
    t.text('to_address').notNullable();
    t.text('from_address').notNullable();
    t.text('from_name');
    t.text('reply_to');
    t.text('subject').notNullable();
    t.text('text').notNullable();
    t.text('html').notNullable();
    t.jsonb('headers').notNullable();
    // RFC 5322 Message-ID with angle brackets: `<mail_…@host>`.
    t.text('message_id').notNullable();
    // Opaque reference of the caller (e.g. a ticket id) to find its mail again.
    t.text('ticket_ref');
    t.text('status').notNullable().defaultTo('queued');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.text('provider_message_id');
    // A worker sending the message holds it until then, so two deliveries never send it twice at once.
    t.timestamp('locked_until', { useTz: true });
    t.timestamps(true, true);
    t.timestamp('sent_at', { useTz: true });
  });
  await knex.raw(
    `alter table mail_messages add constraint mail_messages_status_check check (status in ('queued', 'sent', 'failed'))`,
  );
  await knex.raw('create index mail_messages_org_idx on mail_messages (org_id, created_at desc)');
  await knex.raw(
    'create index mail_messages_ticket_ref_idx on mail_messages (ticket_ref) where ticket_ref is not null',
  );
  await knex.raw(
    'create index mail_messages_provider_id_idx on mail_messages (provider_message_id) where provider_message_id is not null',
  );
  await knex.raw('create unique index mail_messages_message_id_idx on mail_messages (message_id)');
  await knex.raw(`create index mail_messages_queued_idx on mail_messages (updated_at) where status = 'queued'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('mail_messages');
}
