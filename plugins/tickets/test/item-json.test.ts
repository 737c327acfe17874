import t from 'tap';
import { TICKET_COLUMNS, Ticket } from '../models/index.js';
import { ticketItem } from '../services/serialize.js';
import { call, newWorkspace, openTicket, world, type Schema } from './helpers.js';

/**
 * The list sends each ticket's `ticket_items.item_json`, kept by a trigger (migrations/1050_tickets_item_json.ts),
 * instead of building the item from the row. These tests hold it to `ticketItem`, the one
 * serializer every other answer uses: for awkward values, after every kind of write, and
 * whatever the writing session's time zone and date style.
 */
t.test('the list item kept as JSON equals ticketItem of the row', async (t) => {
  const { app, owner, workspace } = await world(t);
  const orgId = owner.organization.id;
  const bare = await newWorkspace(app, owner, 'No client "quoted" \\ name ✓'); // client_name null
  const db = app.db;

  const odd = [
    'Quote " backslash \\ slash / tab \t newline \n return \r',
    'Control \u0001\u001f and DEL \u007f, separators \u2028\u2029',
    'Emoji 🧯 and accents àèìòù, CJK 漢字, RTL עברית',
    '</script><b>html</b> & ampersand',
  ];
  const made: Ticket[] = [];
  for (let i = 0; i < odd.length; i++) {
    made.push(
      await openTicket(app, orgId, i % 2 ? bare.id : workspace.id, {
        subject: odd[i],
        customerName: odd[(i + 1) % odd.length],
        customerEmail: i === 2 ? null : `c${i}@example.com`,
        labels: i === 1 ? [] : ['ünïcode', 'quote"label', `n${i}`],
        latestConfidence: [0.1, 1 / 3, null, 1][i]!,
        codehostItemKind: i === 3 ? 'pull_request' : null,
        codehostNumber: i === 3 ? 2_147_483_647 : null,
        externalId: i === 0 ? 'ext-"1"' : null,
        isDemo: i === 1,
        origin: (['email', 'widget', 'codehost', 'proactive'] as const)[i],
      }),
    );
  }
  // Every kind of write: team actions through the API, the service's own updates, and plain SQL.
  await call(app, owner, 'POST', `/v1/tickets/${made[0].id}/escalate`, { reason: 'vip' });
  await call(app, owner, 'POST', `/v1/tickets/${made[1].id}/close`, { reason: 'spam' });
  await call(app, owner, 'POST', `/v1/tickets/${made[1].id}/reopen`, {});
  await call(app, owner, 'POST', `/v1/tickets/${made[2].id}/assign`, { user_id: owner.user.id });
  await call(app, owner, 'POST', `/v1/tickets/${made[3].id}/close`, {
    reason: 'duplicate',
    duplicate_of_ticket_id: made[0].id,
  });
  // Microseconds (a Date keeps milliseconds, truncated), a year before 1970 and a leap day.
  await db('tickets').where({ id: made[2].id }).update({
    created_at: '2026-01-02 03:04:05.678999+00',
    last_message_at: '1969-12-31 23:59:59.999999+00',
    released_at: '2028-02-29 12:00:00+05:30',
    resolved_version: 'v1.2.3-"rc"',
    error_group_id: 'grp_x',
    message_count: 42,
    needs_team_action: true,
  });
  // A writer in another time zone and date style.
  await db.transaction(async (trx) => {
    await trx.raw(`set local timezone = 'America/St_Johns'`);
    await trx.raw(`set local datestyle = 'SQL, DMY'`);
    await trx('tickets')
      .where({ id: made[3].id })
      .update({ first_response_at: '2026-07-04 09:08:07.006+00', sla_due_at: null });
  });

  const list = await call(app, owner, 'GET', '/v1/tickets?limit=100');
  // (messages stay plain: a raw U+2028 of the payload would break tap's own output)
  t.equal(list.status, 200, 'the list answers');
  t.match(list.headers['content-type'], /^application\/json; charset=utf-8$/);
  const items = new Map(list.body.items.map((i) => [i.id, i] as const));
  t.equal(items.size, made.length);
  const names = new Map([
    [workspace.id, { name: workspace.name, client_name: workspace.client_name ?? null }],
    [bare.id, { name: bare.name, client_name: null }],
  ]);
  const rows = await Ticket.query(db).forOrg(orgId).select(TICKET_COLUMNS);
  for (const row of rows) {
    const expected = ticketItem(row, names.get(row.workspace_id));
    t.same(items.get(row.id), expected, `ticket ${row.id}`);
    t.strictSame(Object.keys(items.get(row.id)!).sort(), Object.keys(expected).sort(), 'the same fields, no more');
  }
  t.equal(
    items.get(made[2].id)!.created_at,
    '2026-01-02T03:04:05.678Z',
    'microseconds truncated as a Date truncates them',
  );
  t.equal(items.get(made[2].id)!.last_message_at, '1969-12-31T23:59:59.999Z');
  t.equal(items.get(made[3].id)!.first_response_at, '2026-07-04T09:08:07.006Z', "UTC whatever the writer's time zone");
  t.equal(items.get(made[1].id)!.public_state, 'in_analysis', 'public_state from the state machine (reopened: triage)');

  await t.test('one item per ticket, written with it and gone with it', async (t) => {
    const count = async () => {
      const { rows } = await db.raw<{ rows: { tickets: number; items: number }[] }>(
        'select (select count(*) from tickets)::int as tickets, (select count(*) from ticket_items)::int as items',
      );
      return rows[0];
    };
    const before = await count();
    t.equal(before.items, before.tickets, 'as many items as tickets');
    const extra = await openTicket(app, orgId, workspace.id, { subject: 'To be erased' });
    t.same(
      await count(),
      { tickets: before.tickets + 1, items: before.items + 1 },
      'a new ticket has its item at once',
    );
    await db('tickets').where({ id: extra.id }).delete();
    t.same(await count(), before, 'deleting the ticket deletes its item');
    /** The first ticket's item as stored. */
    const itemJson = async () =>
      (await db('ticket_items').where({ ticket_id: made[0].id }).first<{ item_json: string }>('item_json')).item_json;
    const untouched = await itemJson();
    await db('tickets').where({ id: made[0].id }).update({ search_text: 'only the search text changed' });
    t.equal(await itemJson(), untouched, 'a write that changes no item field leaves the item as it was');
  });

  await t.test('a renamed workspace shows its new name at once', async (t) => {
    const res = await call(app, owner, 'PATCH', `/v1/workspaces/${bare.id}`, {
      name: 'Renamed',
      client_name: 'Client "B"',
    });
    t.equal(res.status, 200, 'renamed');
    const page = await call(app, owner, 'GET', `/v1/tickets?workspace_id=${bare.id}`);
    for (const i of page.body.items) t.match(i, { workspace_name: 'Renamed', client_name: 'Client "B"' });
  });

  await t.test('the MCP-side list (objects) is the same answer', async (t) => {
    const service = app.container.resolve<{
      list: (p: unknown, q: unknown) => Promise<{ items: Schema<'TicketItem'>[] }>;
    }>('ticketService');
    const principal = {
      kind: 'session',
      userId: owner.user.id,
      orgId,
      role: 'owner',
      staff: false,
      email: null,
      locale: 'en',
      workspaceIds: null,
    };
    const page = await service.list(principal, { sort: 'newest', limit: 100 });
    const again = await call(app, owner, 'GET', '/v1/tickets?limit=100');
    t.same(page.items, again.body.items);
  });
});
