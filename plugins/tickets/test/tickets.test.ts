import t from 'tap';
import { addMember } from '../../../test/helpers/accounts.js';
import type { TicketService } from '../services/ticket-service.js';
import { call, newWorkspace, openTicket, world, type Method } from './helpers.js';

t.test('tickets: read, team actions, refusals', async (t) => {
  const { app, owner, workspace } = await world(t);
  const orgId = owner.organization.id;
  const ticketService = app.container.resolve<TicketService>('ticketService');

  await t.test('a new ticket reads with every field, its public state and SLA', async (t) => {
    const before = Date.now();
    const tk = await openTicket(app, orgId, workspace.id, { subject: 'Checkout fails', language: 'it' });
    const res = await call(app, owner, 'GET', `/v1/tickets/${tk.id}`);
    t.equal(res.status, 200, res.payload);
    const b = res.body;
    t.match(b, {
      id: tk.id,
      org_id: orgId,
      workspace_id: workspace.id,
      workspace_name: 'Shop',
      client_name: 'Shop Inc',
      origin: 'email',
      customer_email: 'jane.doe@example.com',
      customer_name: 'Jane Doe',
      subject: 'Checkout fails',
      state: 'received',
      public_state: 'in_analysis',
      category: 'unknown',
      priority: 'normal',
      language: 'it',
      is_demo: false,
      demo: false,
      needs_team_action: false,
      message_count: 1,
      reopened_count: 0,
      public_summary: null,
      public_token_revoked_at: null,
    });
    t.match(b.public_status_url, /^http:\/\/localhost:3000\/status\/st_[A-Za-z0-9_-]{43}$/);
    const due = Date.parse(b.sla_due_at ?? '') - Date.parse(b.created_at);
    t.equal(due, 240 * 60_000, "sla_due_at = created + the workspace's first-response minutes");
    t.ok(Date.parse(b.created_at) >= before - 1000);
    t.equal(b.messages.length, 1);
    t.match(b.messages[0], {
      direction: 'in',
      from: 'jane.doe@example.com',
      is_internal_note: false,
      delivery_status: null,
      widget_context: null,
      attachments: [],
    });
    t.ok(
      (await app.db('outbox').where({ type: 'tickets.created' }).whereRaw(`payload->>'ticket_id' = ?`, [tk.id]))
        .length === 1,
      'tickets.created is written',
    );
  });

  await t.test('assign: to a member who can open the workspace, unassign, refusals', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);
    const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [workspace.id] });
    const outsider = await addMember(app, owner, { role: 'reviewer', workspaceIds: [] });
    const ok = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/assign`, { assignee_user_id: reviewer.user.id });
    t.equal(ok.status, 200, ok.payload);
    t.equal(ok.body.assignee_user_id, reviewer.user.id);
    const mine = await call(app, reviewer, 'GET', '/v1/tickets?assignee=me');
    t.same(
      mine.body.items.map((i) => i.id),
      [tk.id],
      'assignee=me',
    );
    const byId = await call(app, owner, 'GET', `/v1/tickets?assignee=${reviewer.user.id}`);
    t.same(
      byId.body.items.map((i) => i.id),
      [tk.id],
      'assignee=<user id>',
    );

    const refused = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/assign`, {
      assignee_user_id: outsider.user.id,
    });
    t.equal(refused.status, 422);
    t.match(refused.body, { code: 'invalid_assignee', details: { reason: 'no_workspace_access' } });
    const stranger = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/assign`, { assignee_user_id: 'usr_nobody' });
    t.match(stranger.body, { code: 'invalid_assignee', details: { reason: 'not_a_member' } });
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/assign`, {})).status,
      400,
      'assignee_user_id is required (null unassigns)',
    );

    const un = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/assign`, { assignee_user_id: null });
    t.equal(un.body.assignee_user_id, null);
    t.ok(
      (await call(app, owner, 'GET', '/v1/tickets?assignee=unassigned&limit=200')).body.items.some(
        (i) => i.id === tk.id,
      ),
      'assignee=unassigned',
    );
    t.equal((await app.db('audit_entries').where({ action: 'ticket.assigned', target_id: tk.id })).length, 2);
  });

  await t.test('close, reopen and the illegal transitions', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);
    const closed = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/close`, {
      reason: 'resolved',
      comment: 'Fixed by the config change',
    });
    t.equal(closed.status, 200, closed.payload);
    t.match(closed.body, { state: 'closed', public_state: 'resolved', sla_due_at: null, needs_team_action: false });
    t.ok(closed.body.closed_at);
    const note = closed.body.messages.find((m) => m.is_internal_note);
    t.equal(note?.body_text, 'Fixed by the config change', 'the comment is kept as an internal note');

    const again = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/close`, { reason: 'resolved' });
    t.equal(again.status, 409);
    t.match(again.body, { code: 'invalid_transition', details: { state: 'closed', event: 'close' } });
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/escalate`, { reason: 'x' })).body.code,
      'invalid_transition',
      'a closed ticket cannot be escalated',
    );
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, { kind: 'reply', body_md: 'x' })).body.code,
      'invalid_transition',
      'nor get a draft',
    );

    const reopened = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/reopen`, {
      reason: 'Customer says it is back',
    });
    t.equal(reopened.status, 200);
    t.match(reopened.body, { state: 'triage', public_state: 'in_analysis', reopened_count: 1, closed_at: null });
    t.ok(reopened.body.sla_due_at, 'the SLA clock runs again');
    const twice = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/reopen`);
    t.equal(twice.status, 409, 'only a closed ticket reopens');
    t.equal(twice.body.code, 'invalid_transition');

    const events = (await app.db('outbox').whereRaw(`payload->>'ticket_id' = ?`, [tk.id]).orderBy('id')) as Array<{
      type: string;
    }>;
    const types = events.map((r) => r.type);
    for (const type of ['tickets.created', 'tickets.state_changed', 'tickets.closed', 'tickets.reopened'])
      t.ok(types.includes(type), `${type} through the outbox`);

    const badReason = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/close`, { reason: 'bored' });
    t.equal(badReason.status, 400, 'unknown close reason');
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/close`, { reason: 'duplicate' })).status,
      400,
      'a duplicate needs the original',
    );
    const self = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/close`, {
      reason: 'duplicate',
      duplicate_of_ticket_id: tk.id,
    });
    t.match(self.body, { code: 'invalid_duplicate', details: { reason: 'self' } });
  });

  await t.test('escalate notifies the owners and admins in their language', async (t) => {
    const admin = await addMember(app, owner, { role: 'admin' });
    await app.db('users').where({ id: admin.user.id }).update({ locale: 'it' });
    const tk = await openTicket(app, orgId, workspace.id, { subject: 'Refund not received' });
    const res = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/escalate`, { reason: 'Needs a refund decision' });
    t.equal(res.status, 200, res.payload);
    t.match(res.body, { state: 'escalated', public_state: 'team_review', needs_team_action: true });
    const mails = (await app
      .db('mail_messages')
      .where({ template: 'tickets.escalated', ticket_ref: tk.id })
      .orderBy('to_address')) as Array<{ to_address: string; locale: string; subject: string; text: string }>;
    t.same(mails.map((m) => m.to_address).sort(), [admin.email, owner.email].sort(), 'one email per owner and admin');
    const it = mails.find((m) => m.to_address === admin.email);
    t.equal(it?.locale, 'it');
    t.match(it?.subject, /^Ticket inoltrato al team: Refund not received$/);
    t.match(it?.text, /Motivo: Needs a refund decision/);
    t.match(mails.find((m) => m.to_address === owner.email)?.subject, /^Ticket escalated to the team/);
    t.equal(
      (await app.db('outbox').where({ type: 'tickets.escalated' }).whereRaw(`payload->>'ticket_id' = ?`, [tk.id]))
        .length,
      1,
    );

    const again = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/escalate`, { reason: 'again' });
    t.equal(again.status, 409);
    t.equal(again.body.code, 'invalid_transition');
    t.equal((await call(app, owner, 'POST', `/v1/tickets/${tk.id}/escalate`, {})).status, 400, 'a reason is required');
  });

  await t.test('internal notes are never sent', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);
    const res = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/notes`, {
      body_md: 'Customer is on the legacy plan',
    });
    t.equal(res.status, 201, res.payload);
    t.match(res.body, {
      ticket_id: tk.id,
      is_internal_note: true,
      delivery_status: null,
      sent_by_user_id: owner.user.id,
      body_text: 'Customer is on the legacy plan',
      to_addresses: [],
    });
    t.equal((await app.db('mail_messages').where({ ticket_ref: tk.id })).length, 0, 'no mail');
    const detail = await call(app, owner, 'GET', `/v1/tickets/${tk.id}`);
    t.equal(detail.body.message_count, 1, 'notes are not counted as conversation messages');
    t.equal(detail.body.messages.length, 2, 'but appear in it for the team');
    t.equal((await call(app, owner, 'POST', `/v1/tickets/${tk.id}/notes`, { body_md: '' })).status, 400);
  });

  await t.test('status-link: revoke and rotate', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);
    const url = (await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body.public_status_url;
    const path = new URL(url).pathname;
    t.equal((await app.server.inject(path)).statusCode, 200);
    const revoked = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/status-link`, { action: 'revoke' });
    t.equal(revoked.status, 200);
    t.equal(revoked.body.public_status_url, url);
    t.ok(revoked.body.public_token_revoked_at);
    t.equal((await app.server.inject(path)).statusCode, 404, 'a revoked link answers 404');
    const rotated = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/status-link`, { action: 'rotate' });
    t.equal(rotated.body.public_token_revoked_at, null);
    t.not(rotated.body.public_status_url, url);
    t.equal((await app.server.inject(new URL(rotated.body.public_status_url).pathname)).statusCode, 200);
    t.equal((await app.server.inject(path)).statusCode, 404, 'the old link stays dead');
    t.equal((await call(app, owner, 'POST', `/v1/tickets/${tk.id}/status-link`, { action: 'explode' })).status, 400);
  });

  await t.test('a customer reply moves a waiting ticket to triage and reopens a closed one', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);
    await call(app, owner, 'POST', `/v1/tickets/${tk.id}/close`, { reason: 'answered' });
    await app.db.transaction((trx) =>
      ticketService.addInboundMessage(trx, {
        orgId,
        ticketId: tk.id,
        from: 'jane.doe@example.com',
        bodyText: 'Still broken',
        emailMessageId: '<again@mail.example.com>',
      }),
    );
    const res = await call(app, owner, 'GET', `/v1/tickets/${tk.id}`);
    t.match(res.body, { state: 'triage', reopened_count: 1, message_count: 2, closed_at: null });
    t.ok(res.body.last_customer_message_at);
    t.ok(
      (await app.db('outbox').where({ type: 'tickets.reopened' }).whereRaw(`payload->>'ticket_id' = ?`, [tk.id]))
        .length === 1,
    );

    const spam = await openTicket(app, orgId, workspace.id);
    await call(app, owner, 'POST', `/v1/tickets/${spam.id}/close`, { reason: 'spam' });
    await app.db.transaction((trx) =>
      ticketService.addInboundMessage(trx, { orgId, ticketId: spam.id, bodyText: 'buy now' }),
    );
    t.equal((await call(app, owner, 'GET', `/v1/tickets/${spam.id}`)).body.state, 'closed', 'spam stays closed');
  });

  await t.test(
    "another organization's ticket answers 404 on every operation; a member outside the workspace gets 403",
    async (t) => {
      const tk = await openTicket(app, orgId, workspace.id);
      const { signUp } = await import('../../../test/helpers/accounts.js');
      const stranger = await signUp(app, { orgName: 'Rival' });
      const ops: [Method, string, unknown?][] = [
        ['GET', `/v1/tickets/${tk.id}`],
        ['POST', `/v1/tickets/${tk.id}/assign`, { assignee_user_id: null }],
        ['POST', `/v1/tickets/${tk.id}/close`, { reason: 'spam' }],
        ['POST', `/v1/tickets/${tk.id}/reopen`],
        ['POST', `/v1/tickets/${tk.id}/escalate`, { reason: 'x' }],
        ['POST', `/v1/tickets/${tk.id}/notes`, { body_md: 'x' }],
        ['POST', `/v1/tickets/${tk.id}/drafts`, { kind: 'reply', body_md: 'x' }],
        ['PATCH', `/v1/tickets/${tk.id}/drafts/drf_x`, { body_md: 'x' }],
        ['POST', `/v1/tickets/${tk.id}/drafts/drf_x/discard`],
        ['POST', `/v1/tickets/${tk.id}/drafts/drf_x/send`],
        ['GET', `/v1/tickets/${tk.id}/subscribers`],
        ['POST', `/v1/tickets/${tk.id}/subscribers`, { email: 'a@b.co' }],
        ['DELETE', `/v1/tickets/${tk.id}/subscribers/sub_x`],
        ['POST', `/v1/tickets/${tk.id}/status-link`, { action: 'rotate' }],
      ];
      for (const [method, url, payload] of ops) {
        const res = await call(app, stranger, method, url, payload);
        t.equal(res.status, 404, `${method} ${url}`);
        t.equal(res.body.code, 'not_found');
      }
      const strangersList = await call(app, stranger, 'GET', '/v1/tickets');
      t.same(strangersList.body.items, [], 'the list never shows another organization');
      t.equal((await call(app, stranger, 'GET', `/v1/tickets?workspace_id=${workspace.id}`)).status, 404);
      t.equal((await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body.state, 'received', 'nothing changed');

      const other = await newWorkspace(app, owner, 'Other');
      const limited = await addMember(app, owner, { role: 'reviewer', workspaceIds: [other.id] });
      t.equal((await call(app, limited, 'GET', `/v1/tickets/${tk.id}`)).status, 403);
      t.equal((await call(app, limited, 'GET', `/v1/tickets?workspace_id=${workspace.id}`)).status, 403);
      // The list reads the workspace only for an empty page: an unknown id is still 404, an empty one 200.
      const unknown = await call(app, owner, 'GET', '/v1/tickets?workspace_id=ws_doesnotexist0000000000');
      t.equal(unknown.status, 404, 'an unknown workspace id');
      t.equal(unknown.body.code, 'not_found');
      const empty = await call(app, owner, 'GET', `/v1/tickets?workspace_id=${other.id}`);
      t.equal(empty.status, 200, 'a workspace without tickets');
      t.same(empty.body.items, []);
      t.equal(
        (await call(app, stranger, 'GET', `/v1/tickets?workspace_id=${other.id}`)).status,
        404,
        "another organization's empty workspace",
      );
      const viewer = await addMember(app, owner, { role: 'client_viewer', workspaceIds: [workspace.id] });
      t.equal((await call(app, viewer, 'GET', `/v1/tickets/${tk.id}`)).status, 200, 'client viewers read');
      t.equal(
        (await call(app, viewer, 'POST', `/v1/tickets/${tk.id}/notes`, { body_md: 'x' })).status,
        403,
        'but do not work tickets',
      );
    },
  );
});
