// The channels section: the Channel answer, switches, forwarding and its test (one a minute),
// the inbound log, quarantine and release, reply threading, archive, tenancy and roles.
import t from 'tap';
import type { OutboxChannelAdapter } from '../../../adapters/mail-outbox/index.js';
import { addMember, onPlan, signUp } from '../../../test/helpers/accounts.js';
import { call, countRows, deliverOne, eml, fixture, inboundLog, newWorkspace, uid, world } from './helpers.js';

const { app, owner, workspace } = await world(t);
// A fresh workspace per scenario: the indie plan takes extra workspaces (the none plan includes
// one and no extra) and, like none, has no custom sending domain.
await onPlan(app, owner.organization.id, 'indie');
const outbox = app.container.resolve<OutboxChannelAdapter>('channelAdapter');
const fresh = () => newWorkspace(app, owner, `Inbox ${uid()}`);
/** The ticket an email opened or joined (none: the test fails here). */
const ticket = async (id: string | null) => {
  if (!id) throw new Error('the email opened or joined no ticket');
  return (await call(app, owner, 'GET', `/v1/tickets/${id}`)).body;
};

t.test('GET answers the whole Channel of a new workspace', async (t) => {
  const res = await call(app, owner, 'GET', `/v1/channels/${workspace.id}`);
  t.equal(res.status, 200);
  t.same(res.body, {
    workspace_id: workspace.id,
    channel_id: res.body.channel_id,
    enabled: true,
    inbox_in_plan: true,
    custom_domain_in_plan: false,
    inbound_address: workspace.inbound_address,
    white_label_address: null,
    accept_list_mail: false,
    forwarding: null,
    pending_gmail_confirmation: null,
    sending: {
      kind: 'default',
      from: 'Patchwell <no-reply@localhost>',
      reply_to_example: res.body.sending.reply_to_example,
      missing: [],
    },
    sending_domain: null,
    receiving_domain: null,
    white_label: false,
  });
  t.match(res.body.channel_id, /^ch_/);
  t.match(
    res.body.sending.reply_to_example,
    new RegExp(`^${workspace.inbound_address.split('@')[0]}\\+t_[a-z2-9]{16}@inbound\\.localhost$`),
  );
  t.equal(
    (await call(app, owner, 'GET', `/v1/channels/${workspace.id}`)).body.channel_id,
    res.body.channel_id,
    'one channel per workspace',
  );
});

t.test('PATCH switches the inbox and list mail, audited; at least one field', async (t) => {
  const ws = await fresh();
  const res = await call(app, owner, 'PATCH', `/v1/channels/${ws.id}`, { enabled: false, accept_list_mail: true });
  t.match(res.body, { enabled: false, accept_list_mail: true });
  t.equal((await call(app, owner, 'PATCH', `/v1/channels/${ws.id}`, {})).status, 400);
  const audit = (await app.db('audit_entries').where({ action: 'channel.updated', workspace_id: ws.id }).first()) as {
    changes: unknown;
  };
  t.match(JSON.parse(JSON.stringify(audit.changes)), {
    enabled: { before: true, after: false },
    accept_list_mail: { before: false, after: true },
  });
});

t.test('forwarding: recorded, refused for our own address, forgotten', async (t) => {
  const ws = await fresh();
  const bad = await call(app, owner, 'PUT', `/v1/channels/${ws.id}/forwarding`, {
    address: ws.inbound_address,
    provider: 'other',
  });
  t.equal(bad.status, 400);
  t.equal(
    (await call(app, owner, 'PUT', `/v1/channels/${ws.id}/forwarding`, { address: 'help@', provider: 'other' })).status,
    400,
    'an address',
  );
  t.equal(
    (
      await call(app, owner, 'PUT', `/v1/channels/${ws.id}/forwarding`, {
        address: 'help@acme.test',
        provider: 'mail_z',
      })
    ).status,
    400,
    'a provider of the list',
  );
  const set = await call(app, owner, 'PUT', `/v1/channels/${ws.id}/forwarding`, {
    address: 'Help@Acme.test',
    provider: 'mail_b',
  });
  t.match(set.body.forwarding, {
    address: 'help@acme.test',
    provider: 'mail_b',
    added_at: /Z$/,
    verified_at: null,
    tested_at: null,
    last_forwarded_at: null,
    test: null,
    gmail_confirmation: null,
  });
  const del = await call(app, owner, 'DELETE', `/v1/channels/${ws.id}/forwarding`);
  t.equal(del.body.forwarding, null);
  const entries = (await app
    .db('audit_entries')
    .where({ workspace_id: ws.id })
    .whereLike('action', 'channel.forwarding%')
    .orderBy('created_at')) as Array<{ action: string }>;
  t.same(
    entries.map((a) => a.action),
    ['channel.forwarding_set', 'channel.forwarding_removed'],
  );
});

t.test('forwarding test: emails a code, 429 on the second within a minute, verified when it comes back', async (t) => {
  const ws = await fresh();
  t.equal((await call(app, owner, 'POST', `/v1/channels/${ws.id}/forwarding/test`)).body.code, 'forwarding_not_set');
  await call(app, owner, 'PUT', `/v1/channels/${ws.id}/forwarding`, {
    address: 'support.acme@gmail.com',
    provider: 'mail_a',
  });
  await deliverOne(app, fixture('gmail-forwarding-confirmation', { to: ws.inbound_address }), ws.inbound_address);

  const first = await call(app, owner, 'POST', `/v1/channels/${ws.id}/forwarding/test`);
  t.equal(first.status, 200);
  const test = first.body.forwarding?.test;
  if (!test) throw new Error(`no forwarding test: ${first.payload}`);
  const code = test.code;
  t.match(code, /^FT-[A-Z2-9]{8}$/);
  t.match(test.sent_at, /Z$/);
  const second = await call(app, owner, 'POST', `/v1/channels/${ws.id}/forwarding/test`);
  t.equal(second.status, 429);
  t.equal(second.body.code, 'rate_limited');
  t.ok(
    Number(second.headers['retry-after']) >= 1 && Number(second.headers['retry-after']) <= 60,
    `Retry-After ${String(second.headers['retry-after'])}`,
  );

  const mail = await outbox.waitFor((m) => m.to.includes('support.acme@gmail.com') && m.subject.includes(code), 10_000);
  t.match(mail.email.text, new RegExp(`Test code: ${code}`), 'the code is in the body too');
  // Gmail forwards the message as it is, adding its own headers on top.
  const forwarded = Buffer.concat([
    Buffer.from(
      `X-Forwarded-To: ${ws.inbound_address}\r\nX-Forwarded-For: support.acme@gmail.com ${ws.inbound_address}\r\n`,
    ),
    mail.raw,
  ]);
  t.match(await deliverOne(app, forwarded, ws.inbound_address), {
    status: 'processed',
    reason: 'forwarding_test',
    ticket_id: null,
  });
  const ch = (await call(app, owner, 'GET', `/v1/channels/${ws.id}`)).body;
  t.match(ch.forwarding, { verified_at: /Z$/, tested_at: /Z$/, test: { code } });
  t.match(
    ch.forwarding?.gmail_confirmation,
    { code: '914326578', verified: true },
    'the pending Gmail confirmation is confirmed by the forwarded test',
  );
  t.equal(ch.pending_gmail_confirmation, null);
  t.equal(await countRows(app, 'tickets', { workspace_id: ws.id }), 0);

  const customer = await deliverOne(
    app,
    eml({ to: 'support.acme@gmail.com', headers: { 'X-Forwarded-To': ws.inbound_address } }),
    ws.inbound_address,
  );
  t.equal(customer.status, 'processed');
  t.match(
    (await call(app, owner, 'GET', `/v1/channels/${ws.id}`)).body.forwarding?.last_forwarded_at,
    /Z$/,
    'customer mail through the forwarding is noted',
  );
});

t.test('inbound log: newest first, status filter, keyset cursor', async (t) => {
  const ws = await fresh();
  await deliverOne(app, eml({ to: ws.inbound_address, subject: 'one' }), ws.inbound_address);
  await deliverOne(app, fixture('no-reply-sender', { to: ws.inbound_address }), ws.inbound_address);
  await deliverOne(
    app,
    eml({ to: ws.inbound_address, subject: 'three', from: 'Bob <bob@example.org>' }),
    ws.inbound_address,
  );
  const page1 = await call(app, owner, 'GET', `/v1/channels/${ws.id}/inbound?limit=2`);
  t.same(
    page1.body.items.map((e) => e.subject),
    ['three', 'Your invoice INV-2024-0042 is ready'],
  );
  t.type(page1.body.next_cursor, 'string');
  const page2 = await call(app, owner, 'GET', `/v1/channels/${ws.id}/inbound?limit=2&cursor=${page1.body.next_cursor}`);
  t.same(
    page2.body.items.map((e) => e.subject),
    ['one'],
  );
  t.equal(page2.body.next_cursor, null);
  t.same(
    (await inboundLog(app, owner, ws.id, '?status=ignored')).map((e) => e.reason),
    ['no_reply'],
  );
  t.equal((await call(app, owner, 'GET', `/v1/channels/${ws.id}/inbound?status=lost`)).status, 400);
});

t.test('quarantine and release: a released email opens a ticket; a quarantined reply joins its ticket', async (t) => {
  const ws = await fresh();
  const q = await deliverOne(app, fixture('spam-lottery', { to: ws.inbound_address }), ws.inbound_address);
  t.equal(q.status, 'quarantined');
  const [entry] = await inboundLog(app, owner, ws.id);
  const rel = await call(app, owner, 'POST', `/v1/channels/${ws.id}/inbound/mime/${entry.email_id}/release`);
  t.equal(rel.status, 200);
  t.match(rel.body, { ticket_id: /^tkt_/, created: true });
  t.match(await ticket(rel.body.ticket_id), { subject: 'CONGRATULATIONS YOU HAVE WON THE LOTTERY', origin: 'email' });
  t.match((await inboundLog(app, owner, ws.id))[0], {
    status: 'released',
    reason: 'spam',
    ticket_id: rel.body.ticket_id,
    releasable: false,
  });
  t.equal(
    (await call(app, owner, 'POST', `/v1/channels/${ws.id}/inbound/mime/${entry.email_id}/release`)).body.code,
    'not_quarantined',
    'once',
  );
  t.equal(
    (await call(app, owner, 'POST', `/v1/channels/${ws.id}/inbound/ses/${entry.email_id}/release`)).status,
    404,
    'the provider is part of the path',
  );
  t.equal((await call(app, owner, 'POST', `/v1/channels/${ws.id}/inbound/mime/ie_nope/release`)).status, 404);
  t.ok(
    await app.db('audit_entries').where({ action: 'inbound_email.released', target_id: entry.email_id }).first(),
    'audited',
  );

  const open = await deliverOne(
    app,
    eml({ to: ws.inbound_address, subject: 'Login fails', from: 'Zoe <zoe@example.org>' }),
    ws.inbound_address,
  );
  const openingId = (await ticket(open.ticket_id)).messages[0].email_message_id;
  if (!openingId) throw new Error('the opening email has no Message-ID');
  const spammyReply = eml({
    to: ws.inbound_address,
    subject: 'Re: Login fails',
    from: 'Zoe <zoe@example.org>',
    headers: { 'In-Reply-To': openingId, 'X-Spam-Flag': 'YES' },
  });
  t.match(await deliverOne(app, spammyReply, ws.inbound_address), { status: 'quarantined', reason: 'spam' });
  const [reply] = await inboundLog(app, owner, ws.id, '?status=quarantined');
  const joined = await call(app, owner, 'POST', `/v1/channels/${ws.id}/inbound/mime/${reply.email_id}/release`);
  t.same(joined.body, { ticket_id: open.ticket_id, created: false });
  t.equal((await ticket(open.ticket_id)).message_count, 2);
});

t.test(
  "reply threading: the customer's answer to a sent draft joins the ticket, by headers or by the reply address alone",
  async (t) => {
    const ws = await fresh();
    const opened = await deliverOne(app, fixture('customer-question', { to: ws.inbound_address }), ws.inbound_address);
    const draft = await call(app, owner, 'POST', `/v1/tickets/${opened.ticket_id}/drafts`, {
      kind: 'needs_info',
      body_md: 'Which browser version?',
    });
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${opened.ticket_id}/drafts/${draft.body.id}/send`, {})).status,
      200,
    );
    const out = (await ticket(opened.ticket_id)).messages.find((m) => m.direction === 'out');
    const sent = await outbox.waitFor((m) => m.messageId === out?.email_message_id, 10_000);
    const replyTo = sent.email.replyTo!.address;
    t.match(replyTo, /\+t_[a-z2-9]{16}@inbound\.localhost$/, "the reply goes out with the ticket's own address");

    const byHeaders = eml({
      to: ws.inbound_address,
      from: 'Ada Lovelace <ada.lovelace@example.com>',
      subject: 'Re: The checkout button does nothing',
      headers: { 'In-Reply-To': sent.messageId, References: sent.messageId },
    });
    t.match(await deliverOne(app, byHeaders, ws.inbound_address), { status: 'processed', ticket_id: opened.ticket_id });
    let tk = await ticket(opened.ticket_id);
    t.equal(tk.message_count, 3);
    t.equal(tk.state, 'triage', 'the answer puts the ticket back to triage');

    const byAddress = eml({ to: replyTo, from: 'Ada Lovelace <ada.lovelace@example.com>', subject: 'Firefox 121' });
    t.match(await deliverOne(app, byAddress, replyTo), { status: 'processed', ticket_id: opened.ticket_id });
    tk = await ticket(opened.ticket_id);
    t.equal(tk.message_count, 4, 'the reply address alone is enough');

    const other = await fresh();
    const foreign = `${other.inbound_address.split('@')[0]}+t_${replyTo.split('+t_')[1].split('@')[0]}@inbound.localhost`;
    const stray = await deliverOne(app, eml({ to: foreign, subject: 'Hello' }), foreign);
    t.not(stray.ticket_id, opened.ticket_id, "a token under another workspace's address does not reach this ticket");
  },
);

t.test('archive stops receiving', async (t) => {
  const ws = await fresh();
  t.equal((await call(app, owner, 'POST', `/v1/workspaces/${ws.id}/archive`)).status, 200);
  t.match(await deliverOne(app, fixture('customer-question', { to: ws.inbound_address }), ws.inbound_address), {
    status: 'ignored',
    reason: 'channel_disabled',
    ticket_id: null,
  });
  t.match((await inboundLog(app, owner, ws.id))[0], { signals: ['workspace_archived'] });
  t.equal((await call(app, owner, 'GET', `/v1/channels/${ws.id}`)).body.enabled, false);
  t.equal(
    (await call(app, owner, 'PATCH', `/v1/channels/${ws.id}`, { enabled: true })).body.code,
    'workspace_archived',
  );
  t.equal(await countRows(app, 'tickets', { workspace_id: ws.id }), 0);
});

t.test("another organization's workspace answers 404", async (t) => {
  const stranger = await signUp(app, { orgName: 'Other' });
  const [entry] = await inboundLog(app, owner, workspace.id);
  for (const [method, url, payload] of [
    ['GET', `/v1/channels/${workspace.id}`],
    ['PATCH', `/v1/channels/${workspace.id}`, { enabled: false }],
    ['PUT', `/v1/channels/${workspace.id}/forwarding`, { address: 'x@acme.test', provider: 'other' }],
    ['DELETE', `/v1/channels/${workspace.id}/forwarding`],
    ['POST', `/v1/channels/${workspace.id}/forwarding/test`],
    ['GET', `/v1/channels/${workspace.id}/inbound`],
    ['POST', `/v1/channels/${workspace.id}/inbound/mime/${entry?.email_id ?? 'ie_x'}/release`],
  ] as const) {
    const res = await call(app, stranger, method, url, payload);
    t.equal(res.status, 404, `${method} ${url}`);
    t.equal(res.body.code, 'not_found');
  }
});

t.test('roles: owners and admins manage; reviewers and client viewers read their workspaces', async (t) => {
  const admin = await addMember(app, owner, { role: 'admin' });
  const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [workspace.id] });
  const viewer = await addMember(app, owner, { role: 'client_viewer', workspaceIds: [workspace.id] });
  const outsider = await addMember(app, owner, { role: 'reviewer', workspaceIds: [] });
  t.equal(
    (await call(app, admin, 'PATCH', `/v1/channels/${workspace.id}`, { accept_list_mail: false })).status,
    200,
    'admin',
  );
  for (const who of [reviewer, viewer]) {
    t.equal(
      (await call(app, who, 'GET', `/v1/channels/${workspace.id}`)).status,
      200,
      `${who.user.role} reads the channel`,
    );
    t.equal(
      (await call(app, who, 'GET', `/v1/channels/${workspace.id}/inbound`)).status,
      200,
      `${who.user.role} reads the log`,
    );
    for (const [method, url, payload] of [
      ['PATCH', `/v1/channels/${workspace.id}`, { enabled: false }],
      ['PUT', `/v1/channels/${workspace.id}/forwarding`, { address: 'x@acme.test', provider: 'other' }],
      ['DELETE', `/v1/channels/${workspace.id}/forwarding`],
      ['POST', `/v1/channels/${workspace.id}/forwarding/test`],
      ['POST', `/v1/channels/${workspace.id}/inbound/mime/ie_x/release`],
    ] as const) {
      t.equal((await call(app, who, method, url, payload)).status, 403, `${who.user.role}: ${method} ${url}`);
    }
  }
  t.equal(
    (await call(app, outsider, 'GET', `/v1/channels/${workspace.id}`)).status,
    403,
    'a reviewer without the workspace',
  );
});
