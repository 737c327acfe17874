import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import type { Ticket } from '../models/index.js';
import { call, newWorkspace, openTicket, world, type Schema } from './helpers.js';

// Issue 26: the inbox's "needs the team" filter, its counts, and a draft's language.
t.test("the list's needs_team_action filter and GET /v1/tickets/counts", async (t) => {
  const { app, owner, workspace } = await world(t);
  const orgId = owner.organization.id;
  const second = await newWorkspace(app, owner, 'Second');

  // Eight tickets a minute apart over two workspaces; the team has the next move on three
  // (escalated, a draft waiting, a discarded draft), not on the others (received, closed).
  const base = Date.now() - 60 * 60_000;
  const made: Ticket[] = [];
  for (let i = 0; i < 8; i++) {
    made.push(
      await openTicket(app, orgId, i % 2 ? second.id : workspace.id, {
        origin: i < 4 ? 'email' : 'widget',
        subject: i === 5 ? 'Invoice PDF is blank' : `Question ${i}`,
        message: { from: 'jane@example.com', bodyText: 'Hello', receivedAt: new Date(base + i * 60_000) },
      }),
    );
  }
  const id = (i: number) => made[i].id;
  t.equal((await call(app, owner, 'POST', `/v1/tickets/${id(1)}/escalate`, { reason: 'vip' })).status, 200);
  t.equal(
    (await call(app, owner, 'POST', `/v1/tickets/${id(2)}/drafts`, { kind: 'reply', body_md: 'Try again' })).status,
    201,
  );
  const draft = await call(app, owner, 'POST', `/v1/tickets/${id(5)}/drafts`, { kind: 'reply', body_md: 'Wrong one' });
  t.equal((await call(app, owner, 'POST', `/v1/tickets/${id(5)}/drafts/${draft.body.id}/discard`, {})).status, 200);
  t.equal((await call(app, owner, 'POST', `/v1/tickets/${id(6)}/close`, { reason: 'spam' })).status, 200);

  // Another organization's tickets, one waiting for its team: never listed, never counted.
  const stranger = await signUp(app, { orgName: 'Elsewhere' });
  const theirWs = await call(app, stranger, 'POST', '/v1/workspaces', { name: 'Theirs' });
  const theirs = await openTicket(app, stranger.organization.id, theirWs.body.id);
  t.equal((await call(app, stranger, 'POST', `/v1/tickets/${theirs.id}/escalate`, { reason: 'x' })).status, 200);

  const ids = (r: { body: Schema<'TicketPage'> }) => r.body.items.map((i) => i.id);
  const list = async (who: typeof owner, q: string) => {
    const res = await call(app, who, 'GET', `/v1/tickets?limit=200&${q}`);
    t.equal(res.status, 200, res.payload);
    return ids(res);
  };

  await t.test("needs_team_action=true lists only the team's tickets, newest first; false the others", async (t) => {
    t.same(await list(owner, 'needs_team_action=true'), [id(5), id(2), id(1)]);
    t.same(await list(owner, 'needs_team_action=false'), [id(7), id(6), id(4), id(3), id(0)]);
    t.same(
      await list(owner, `needs_team_action=true&workspace_id=${second.id}`),
      [id(5), id(1)],
      'combines with the other filters',
    );
    t.same(await list(owner, 'needs_team_action=true&origin=widget'), [id(5)]);
    t.same(await list(owner, 'needs_team_action=true&sort=oldest'), [id(1), id(2), id(5)]);
    const items = (await call(app, owner, 'GET', '/v1/tickets?needs_team_action=true')).body.items;
    t.ok(
      items.every((i) => i.needs_team_action === true),
      'every item says so itself',
    );

    // The cursor walks the filtered list like the whole one.
    const first = await call(app, owner, 'GET', '/v1/tickets?needs_team_action=true&limit=2');
    t.same(ids(first), [id(5), id(2)]);
    t.same(
      ids(await call(app, owner, 'GET', `/v1/tickets?needs_team_action=true&limit=2&cursor=${first.body.next_cursor}`)),
      [id(1)],
    );
    t.equal((await call(app, owner, 'GET', '/v1/tickets?needs_team_action=perhaps')).status, 400);
  });

  await t.test('counts match the list, per state and in total', async (t) => {
    const res = await call(app, owner, 'GET', '/v1/tickets/counts');
    t.equal(res.status, 200, res.payload);
    t.same(
      res.body,
      {
        by_state: {
          received: 4,
          triage: 1,
          needs_info: 0,
          draft_ready: 1,
          answered: 0,
          fixing: 0,
          awaiting_approval: 0,
          releasing: 0,
          customer_notified: 0,
          closed: 1,
          escalated: 1,
        },
        needs_team_action: 3,
        total: 8,
      },
      "every state present, the other organization's escalated ticket not counted",
    );
    // The same numbers the list gives, state by state and with filters.
    for (const q of [
      '',
      `workspace_id=${second.id}`,
      'origin=widget',
      'q=invoice',
      'needs_team_action=true',
      'needs_team_action=false&origin=email',
    ]) {
      const counts = (await call(app, owner, 'GET', `/v1/tickets/counts?${q}`)).body;
      const items = (await call(app, owner, 'GET', `/v1/tickets?limit=200&${q}`)).body.items;
      t.equal(counts.total, items.length, `total, ${q || 'no filter'}`);
      t.equal(
        counts.needs_team_action,
        items.filter((i) => i.needs_team_action).length,
        `needs_team_action, ${q || 'no filter'}`,
      );
      for (const [state, n] of Object.entries(counts.by_state)) {
        t.equal(n, items.filter((i) => i.state === state).length, `${state}, ${q || 'no filter'}`);
      }
    }
    const mine = await call(app, owner, 'GET', '/v1/tickets/counts?assignee=me');
    t.match(mine.body, { total: 0, needs_team_action: 0 }, 'assignee=me: nothing is assigned to the owner');
  });

  await t.test('a member scoped to one workspace counts only its tickets', async (t) => {
    const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [second.id] });
    const counts = await call(app, reviewer, 'GET', '/v1/tickets/counts');
    t.equal(counts.status, 200, counts.payload);
    t.match(counts.body, {
      by_state: { received: 2, triage: 1, escalated: 1, draft_ready: 0, closed: 0 },
      needs_team_action: 2,
      total: 4,
    });
    t.equal(counts.body.total, (await list(reviewer, '')).length, "as many as the member's list");

    const denied = await call(app, reviewer, 'GET', `/v1/tickets/counts?workspace_id=${workspace.id}`);
    t.equal(denied.status, 403, 'a workspace of the organization the member cannot open');
    const foreign = await call(app, owner, 'GET', `/v1/tickets/counts?workspace_id=${theirWs.body.id}`);
    t.equal(foreign.status, 404, "another organization's workspace is not found");
    t.equal(foreign.body.code, 'not_found');
    t.equal((await call(app, owner, 'GET', '/v1/tickets/counts?workspace_id=ws_unknown')).status, 404);

    const none = await addMember(app, owner, { role: 'client_viewer', workspaceIds: [] });
    t.match(
      (await call(app, none, 'GET', '/v1/tickets/counts')).body,
      { total: 0, needs_team_action: 0, by_state: { received: 0 } },
      'no workspace, nothing counted',
    );
  });

  await t.test("counts refuse the list's own parameters", async (t) => {
    for (const q of [
      'cursor=abc',
      'limit=10',
      'state=triage',
      'sort=newest',
      'origin=fax',
      'needs_team_action=maybe',
    ]) {
      const res = await call(app, owner, 'GET', `/v1/tickets/counts?${q}`);
      t.equal(res.status, 400, q);
      t.equal(res.body.code, 'invalid_request', q);
    }
    t.equal((await call(app, null, 'GET', '/v1/tickets/counts')).status, 401);
  });
});

t.test("a draft's language: changed by PATCH, audited, used by the email", async (t) => {
  const { app, owner, workspace } = await world(t);
  const tk = await openTicket(app, owner.organization.id, workspace.id, { subject: 'Checkout fails' });
  const created = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, {
    kind: 'reply',
    body_md: 'Grazie, ci guardiamo',
  });
  t.match(created.body, { language: 'en' }, "a draft starts in the ticket's language");
  const url = `/v1/tickets/${tk.id}/drafts/${created.body.id}` as const;

  const edited = await call(app, owner, 'PATCH', url, { language: 'it' });
  t.equal(edited.status, 200, edited.payload);
  t.match(edited.body, { language: 'it', body_md: 'Grazie, ci guardiamo', edited_by_user_id: owner.user.id });
  const page = (await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body;
  t.match(page.drafts.items, [{ id: created.body.id, language: 'it' }], 'the ticket page shows it');
  t.match(
    page.audit,
    [
      {
        action: 'ticket.draft_edited',
        actor: { type: 'user', id: owner.user.id },
        target: { type: 'draft', id: created.body.id },
        changes: { language: { before: 'en', after: 'it' } },
      },
    ],
    'audited with the change',
  );
  t.equal(page.language, 'en', 'the ticket keeps its own language');

  for (const language of ['de', 'IT', '', null]) {
    const res = await call(app, owner, 'PATCH', url, { language });
    t.equal(res.status, 400, `language ${JSON.stringify(language)}`);
    t.equal(res.body.code, 'invalid_request');
  }
  // A body edit is audited without its words; an edit that changes nothing is not audited.
  t.equal((await call(app, owner, 'PATCH', url, { body_md: 'Grazie, ci stiamo lavorando' })).status, 200);
  t.equal((await call(app, owner, 'PATCH', url, { language: 'it' })).status, 200);
  const entries = (await app
    .db('audit_entries')
    .where({ action: 'ticket.draft_edited', target_id: created.body.id })
    .orderBy('created_at')) as Array<{ changes: string | Record<string, unknown> }>;
  t.equal(entries.length, 2);
  const changes = (e: (typeof entries)[number]): unknown =>
    typeof e.changes === 'string' ? JSON.parse(e.changes) : e.changes;
  t.same(changes(entries[1]), { body_md: { before: '[edited]', after: '[edited]' } });

  // The email's own texts follow the draft's language, not the ticket's.
  const sent = await call(app, owner, 'POST', `${url}/send`);
  t.equal(sent.status, 200, sent.payload);
  const mail = (await app.db('mail_messages').where({ ticket_ref: tk.id, template: 'tickets.reply' }).first()) as {
    locale: string;
  };
  t.equal(mail.locale, 'it');
  t.equal((await call(app, owner, 'PATCH', url, { language: 'en' })).status, 409, 'a sent draft keeps its language');
});
