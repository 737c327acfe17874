// POST /v1/webhooks/email/ses through the real mail-ses adapter: SNS signatures (a certificate
// made by openssl), receipt notifications with SES verdicts, and delivery events that update the
// delivery status of the service's replies. Outgoing mail still goes through the outbox adapter.
import { asValue } from 'awilix';
import t from 'tap';
import type { OutboxChannelAdapter } from '../../../adapters/mail-outbox/index.js';
import { SesChannelAdapter } from '../../../adapters/mail-ses/index.js';
import { TOPIC, inboundRaw, receivedNotification, snsSigner } from '../../../adapters/mail-ses/test/helpers.js';
import type { ChannelAdapter, InboundDelivery } from '../../../core/contracts/index.js';
import { call, countRows, inboundLog, world, type Answer } from './helpers.js';

const sns = snsSigner();
const { app, owner, workspace } = await world(t);
const outbox = app.container.resolve<OutboxChannelAdapter>('channelAdapter');
const ses = new SesChannelAdapter(
  SesChannelAdapter.validateOptions({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    topicArns: [TOPIC],
  }),
  { config: {}, log: undefined },
  { fetchCertificate: (url) => sns.fetchCertificate(url), confirmSubscription: async () => {} },
);
// SES reads the webhook; the outbox keeps sending (no SES peer needed for replies).
const both: ChannelAdapter = {
  identifier: 'mail-ses',
  inboundProviders: ['ses', 'mime'],
  send: (m) => outbox.send(m),
  parseInbound: (d) => (d.provider === 'ses' ? ses.parseInbound(d) : outbox.parseInbound(d)),
  registerDomain: (d, p) => outbox.registerDomain(d, p),
  checkDomain: (d, p) => outbox.checkDomain(d, p),
  deleteDomain: () => outbox.deleteDomain(),
};
app.container.register('channelAdapter', asValue(both));

const post = async (d: InboundDelivery) => {
  const res = await app.server.inject({
    method: 'POST',
    url: '/v1/webhooks/email/ses',
    headers: d.headers,
    payload: d.rawBody,
  });
  return { status: res.statusCode, body: JSON.parse(res.payload) as Answer<'POST', '/v1/webhooks/email/ses'> };
};
const notify = (message: string, opts: { otherKey?: boolean } = {}) =>
  sns.delivery(sns.envelope({ Type: 'Notification', Message: message }, opts));
const to = workspace.inbound_address;

t.test('a receipt notification opens a ticket; the provider id and verdicts are kept', async (t) => {
  const res = await post(notify(receivedNotification([to], inboundRaw(to))));
  t.equal(res.status, 200);
  t.match(res.body.results, [{ recipient: to, status: 'processed', reason: null, ticket_id: /^tkt_/ }]);
  t.match((await inboundLog(app, owner, workspace.id))[0], {
    provider: 'ses',
    subject: 'Export button broken',
    spam_score: 0,
  });
});

t.test('SES spam and virus verdicts quarantine; the release path names the provider', async (t) => {
  const spam = await post(notify(receivedNotification([to], inboundRaw(to), { spam: 'FAIL' })));
  t.match(spam.body.results[0], { status: 'quarantined', reason: 'spam' });
  const virus = await post(notify(receivedNotification([to], inboundRaw(to), { virus: 'FAIL' })));
  t.match(virus.body.results[0], { status: 'quarantined', reason: 'spam' });
  const [v, s] = await inboundLog(app, owner, workspace.id, '?status=quarantined');
  t.ok(v.signals.includes('virus') && v.spam_score >= 100);
  t.ok(s.signals.includes('provider_spam'));
  const rel = await call(app, owner, 'POST', `/v1/channels/${workspace.id}/inbound/ses/${s.email_id}/release`);
  t.match(rel.body, { ticket_id: /^tkt_/, created: true });
});

t.test('a Bounce notification marks the reply it names bounced', async (t) => {
  const opened = (await post(notify(receivedNotification([to], inboundRaw(to))))).body.results[0];
  const draft = await call(app, owner, 'POST', `/v1/tickets/${opened.ticket_id}/drafts`, {
    kind: 'reply',
    body_md: 'Fixed, please try again.',
  });
  await call(app, owner, 'POST', `/v1/tickets/${opened.ticket_id}/drafts/${draft.body.id}/send`, {});
  const out = (await call(app, owner, 'GET', `/v1/tickets/${opened.ticket_id}`)).body.messages.find(
    (m) => m.direction === 'out',
  );
  const sent = await outbox.waitFor((m) => m.messageId === out?.email_message_id, 10_000);
  let providerId: string | null = null;
  for (let i = 0; i < 50 && !providerId; i++) {
    providerId = (
      (await app.db('mail_messages').where({ message_id: out?.email_message_id }).first()) as {
        provider_message_id: string | null;
      }
    ).provider_message_id;
    if (!providerId) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(providerId, sent.providerMessageId);
  const bounce = JSON.stringify({
    notificationType: 'Bounce',
    mail: { messageId: providerId, timestamp: new Date().toISOString(), destination: ['ada@example.test'] },
    bounce: {
      bounceType: 'Permanent',
      bounceSubType: 'General',
      timestamp: new Date().toISOString(),
      bouncedRecipients: [{ emailAddress: 'ada@example.test', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
    },
  });
  const res = await post(notify(bounce));
  t.same(res.body, {
    results: [],
    events: [{ type: 'bounced', provider_message_id: providerId, recipient: 'ada@example.test', messages_updated: 1 }],
  });
  const after = (await call(app, owner, 'GET', `/v1/tickets/${opened.ticket_id}`)).body.messages.find(
    (m) => m.direction === 'out',
  );
  t.equal(after?.delivery_status, 'bounced');
});

t.test('a notification signed with another key is refused and stores nothing', async (t) => {
  const before = await countRows(app, 'inbox_emails');
  const res = await post(notify(receivedNotification([to], inboundRaw(to)), { otherKey: true }));
  t.equal(res.status, 401);
  t.equal(res.body.code, 'invalid_signature');
  t.equal(await countRows(app, 'inbox_emails'), before);
});
