import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Tickets: the ticket with its denormalized conversation counters and SLA, the messages of its
 * conversation (inbound, outbound and internal notes), drafts of replies, subscribers and files.
 * See docs/tickets.md for the fields and docs/tickets-explain.md for the list's query plans.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('tickets', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('channel_id');
    t.text('origin').notNullable();
    t.text('external_id');
    t.text('customer_email');
    t.text('customer_name');
    t.text('subject').notNullable();
    t.text('state').notNullable().defaultTo('received');
    t.text('category').notNullable().defaultTo('unknown');
    t.text('priority').notNullable().defaultTo('normal');
    t.text('assignee_user_id');
    t.text('codehost_item_kind');
    t.integer('codehost_number');
    t.jsonb('labels').notNullable().defaultTo('[]');
    t.text('language').notNullable().defaultTo('en');
    t.boolean('is_demo').notNullable().defaultTo(false);
    t.text('error_group_id');
    t.text('duplicate_of_ticket_id');
    t.text('resolved_version');
    t.double('latest_confidence');
    t.boolean('needs_team_action').notNullable().defaultTo(false);
    t.integer('message_count').notNullable().defaultTo(0);
    ts(t, 'last_message_at');
    ts(t, 'first_response_at');
    ts(t, 'released_at');
    ts(t, 'closed_at');
    t.text('close_reason');
    ts(t, 'last_customer_message_at');
    // The SLA clock: started at creation and again at each reopen; due_at is null once it stops.
    ts(t, 'sla_started_at').notNullable();
    ts(t, 'sla_due_at');
    t.integer('reopened_count').notNullable().defaultTo(0);
    t.text('escalation_reason');
    ts(t, 'escalated_at');
    t.text('public_summary');
    ts(t, 'public_summary_approved_at');
    // Status page token: SHA-256 for the lookup, sealed with the secret box to show the URL again.
    t.text('public_token_hash').notNullable();
    t.text('public_token_sealed').notNullable();
    ts(t, 'public_token_revoked_at');
    // Per-ticket reply address: `<workspace local part>+t_<reply_token>@<inbound domain>`.
    t.text('reply_token').notNullable();
    // What `q` searches: subject, customer, external id and the first message's opening.
    t.text('search_text').notNullable().defaultTo('');
    t.timestamps(true, true);
  });
  // The `sla` sort wants due tickets first and the others (null) last; a generated key keeps
  // keyset pagination on non-null values.
  await knex.raw(
    `alter table tickets add column sla_sort_at timestamptz generated always as (coalesce(sla_due_at, timestamptz '9999-12-31 00:00:00+00')) stored`,
  );
  await knex.raw(
    `alter table tickets add column search_vector tsvector generated always as (to_tsvector('simple', search_text)) stored`,
  );
  await knex.raw(
    `alter table tickets add constraint tickets_state_check check (state in ('received','triage','needs_info','draft_ready','answered','fixing','awaiting_approval','releasing','customer_notified','closed','escalated'))`,
  );
  await knex.raw(
    `alter table tickets add constraint tickets_origin_check check (origin in ('email','widget','codehost','proactive'))`,
  );
  await knex.raw('create unique index tickets_public_token_uq on tickets (public_token_hash)');
  await knex.raw('create unique index tickets_reply_token_uq on tickets (reply_token)');
  // The list: one index per sort, each led by the tenant; a workspace filter and the assignee
  // filter get their own, and so does the state filter (see docs/tickets-explain.md).
  await knex.raw('create index tickets_org_created_idx on tickets (org_id, created_at desc, id desc)');
  await knex.raw('create index tickets_org_updated_idx on tickets (org_id, updated_at desc, id desc)');
  await knex.raw('create index tickets_org_sla_idx on tickets (org_id, sla_sort_at, id)');
  await knex.raw('create index tickets_org_ws_created_idx on tickets (org_id, workspace_id, created_at desc, id desc)');
  // A state filter ("escalated", "needs_info"…) reads only that state's rows, whatever the other filters match.
  await knex.raw('create index tickets_org_state_created_idx on tickets (org_id, state, created_at desc, id desc)');
  await knex.raw(
    'create index tickets_org_assignee_idx on tickets (org_id, assignee_user_id, created_at desc, id desc) where assignee_user_id is not null',
  );
  await knex.raw('create index tickets_search_idx on tickets using gin (search_vector)');
  await knex.raw(
    'create index tickets_duplicate_of_idx on tickets (duplicate_of_ticket_id) where duplicate_of_ticket_id is not null',
  );

  await knex.schema.createTable('ticket_messages', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable();
    t.text('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.text('direction').notNullable();
    t.text('from_address');
    t.text('from_name');
    t.jsonb('to_addresses').notNullable().defaultTo('[]');
    t.jsonb('cc_addresses').notNullable().defaultTo('[]');
    t.text('subject');
    t.text('body_text');
    t.text('body_html');
    t.text('email_message_id');
    t.text('in_reply_to');
    t.text('references_header');
    t.jsonb('widget_context');
    t.text('delivery_status');
    t.text('mail_message_id');
    t.text('sent_by_user_id');
    t.boolean('is_internal_note').notNullable().defaultTo(false);
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index ticket_messages_ticket_idx on ticket_messages (ticket_id, created_at, id)');
  await knex.raw(
    'create index ticket_messages_email_id_idx on ticket_messages (org_id, email_message_id) where email_message_id is not null',
  );
  await knex.raw(
    'create index ticket_messages_mail_idx on ticket_messages (mail_message_id) where mail_message_id is not null',
  );

  await knex.schema.createTable('ticket_drafts', (t) => {
    idAndOrgId(t);
    t.text('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.text('diagnosis_id');
    t.text('kind').notNullable();
    t.text('body_md').notNullable();
    t.text('public_summary');
    t.text('status').notNullable().defaultTo('draft');
    t.text('language').notNullable();
    t.text('sent_message_id');
    t.text('created_by_user_id');
    t.text('edited_by_user_id');
    t.text('approved_by_user_id');
    ts(t, 'approved_at');
    ts(t, 'sent_at');
    ts(t, 'discarded_at');
    t.text('discard_reason');
    t.timestamps(true, true);
  });
  await knex.raw('create index ticket_drafts_ticket_idx on ticket_drafts (ticket_id, created_at, id)');
  // At most one draft waiting for its click per ticket (a double click cannot make two).
  await knex.raw(
    `create unique index ticket_drafts_open_uq on ticket_drafts (ticket_id) where status in ('draft', 'approved')`,
  );

  await knex.schema.createTable('ticket_subscribers', (t) => {
    idAndOrgId(t);
    t.text('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.text('thread_ticket_id');
    t.text('email').notNullable();
    t.text('user_hash');
    t.text('source').notNullable();
    t.text('added_by_user_id');
    ts(t, 'notified_at');
    ts(t, 'unsubscribed_at');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index ticket_subscribers_email_uq on ticket_subscribers (ticket_id, lower(email))');

  await knex.schema.createTable('ticket_files', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable();
    t.text('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.text('message_id');
    t.text('kind').notNullable().defaultTo('attachment');
    t.text('filename').notNullable();
    t.text('content_type').notNullable();
    t.integer('size').notNullable();
    t.text('sha256').notNullable();
    t.text('content_id');
    t.boolean('inline').notNullable().defaultTo(false);
    t.binary('content').notNullable();
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index ticket_files_message_idx on ticket_files (message_id) where message_id is not null');
  await knex.raw('create index ticket_files_ticket_idx on ticket_files (ticket_id)');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['ticket_files', 'ticket_subscribers', 'ticket_drafts', 'ticket_messages', 'tickets'])
    await knex.schema.dropTableIfExists(t);
}
