// POST /v1/webhooks/email/mime: one scenario per InboundEmail reason, each with a real MIME
// message (the Sisimai corpus for bounces and auto-replies, our own RFC 5322 fixtures otherwise).
import { asValue } from 'awilix';
import t from 'tap';
import { signMimeDelivery } from '../../../core/contracts/index.js';
import {
  SECRET,
  call,
  countRows,
  deliver,
  deliverOne,
  eml,
  fixture,
  inboundLog,
  newWorkspace,
  sisimai,
  uid,
  world,
  type DeliveryResult,
} from './helpers.js';

const w = await world(t, { loop: { max: 3, windowMinutes: 10 }, senderRateLimit: { max: 4, windowMinutes: 60 } });
const { app, owner } = w;
await app.db('organizations').where({ id: owner.organization.id }).update({ plan: 'growth' });

/** The ticket an email opened or joined (none: the test fails here). */
const ticket = async (id: string | null) => {
  if (!id) throw new Error('the email opened or joined no ticket');
  return (await call(app, owner, 'GET', `/v1/tickets/${id}`)).body;
};
const fresh = () => newWorkspace(app, owner, `Inbox ${uid()}`);

t.test('a customer question opens a ticket with its message; the log says processed', async (t) => {
  const ws = await fresh();
  const r = await deliverOne(app, fixture('customer-question', { to: ws.inbound_address }), ws.inbound_address);
  t.match(r, { recipient: ws.inbound_address, status: 'processed', reason: null, ticket_id: /^tkt_/ });
  const tk = await ticket(r.ticket_id);
  t.match(tk, {
    origin: 'email',
    subject: 'The checkout button does nothing',
    customer_email: 'ada.lovelace@example.com',
    customer_name: 'Ada Lovelace',
    state: 'received',
    channel_id: /^ch_/,
  });
  t.match(tk.messages[0], {
    direction: 'in',
    from: 'ada.lovelace@example.com',
    email_message_id: /^<fx-.+@mail\.example\.com>$/,
  });
  t.match(tk.messages[0].body_text, /nothing happens\. I tried Firefox and Chrome/, 'quoted-printable decoded');
  const [entry] = await inboundLog(app, owner, ws.id);
  t.match(entry, {
    provider: 'mime',
    email_id: /^ie_/,
    from: 'ada.lovelace@example.com',
    from_name: 'Ada Lovelace',
    subject: 'The checkout button does nothing',
    recipient: ws.inbound_address,
    status: 'processed',
    reason: null,
    ticket_id: r.ticket_id,
    spam_score: 0,
    signals: [],
    releasable: false,
  });
});

t.test("attachments become the ticket's files; encoded words are decoded", async (t) => {
  const ws = await fresh();
  const r = await deliverOne(app, fixture('customer-attachment-it', { to: ws.inbound_address }), ws.inbound_address);
  const tk = await ticket(r.ticket_id);
  t.equal(tk.subject, 'Errore nel pagamento – schermata allegata');
  t.equal(tk.customer_name, 'Giulia Rosì');
  t.same(tk.messages[0].attachments.map((a) => [a.filename, a.content_type]).sort(), [
    ['console.log', 'text/plain'],
    ['schermata.png', 'image/png'],
  ]);
  t.equal(await countRows(app, 'ticket_files', { ticket_id: r.ticket_id }), 2, 'stored by the tickets plugin');
});

t.test(
  'duplicate: the same Message-ID again (redelivered or sent to two of our addresses) opens nothing',
  async (t) => {
    const ws = await fresh();
    const raw = fixture('customer-question', { to: ws.inbound_address });
    const first = await deliverOne(app, raw, ws.inbound_address);
    const again = await deliverOne(app, raw, ws.inbound_address);
    t.match(again, { status: 'ignored', reason: 'duplicate', ticket_id: null });
    const two = await deliver(app, raw, [ws.inbound_address, ws.inbound_address.replace('@', '+t_aaaaaaaaaaaaaaaa@')]);
    t.same(
      two.body.results.map((x) => x.reason),
      ['duplicate', 'duplicate'],
    );
    t.equal(await countRows(app, 'tickets', { workspace_id: ws.id }), 1, 'one ticket');
    t.same(
      (await inboundLog(app, owner, ws.id)).map((e) => e.reason),
      ['duplicate', 'duplicate', 'duplicate', null],
      'every arrival is in the log, newest first',
    );
    t.ok(first.ticket_id);
    const other = await fresh();
    const elsewhere = await deliver(app, raw, [ws.inbound_address, other.inbound_address]);
    t.same(
      elsewhere.body.results.map((x) => x.status),
      ['ignored', 'processed'],
      'another workspace gets its own ticket',
    );
  },
);

t.test('auto_reply: RFC 3834 (real), a vendor header, an Italian Outlook reply', async (t) => {
  const ws = await fresh();
  for (const [what, raw] of [
    ['rfc3834-01 (Auto-Submitted)', sisimai('rfc3834-01.eml')],
    ['rfc3834-03 (subject only)', sisimai('rfc3834-03.eml')],
    ['X-Autoreply', fixture('auto-reply-vendor-header', { to: ws.inbound_address })],
    ['Risposta automatica', fixture('auto-reply-outlook-it', { to: ws.inbound_address })],
  ] as const) {
    t.match(
      await deliverOne(app, raw, ws.inbound_address),
      { status: 'ignored', reason: 'auto_reply', ticket_id: null },
      what,
    );
  }
  t.equal(await countRows(app, 'tickets', { workspace_id: ws.id }), 0);
});

t.test('bounce: real DSNs, MTA bounces and a feedback report open nothing', async (t) => {
  const ws = await fresh();
  for (const file of [
    'lhost-postfix-03.eml',
    'lhost-exim-01.eml',
    'lhost-office365-01.eml',
    'lhost-qmail-01.eml',
    'lhost-gmail-01.eml',
    'arf-01.eml',
    'rfc3464-01.eml',
  ]) {
    t.match(
      await deliverOne(app, sisimai(file), ws.inbound_address),
      { status: 'ignored', reason: 'bounce', ticket_id: null },
      file,
    );
  }
  const log = await inboundLog(app, owner, ws.id);
  t.ok(
    log.some((e) => e.signals.includes('dsn')) && log.some((e) => e.signals.includes('feedback_report')),
    'signals say why',
  );
  t.equal(await countRows(app, 'tickets', { workspace_id: ws.id }), 0);
});

t.test('no_reply: a notification from a no-reply address; a contact form with a Reply-To passes', async (t) => {
  const ws = await fresh();
  t.match(await deliverOne(app, fixture('no-reply-sender', { to: ws.inbound_address }), ws.inbound_address), {
    status: 'ignored',
    reason: 'no_reply',
  });
  const form = await deliverOne(app, fixture('contact-form-reply-to', { to: ws.inbound_address }), ws.inbound_address);
  t.equal(form.status, 'processed');
  t.match(
    await ticket(form.ticket_id),
    { customer_email: 'lin.chen@example.org', customer_name: 'Lin Chen' },
    'the customer is the Reply-To',
  );
});

t.test('loop: our own mail coming back, and the same exchange repeated', async (t) => {
  const ws = await fresh();
  t.match(await deliverOne(app, fixture('loop-own-reply', { to: ws.inbound_address }), ws.inbound_address), {
    status: 'ignored',
    reason: 'loop',
  });
  const from = `robot-${uid()}@example.net`;
  const outs: DeliveryResult[] = [];
  for (let i = 0; i < 3; i++)
    outs.push(
      await deliverOne(
        app,
        eml({ from, to: ws.inbound_address, subject: i ? 'Re: Your ticket' : 'Your ticket' }),
        ws.inbound_address,
      ),
    );
  t.same(
    outs.map((o) => o.reason),
    [null, null, 'loop'],
    'the third of the same subject and text within the window is a loop',
  );
  t.ok((await inboundLog(app, owner, ws.id))[0].signals.includes('repeated_exchange'));
  const person = `person-${uid()}@example.net`;
  const words = ['It still fails.', 'Now on Chrome too.', 'Any news?'];
  const human: DeliveryResult[] = [];
  for (const body of words)
    human.push(
      await deliverOne(
        app,
        eml({ from: person, to: ws.inbound_address, subject: 'Re: Checkout', body }),
        ws.inbound_address,
      ),
    );
  t.same(
    human.map((o) => o.reason),
    [null, null, null],
    'a person writing again with new words is no loop',
  );
});

t.test('mailing_list: refused unless accept_list_mail', async (t) => {
  const ws = await fresh();
  t.match(await deliverOne(app, fixture('mailing-list', { to: ws.inbound_address }), ws.inbound_address), {
    status: 'ignored',
    reason: 'mailing_list',
  });
  t.equal((await call(app, owner, 'PATCH', `/v1/channels/${ws.id}`, { accept_list_mail: true })).status, 200);
  t.match(await deliverOne(app, fixture('mailing-list', { to: ws.inbound_address }), ws.inbound_address), {
    status: 'processed',
    reason: null,
  });
});

t.test("forwarding_confirmation: Gmail's request is captured, code and link", async (t) => {
  const ws = await fresh();
  t.equal(
    (
      await call(app, owner, 'PUT', `/v1/channels/${ws.id}/forwarding`, {
        address: 'support.acme@gmail.com',
        provider: 'mail_a',
      })
    ).status,
    200,
  );
  t.match(
    await deliverOne(app, fixture('gmail-forwarding-confirmation', { to: ws.inbound_address }), ws.inbound_address),
    { status: 'processed', reason: 'forwarding_confirmation', ticket_id: null },
  );
  const ch = (await call(app, owner, 'GET', `/v1/channels/${ws.id}`)).body;
  const expected = {
    code: '914326578',
    url: /^https:\/\/mail-settings\.google\.com\/mail\/vf-/,
    requested_by: 'support.acme@gmail.com',
    received_at: /Z$/,
    verified: false,
  };
  t.match(ch.pending_gmail_confirmation, expected);
  t.match(ch.forwarding?.gmail_confirmation, expected, 'it is the confirmation of the recorded forwarding');
  t.equal(await countRows(app, 'tickets', { workspace_id: ws.id }), 0);
});

t.test('channel_disabled: a switched-off inbox receives nothing', async (t) => {
  const ws = await fresh();
  t.equal((await call(app, owner, 'PATCH', `/v1/channels/${ws.id}`, { enabled: false })).body.enabled, false);
  t.match(await deliverOne(app, fixture('customer-question', { to: ws.inbound_address }), ws.inbound_address), {
    status: 'ignored',
    reason: 'channel_disabled',
  });
  t.equal(await countRows(app, 'tickets', { workspace_id: ws.id }), 0);
});

t.test("not_in_plan: a plan without the inbox, and a month's tickets used up, quarantine the mail", async (t) => {
  const ws = await fresh();
  const catalog = app.container.resolve('planCatalog') as { hasFeature(p: string, f: string): boolean };
  app.container.register(
    'planCatalog',
    asValue({ ...catalog, hasFeature: (p: string, f: string) => f !== 'email_channel' && catalog.hasFeature(p, f) }),
  );
  try {
    t.match(await deliverOne(app, fixture('customer-question', { to: ws.inbound_address }), ws.inbound_address), {
      status: 'quarantined',
      reason: 'not_in_plan',
    });
    t.equal((await call(app, owner, 'GET', `/v1/channels/${ws.id}`)).body.inbox_in_plan, false);
  } finally {
    app.container.register('planCatalog', asValue(catalog));
  }
  const limits = app.container.resolve('planLimits');
  app.container.register('planLimits', asValue({ check: () => Promise.resolve({ ok: false }) }));
  try {
    const r = await deliverOne(app, eml({ to: ws.inbound_address }), ws.inbound_address);
    t.match(r, { status: 'quarantined', reason: 'not_in_plan' });
    t.match((await inboundLog(app, owner, ws.id))[0], { signals: ['tickets_per_month'], releasable: true });
  } finally {
    app.container.register('planLimits', asValue(limits));
  }
  t.equal(await countRows(app, 'tickets', { workspace_id: ws.id }), 0);
});

t.test('spam: header verdicts and content score it, it is quarantined and releasable', async (t) => {
  const ws = await fresh();
  t.match(await deliverOne(app, fixture('spam-lottery', { to: ws.inbound_address }), ws.inbound_address), {
    status: 'quarantined',
    reason: 'spam',
    ticket_id: null,
  });
  const [entry] = await inboundLog(app, owner, ws.id, '?status=quarantined');
  t.ok(entry.spam_score >= 6, `score ${entry.spam_score}`);
  t.ok(entry.signals.includes('x_spam_flag') && entry.signals.includes('spam_phrases'));
  t.equal(entry.releasable, true);
});

t.test('rate_limited: a sender beyond its hourly share is quarantined', async (t) => {
  const ws = await fresh();
  const from = `flood-${uid()}@example.org`;
  const reasons: (string | null)[] = [];
  for (let i = 0; i < 5; i++)
    reasons.push(
      (await deliverOne(app, eml({ from, to: ws.inbound_address, subject: `Problem number ${i}` }), ws.inbound_address))
        .reason,
    );
  t.same(reasons, [null, null, null, null, 'rate_limited']);
  t.match((await inboundLog(app, owner, ws.id))[0], {
    status: 'quarantined',
    reason: 'rate_limited',
    releasable: true,
  });
});

t.test('an address no workspace owns is answered and not stored', async (t) => {
  const before = await countRows(app, 'inbox_emails');
  const res = await deliver(app, eml({ to: 'nobody@inbound.localhost' }), 'nobody@inbound.localhost');
  t.equal(res.status, 200);
  t.same(res.body.results, [
    { recipient: 'nobody@inbound.localhost', status: 'ignored', reason: 'unknown_recipient', ticket_id: null },
  ]);
  t.equal(await countRows(app, 'inbox_emails'), before);
});

t.test('a bad signature is refused with 401 and nothing is stored', async (t) => {
  const ws = await fresh();
  const raw = fixture('customer-question', { to: ws.inbound_address });
  for (const [what, secret] of [
    ['wrong secret', 'another-secret-0123456789abcdef'],
    ['no signature', null],
  ] as const) {
    const res = await deliver(app, raw, ws.inbound_address, { secret });
    t.equal(res.status, 401, what);
    t.equal(res.body.code, 'invalid_signature', what);
  }
  const tampered = await app.server.inject({
    method: 'POST',
    url: '/v1/webhooks/email/mime',
    payload: Buffer.concat([raw, Buffer.from('P.S. changed\r\n')]),
    headers: {
      'content-type': 'message/rfc822',
      'x-envelope-to': ws.inbound_address,
      'x-webhook-signature': signMimeDelivery(raw, SECRET),
    },
  });
  t.equal(tampered.statusCode, 401, 'body changed after signing');
  t.equal(await countRows(app, 'inbox_emails', { workspace_id: ws.id }), 0);
  t.equal(await countRows(app, 'tickets', { workspace_id: ws.id }), 0);
  t.equal(
    (
      await app.server.inject({
        method: 'POST',
        url: '/v1/webhooks/email/carrier-pigeon',
        headers: { 'content-type': 'message/rfc822' },
        payload: raw,
      })
    ).statusCode,
    404,
    'unknown provider',
  );
});

t.test('a DSN about one of our replies marks that message bounced', async (t) => {
  const ws = await fresh();
  const r = await deliverOne(app, fixture('customer-question', { to: ws.inbound_address }), ws.inbound_address);
  const draft = await call(app, owner, 'POST', `/v1/tickets/${r.ticket_id}/drafts`, {
    kind: 'reply',
    body_md: 'Fixed in 1.4.2, please retry.',
  });
  t.equal((await call(app, owner, 'POST', `/v1/tickets/${r.ticket_id}/drafts/${draft.body.id}/send`, {})).status, 200);
  const out = (await ticket(r.ticket_id)).messages.find((m) => m.direction === 'out');
  if (!out?.email_message_id) throw new Error('no reply with a Message-ID on the ticket');
  const dsn = Buffer.from(
    sisimai('lhost-postfix-03.eml')
      .toString('latin1')
      .replaceAll('<20140701000000.000000000000@e1.example.ne.jp>', out.email_message_id),
    'latin1',
  );
  t.match(await deliverOne(app, dsn, ws.inbound_address), { status: 'ignored', reason: 'bounce' });
  const after = (await ticket(r.ticket_id)).messages.find((m) => m.direction === 'out');
  t.equal(after?.delivery_status, 'bounced');
});

t.test('the OpenAPI document carries the 14 operations of the inbox and validates', async (t) => {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const doc = (await call(app, null, 'GET', '/v1/openapi.json')).body;
  t.equal((await new Validator().validate(doc)).valid, true, 'OpenAPI 3.1');
  const ops: string[] = [];
  // The document's own answer types its paths as unknown: read them with the fields the test uses.
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { tags?: string[] }>>)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags?.[0];
      if (tag && ['channels', 'domains', 'email-webhooks'].includes(tag))
        ops.push(`${tag} ${method.toUpperCase()} ${path}`);
    }
  }
  t.same(ops.sort(), [
    'channels DELETE /v1/channels/{workspaceId}/forwarding',
    'channels GET /v1/channels/{workspaceId}',
    'channels GET /v1/channels/{workspaceId}/inbound',
    'channels PATCH /v1/channels/{workspaceId}',
    'channels POST /v1/channels/{workspaceId}/forwarding/test',
    'channels POST /v1/channels/{workspaceId}/inbound/{provider}/{emailId}/release',
    'channels PUT /v1/channels/{workspaceId}/forwarding',
    'domains DELETE /v1/domains/{brandProfileId}/{purpose}',
    'domains GET /v1/domains',
    'domains GET /v1/domains/{brandProfileId}/{purpose}',
    'domains PATCH /v1/domains/{brandProfileId}/{purpose}/sender',
    'domains POST /v1/domains',
    'domains POST /v1/domains/{brandProfileId}/{purpose}/verify',
    'email-webhooks POST /v1/webhooks/email/{provider}',
  ]);
});
