import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * The email inbox of each workspace: its channel (switches, forwarding and its verification),
 * the log of every inbound email with how it was classified (the raw message is kept while it is
 * quarantined, so a person can release it), and the sending and receiving domains registered
 * with the email provider. See docs/inbox.md.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('inbox_channels', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.boolean('accept_list_mail').notNullable().defaultTo(false);
    // Forwarding of the customer's own support address to the inbound address.
    t.text('forwarding_address');
    t.text('forwarding_provider'); // mail_a | mail_b | other
    ts(t, 'forwarding_added_at');
    ts(t, 'forwarding_verified_at');
    ts(t, 'forwarding_tested_at');
    ts(t, 'last_forwarded_at');
    t.text('test_code');
    ts(t, 'test_sent_at');
    // {code, url, requested_by, received_at, verified}
    t.jsonb('gmail_confirmation');
    t.jsonb('pending_gmail_confirmation');
    t.timestamps(true, true);
  });
  await knex.raw('create unique index inbox_channels_workspace_uq on inbox_channels (workspace_id)');
  await knex.raw('create index inbox_channels_org_idx on inbox_channels (org_id)');

  await knex.schema.createTable('inbox_emails', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('channel_id').notNullable();
    t.text('provider').notNullable();
    t.text('provider_message_id').notNullable();
    t.text('recipient').notNullable();
    t.text('from_address');
    t.text('from_name');
    t.text('subject');
    // Message-ID header as received (with angle brackets), or null.
    t.text('message_id');
    // What deduplication compares: the Message-ID, else a hash of the raw message.
    t.text('message_key').notNullable();
    // Lower-case sender, and a hash of the normalized subject and unquoted text: the loop and rate checks.
    t.text('sender_key');
    t.text('content_key');
    ts(t, 'received_at').notNullable();
    t.text('status').notNullable(); // processed | ignored | quarantined | released
    t.text('reason'); // InboundEmail.reason, null for a plain processed email
    t.text('ticket_id');
    t.boolean('ticket_created').notNullable().defaultTo(false);
    t.integer('spam_score').notNullable().defaultTo(0);
    t.jsonb('signals').notNullable().defaultTo('[]');
    t.binary('raw'); // kept while quarantined
    t.integer('size').notNullable().defaultTo(0);
    ts(t, 'released_at');
    t.text('released_by_user_id');
    t.timestamps(true, true);
  });
  await knex.raw(
    `alter table inbox_emails add constraint inbox_emails_status_check check (status in ('processed','ignored','quarantined','released'))`,
  );
  // The log: newest first per workspace, optionally by status.
  await knex.raw('create index inbox_emails_log_idx on inbox_emails (org_id, workspace_id, received_at desc, id desc)');
  await knex.raw(
    'create index inbox_emails_status_idx on inbox_emails (org_id, workspace_id, status, received_at desc, id desc)',
  );
  // One stored original per message and workspace; later arrivals are stored as duplicates.
  await knex.raw(
    `create unique index inbox_emails_dedupe_uq on inbox_emails (workspace_id, message_key) where reason is null or reason <> 'duplicate'`,
  );
  // Loop and rate checks: recent mail of one sender.
  await knex.raw('create index inbox_emails_sender_idx on inbox_emails (workspace_id, sender_key, received_at desc)');
  await knex.raw('create index inbox_emails_quarantine_idx on inbox_emails (received_at) where raw is not null');

  await knex.schema.createTable('inbox_domains', (t) => {
    idAndOrgId(t);
    // The brand the domain belongs to: a brand profile id, or a workspace id (scope workspace).
    t.text('brand_profile_id').notNullable();
    t.text('scope').notNullable(); // workspace | organization
    t.text('workspace_id').references('workspaces.id').onDelete('CASCADE');
    t.text('purpose').notNullable(); // sending | receiving
    t.text('name').notNullable();
    t.text('adapter').notNullable();
    t.text('status').notNullable().defaultTo('not_started');
    t.jsonb('records').notNullable().defaultTo('[]');
    t.text('sender_email');
    t.text('sender_name');
    t.jsonb('last_error');
    ts(t, 'verified_at');
    ts(t, 'last_checked_at');
    t.timestamps(true, true);
  });
  await knex.raw('create unique index inbox_domains_brand_uq on inbox_domains (org_id, brand_profile_id, purpose)');
  // A domain name is registered once per purpose across the service (no one claims another's).
  await knex.raw('create unique index inbox_domains_name_uq on inbox_domains (lower(name), purpose)');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['inbox_domains', 'inbox_emails', 'inbox_channels']) await knex.schema.dropTableIfExists(t);
}
