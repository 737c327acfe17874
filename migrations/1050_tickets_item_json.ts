import type { Knex } from 'knex';

/**
 * The ticket list's items kept as JSON text (docs/tickets.md, Performance). A page of 50 tickets
 * was 50 rows of 37 columns: Postgres wrote each value out as text, Node parsed every field, built
 * an object per ticket and serialized it again, on every request. `ticket_items.item_json` is the
 * TicketItem of a ticket, written by a trigger whenever the ticket row is written, so a page reads
 * one text per ticket and sends it on.
 *
 * A table of its own, one row per ticket: kept in `tickets`, the ~1 KB per row doubled the heap
 * that full-text search and the filters walk (twice the pages read for the same matches).
 *
 * Three fields are not in it, because they do not belong to the row: the workspace's
 * `workspace_name` and `client_name` (a workspace can be renamed) and `public_state` (the state
 * machine's mapping, plugins/tickets/services/state-machine.ts); the list appends them. Keys and
 * values are those of `ticketItem` (plugins/tickets/services/serialize.ts): timestamps in
 * Date#toISOString's form (UTC, milliseconds truncated as a Date truncates them), `demo` repeating
 * `is_demo`. plugins/tickets/test/item-json.test.ts holds the two to the same answer.
 */
export async function up(knex: Knex): Promise<void> {
  // Date#toISOString's form, whatever the session's time zone or DateStyle (to_char's MS truncates).
  await knex.raw(`create or replace function pw_iso(ts timestamptz) returns text language sql immutable parallel safe as $$
    select to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  $$`);
  await knex.raw(`create or replace function ticket_item_json(t tickets) returns text language sql stable as $$
    select row_to_json(item)::text from (select
      t.id as id, t.org_id as org_id, t.workspace_id as workspace_id, t.channel_id as channel_id,
      t.origin as origin, t.external_id as external_id, t.customer_email as customer_email,
      t.customer_name as customer_name, t.subject as subject, t.state as state,
      t.category as category, t.priority as priority, t.assignee_user_id as assignee_user_id,
      t.codehost_item_kind as codehost_item_kind, t.codehost_number as codehost_number,
      coalesce(t.labels, '[]'::jsonb) as labels, t.language as language, t.is_demo as is_demo, t.is_demo as demo,
      t.error_group_id as error_group_id, t.duplicate_of_ticket_id as duplicate_of_ticket_id,
      t.resolved_version as resolved_version, t.latest_confidence as latest_confidence,
      t.needs_team_action as needs_team_action, t.message_count as message_count,
      pw_iso(t.last_message_at) as last_message_at, pw_iso(t.first_response_at) as first_response_at,
      pw_iso(t.released_at) as released_at, pw_iso(t.closed_at) as closed_at,
      pw_iso(t.last_customer_message_at) as last_customer_message_at, pw_iso(t.sla_due_at) as sla_due_at,
      t.reopened_count as reopened_count, pw_iso(t.created_at) as created_at, pw_iso(t.updated_at) as updated_at
    ) item
  $$`);
  await knex.raw(`create table ticket_items (
    ticket_id text primary key references tickets (id) on delete cascade,
    item_json text not null
  )`);
  await knex.raw(`create or replace function tickets_item_json() returns trigger language plpgsql as $$
    begin
      insert into ticket_items (ticket_id, item_json) values (new.id, ticket_item_json(new))
        on conflict (ticket_id) do update set item_json = excluded.item_json
        where ticket_items.item_json is distinct from excluded.item_json;
      return null;
    end $$`);
  await knex.raw(
    'create trigger tickets_item_json after insert or update on tickets for each row execute function tickets_item_json()',
  );
  await knex.raw(
    'insert into ticket_items (ticket_id, item_json) select t.id, ticket_item_json(t) from tickets t on conflict (ticket_id) do nothing',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists tickets_item_json on tickets');
  await knex.raw('drop function if exists tickets_item_json()');
  await knex.raw('drop table if exists ticket_items');
  await knex.raw('drop function if exists ticket_item_json(tickets)');
  await knex.raw('drop function if exists pw_iso(timestamptz)');
}
