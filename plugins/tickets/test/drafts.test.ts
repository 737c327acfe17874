import { asValue } from 'awilix';
import { simpleParser } from 'mailparser';
import t from 'tap';
import type { OutboxChannelAdapter } from '../../../adapters/mail-outbox/index.js';
import type { TicketService } from '../services/ticket-service.js';
import type { WhiteLabelGuard } from '../services/deps.js';
import { call, openTicket, world } from './helpers.js';

/** Rows the tests read back, with the columns they check. */
interface DraftRow {
  status: string;
  sent_message_id: string | null;
  approved_by_user_id: string | null;
}
interface MailRow {
  id: string;
  message_id: string;
  reply_to: string | null;
  from_address: string;
  /** jsonb: an object, or its JSON text. */
  headers: string | Record<string, string>;
}

t.test('drafts: create, edit, discard, send threaded to the customer', async (t) => {
  const { app, owner, workspace } = await world(t);
  const orgId = owner.organization.id;
  const outbox = app.container.resolve<OutboxChannelAdapter>('channelAdapter');
  const tickets = app.container.resolve<TicketService>('ticketService');

  await t.test('one draft waits at a time; edit and discard', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);
    const created = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, {
      kind: 'reply',
      body_md: 'First try',
      public_summary: 'We are on it',
    });
    t.equal(created.status, 201, created.payload);
    t.match(created.body, {
      ticket_id: tk.id,
      kind: 'reply',
      status: 'draft',
      body_md: 'First try',
      language: 'en',
      edited_by_user_id: owner.user.id,
      sent_at: null,
    });
    const detail = await call(app, owner, 'GET', `/v1/tickets/${tk.id}`);
    t.match(detail.body, { state: 'draft_ready', needs_team_action: true, public_state: 'in_analysis' });

    const second = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, { kind: 'reply', body_md: 'Another' });
    t.equal(second.status, 409);
    t.match(second.body, { code: 'open_draft_exists', details: { draft_id: created.body.id } });
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, { kind: 'release_notice', body_md: 'x' })).status,
      400,
      'the team writes reply or needs_info drafts only',
    );

    const edited = await call(app, owner, 'PATCH', `/v1/tickets/${tk.id}/drafts/${created.body.id}`, {
      body_md: 'Second try',
      kind: 'needs_info',
    });
    t.equal(edited.status, 200);
    t.match(edited.body, { body_md: 'Second try', kind: 'needs_info', status: 'draft' });
    t.equal(
      (await call(app, owner, 'PATCH', `/v1/tickets/${tk.id}/drafts/${created.body.id}`, { kind: 'interim' })).status,
      400,
    );

    const discarded = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${created.body.id}/discard`, {
      reason: 'Wrong tone',
    });
    t.equal(discarded.status, 200, discarded.payload);
    t.match(discarded.body, { id: tk.id, state: 'triage', needs_team_action: true }, 'the team has the next move');
    for (const [method, url] of [
      ['PATCH', `/v1/tickets/${tk.id}/drafts/${created.body.id}`],
      ['POST', `/v1/tickets/${tk.id}/drafts/${created.body.id}/discard`],
      ['POST', `/v1/tickets/${tk.id}/drafts/${created.body.id}/send`],
    ] as const) {
      const res = await call(app, owner, method, url, method === 'PATCH' ? { body_md: 'x' } : undefined);
      t.equal(res.status, 409, `${method} on a discarded draft`);
      t.match(res.body, { code: 'invalid_transition', details: { resource: 'draft', status: 'discarded' } });
    }
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, { kind: 'reply', body_md: 'Team-written' }))
        .status,
      201,
      'after a discard the team writes its own',
    );
    t.equal((await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/drf_unknown/send`)).status, 404);
  });

  await t.test("send emails the customer after the click, threaded, with the ticket's reply address", async (t) => {
    const tk = await openTicket(app, orgId, workspace.id, { subject: 'Checkout fails' });
    const opening = (await app.db('ticket_messages').where({ ticket_id: tk.id }).first()) as {
      email_message_id: string;
    };
    const openingId = opening.email_message_id;
    const draft = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, {
      kind: 'needs_info',
      body_md: 'Which browser do you use?',
    });
    t.equal((await app.db('mail_messages').where({ ticket_ref: tk.id })).length, 0, 'nothing leaves before the click');

    const sent = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${draft.body.id}/send`, {
      public_summary: 'We asked for the browser version',
    });
    t.equal(sent.status, 200, sent.payload);
    t.match(sent.body, {
      state: 'needs_info',
      public_state: 'needs_reply',
      message_count: 2,
      public_summary: 'We asked for the browser version',
      sla_due_at: null,
    });
    t.ok(sent.body.first_response_at, 'the first outgoing reply sets first_response_at');
    t.ok(sent.body.public_summary_approved_at);
    const out = sent.body.messages.find((m) => m.direction === 'out');
    t.match(out, {
      to_addresses: ['jane.doe@example.com'],
      subject: 'Re: Checkout fails',
      body_text: 'Which browser do you use?',
      delivery_status: 'queued',
      sent_by_user_id: owner.user.id,
      in_reply_to: openingId,
      references: openingId,
      is_internal_note: false,
    });
    if (!out?.email_message_id) throw new Error(`no outgoing message with a Message-ID: ${sent.payload}`);
    const outId = out.email_message_id;
    t.match(outId, /^<msg_[a-z0-9]+@inbound\.localhost>$/);

    const stored = (await app.db('ticket_drafts').where({ id: draft.body.id }).first()) as DraftRow;
    t.match(stored, { status: 'sent', sent_message_id: out.id, approved_by_user_id: owner.user.id });

    const mail = (await app
      .db('mail_messages')
      .where({ ticket_ref: tk.id, template: 'tickets.reply' })
      .first()) as MailRow;
    t.equal(mail.message_id, outId);
    const replyTo = workspace.inbound_address?.replace('@', `+t_${tk.reply_token}@`);
    t.equal(mail.reply_to, replyTo, 'Reply-To is <workspace local part>+t_<token>@<inbound domain>');
    const headers: unknown = typeof mail.headers === 'string' ? JSON.parse(mail.headers) : mail.headers;
    t.match(headers, { 'In-Reply-To': openingId, References: openingId, 'Auto-Submitted': 'no' });

    // The mail plugin delivers it: read the .eml the outbox adapter produced.
    const delivered = await outbox.waitFor((e) => e.messageId === outId, 10_000);
    const parsed = await simpleParser(delivered.raw);
    t.equal(parsed.messageId, outId);
    t.equal(parsed.inReplyTo, openingId);
    t.same([parsed.references].flat(), [openingId]);
    t.equal(parsed.replyTo?.value[0]?.address, replyTo);
    t.equal(parsed.subject, 'Re: Checkout fails');
    t.match(parsed.text ?? '', /Which browser do you use\?/);
    t.equal(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value[0]?.address : null, 'jane.doe@example.com');

    // Delivery news from the inbox: delivered, then a bounce (final, and the team is told).
    t.same(
      await app.db.transaction((trx) => tickets.setDeliveryStatus(trx, { mailMessageIds: [mail.id] }, 'delivered')),
      [out.id],
    );
    t.same(
      await app.db.transaction((trx) => tickets.setDeliveryStatus(trx, { orgId, emailMessageIds: [outId] }, 'bounced')),
      [out.id],
    );
    t.same(
      await app.db.transaction((trx) => tickets.setDeliveryStatus(trx, { mailMessageIds: [mail.id] }, 'delivered')),
      [],
      'a bounce is final',
    );
    t.same(
      await app.db.transaction((trx) =>
        tickets.setDeliveryStatus(trx, { orgId: 'org_other', emailMessageIds: [outId] }, 'failed'),
      ),
      [],
      'scoped to the organization',
    );
    const bounced = await call(app, owner, 'GET', `/v1/tickets/${tk.id}`);
    t.equal(bounced.body.messages.find((m) => m.id === out.id)?.delivery_status, 'bounced');
    t.equal(bounced.body.needs_team_action, true, 'a reply that did not arrive needs the team');

    // The customer answers; the next reply carries the whole thread.
    await app.db.transaction((trx) =>
      tickets.addInboundMessage(trx, {
        orgId,
        ticketId: tk.id,
        from: 'jane.doe@example.com',
        bodyText: 'Firefox 128',
        emailMessageId: '<answer-1@mail.example.com>',
        inReplyTo: outId,
        references: `${openingId} ${outId}`,
      }),
    );
    t.match(
      (await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body,
      { state: 'triage', message_count: 3 },
      'the answer moves it back to triage',
    );
    const reply = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, {
      kind: 'reply',
      body_md: 'Fixed in Firefox too.',
    });
    const done = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${reply.body.id}/send`, {
      body_md: 'Fixed in Firefox too, thanks!',
    });
    t.match(done.body, { state: 'answered', public_state: 'answered', first_response_at: sent.body.first_response_at });
    const last = done.body.messages.filter((m) => m.direction === 'out').pop();
    t.equal(last?.body_text, 'Fixed in Firefox too, thanks!', 'the body given with the click wins');
    t.equal(last?.in_reply_to, '<answer-1@mail.example.com>', "In-Reply-To is the customer's latest message");
    t.equal(
      last?.references,
      `${openingId} ${outId} <answer-1@mail.example.com>`,
      'References carry the thread in order',
    );
    const events = (
      await app.db('outbox').where({ type: 'drafts.sent' }).whereRaw(`payload->>'ticket_id' = ?`, [tk.id])
    ).length;
    t.equal(events, 2, 'drafts.sent per send');
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${reply.body.id}/send`)).body.code,
      'invalid_transition',
      'a sent draft is not sent twice',
    );
  });

  await t.test('the white-label guard can refuse; nothing is sent or stored then', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);
    const draft = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, { kind: 'reply', body_md: 'Hello' });
    const refuse: WhiteLabelGuard = {
      check: () =>
        Promise.resolve({
          allowed: false,
          code: 'white_label_not_ready',
          message: 'White-label sending is not ready',
          details: { missing: ['sending_domain'] },
        }),
    };
    app.container.register('whiteLabelGuard', asValue(refuse));
    const res = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${draft.body.id}/send`);
    t.equal(res.status, 409);
    t.match(res.body, { code: 'white_label_not_ready', details: { missing: ['sending_domain'] } });
    t.equal((await app.db('mail_messages').where({ ticket_ref: tk.id })).length, 0);
    t.equal(((await app.db('ticket_drafts').where({ id: draft.body.id }).first()) as DraftRow).status, 'draft');

    const from: WhiteLabelGuard = {
      check: () => Promise.resolve({ allowed: true, from: { address: 'help@client.example', name: 'Client Help' } }),
    };
    app.container.register('whiteLabelGuard', asValue(from));
    const ok = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${draft.body.id}/send`);
    t.equal(ok.status, 200);
    t.equal(
      ok.body.messages.find((m) => m.direction === 'out')?.from,
      'help@client.example',
      'the guard may choose the sender',
    );
    t.equal(
      ((await app.db('mail_messages').where({ ticket_ref: tk.id }).first()) as MailRow).from_address,
      'help@client.example',
    );
  });

  await t.test('a ticket without a customer address cannot be answered by email', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id, {
      customerEmail: null,
      origin: 'proactive',
      message: undefined,
    });
    const draft = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, { kind: 'reply', body_md: 'Hello' });
    const res = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${draft.body.id}/send`);
    t.equal(res.status, 422);
    t.equal(res.body.code, 'no_customer_address');
  });
});
