import t from 'tap';
import { isAdapterError } from '../../../core/contracts/index.js';
import { SesChannelAdapter, type SesHooks, type SesOptions } from '../index.js';
import { SnsVerifier, isSnsUrl } from '../sns.js';
import { CERT_URL, TOPIC, inboundRaw, receivedNotification, snsSigner } from './helpers.js';

const sns = snsSigner();
const confirmed: string[] = [];

function make(over: Partial<SesOptions> = {}, hooks: SesHooks = {}): SesChannelAdapter {
  return new SesChannelAdapter(
    SesChannelAdapter.validateOptions({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      topicArns: [TOPIC],
      ...over,
    }),
    { config: {}, log: undefined },
    {
      fetchCertificate: (url) => sns.fetchCertificate(url),
      confirmSubscription: (url) => {
        confirmed.push(url);
        return Promise.resolve();
      },
      ...hooks,
    },
  );
}

const notify = (message: unknown, version: '1' | '2' = '2') =>
  sns.delivery(
    sns.envelope(
      { Type: 'Notification', Message: typeof message === 'string' ? message : JSON.stringify(message) },
      { version },
    ),
  );

const mail = {
  messageId: '0102018c-sent-by-ses-000000',
  timestamp: '2024-01-02T10:00:00.000Z',
  destination: ['ada@example.test', 'bob@example.test'],
};

t.test('a received message becomes one email per recipient with the provider verdicts', async (t) => {
  const raw = inboundRaw('acme@in.patchwell.test');
  const result = await make().parseInbound(
    notify(
      receivedNotification(['Acme@in.patchwell.test', 'beta@in.patchwell.test'], raw, {
        spam: 'PASS',
        virus: 'PASS',
        spf: 'GRAY',
        dkim: 'FAIL',
        dmarc: 'PROCESSING_FAILED',
      }),
    ),
  );
  t.equal(result.events.length, 0);
  t.same(
    result.emails.map((e) => e.recipient),
    ['acme@in.patchwell.test', 'beta@in.patchwell.test'],
    'recipients, lower case',
  );
  t.ok(result.emails[0].raw.equals(raw), 'the raw message, decoded from base64');
  t.same(result.emails[0].providerVerdicts, {
    spam: 'pass',
    virus: 'pass',
    spf: 'gray',
    dkim: 'fail',
    dmarc: 'error',
  });
  t.equal(result.emails[0].providerMessageId, 'o3vrnil0e2ic28trm7dfhrc2v0clambfcd7i0ig01');

  const utf8 = await make().parseInbound(notify(receivedNotification(['acme@in.patchwell.test'], raw, {}, 'UTF8')));
  t.ok(utf8.emails[0].raw.equals(raw), 'UTF8 encoding');

  const withoutContent = JSON.parse(receivedNotification(['acme@in.patchwell.test'], raw)) as Record<string, unknown>;
  delete withoutContent.content;
  const err = await make()
    .parseInbound(notify(withoutContent))
    .catch((e: unknown) => e);
  t.ok(isAdapterError(err, 'invalid_payload'), 'an S3 action (no content) is a PayloadError');
  t.match((err as Error).message, /SNS receipt action/);
});

t.test(
  'bounces, complaints and deliveries become DeliveryEvents (notifications and event publishing alike)',
  async (t) => {
    const adapter = make();
    const hard = await adapter.parseInbound(
      notify({
        notificationType: 'Bounce',
        mail,
        bounce: {
          bounceType: 'Permanent',
          bounceSubType: 'General',
          timestamp: '2024-01-02T10:00:05.000Z',
          bouncedRecipients: [
            {
              emailAddress: 'ada@example.test',
              action: 'failed',
              status: '5.1.1',
              diagnosticCode: 'smtp; 550 5.1.1 user unknown',
            },
          ],
        },
      }),
    );
    t.same(hard, {
      emails: [],
      events: [
        {
          type: 'bounced',
          providerMessageId: mail.messageId,
          recipient: 'ada@example.test',
          detail: 'smtp; 550 5.1.1 user unknown',
          permanent: true,
          occurredAt: new Date('2024-01-02T10:00:05.000Z'),
        },
      ],
    });

    const soft = await adapter.parseInbound(
      notify({
        eventType: 'Bounce',
        mail,
        bounce: {
          bounceType: 'Transient',
          bounceSubType: 'MailboxFull',
          timestamp: '2024-01-02T10:00:06.000Z',
          bouncedRecipients: [{ emailAddress: 'Bob <bob@example.test>' }],
        },
      }),
    );
    t.match(
      soft.events[0],
      { type: 'bounced', recipient: 'bob@example.test', permanent: false, detail: 'Transient bounce (MailboxFull)' },
      'event publishing (eventType) and a soft bounce',
    );

    const complaint = await adapter.parseInbound(
      notify({
        notificationType: 'Complaint',
        mail,
        complaint: {
          complainedRecipients: [{ emailAddress: 'ada@example.test' }],
          timestamp: '2024-01-03T08:00:00.000Z',
          complaintFeedbackType: 'abuse',
        },
      }),
    );
    t.match(complaint.events, [
      {
        type: 'complained',
        recipient: 'ada@example.test',
        detail: 'abuse',
        occurredAt: new Date('2024-01-03T08:00:00.000Z'),
      },
    ]);

    const delivered = await adapter.parseInbound(
      notify({
        notificationType: 'Delivery',
        mail,
        delivery: {
          timestamp: '2024-01-02T10:00:02.000Z',
          recipients: ['ada@example.test', 'bob@example.test'],
          smtpResponse: '250 2.6.0 Message received',
        },
      }),
    );
    t.same(
      delivered.events.map((e) => [e.type, e.recipient, e.detail]),
      [
        ['delivered', 'ada@example.test', '250 2.6.0 Message received'],
        ['delivered', 'bob@example.test', '250 2.6.0 Message received'],
      ],
    );

    const rejected = await adapter.parseInbound(
      notify({ eventType: 'Reject', mail, reject: { reason: 'Bad content' } }),
    );
    t.same(
      rejected.events.map((e) => [e.type, e.recipient, e.detail]),
      [
        ['failed', 'ada@example.test', 'Bad content'],
        ['failed', 'bob@example.test', 'Bad content'],
      ],
    );

    for (const quiet of [
      { eventType: 'Open', mail },
      { eventType: 'DeliveryDelay', mail },
      { notificationType: 'AmazonSnsSubscriptionSucceeded', message: 'ok' },
    ]) {
      t.same(
        await adapter.parseInbound(notify(quiet)),
        { emails: [], events: [] },
        `${JSON.stringify(quiet).slice(0, 40)}… says nothing about delivery`,
      );
    }
    const junk = await adapter.parseInbound(notify('not json at all')).catch((e: unknown) => e);
    t.ok(isAdapterError(junk, 'invalid_payload'), 'a signed Message that is not an SES notification is a PayloadError');
  },
);

t.test('SignatureVersion 1 (SHA1) and 2 (SHA256) both verify; the certificate is fetched once', async (t) => {
  const fetches: string[] = [];
  const adapter = make(
    {},
    {
      fetchCertificate: (url) => {
        fetches.push(url);
        return Promise.resolve(sns.certPem);
      },
    },
  );
  const v1 = await adapter.parseInbound(
    notify({ notificationType: 'Delivery', mail, delivery: { recipients: ['ada@example.test'] } }, '1'),
  );
  const v2 = await adapter.parseInbound(
    notify({ notificationType: 'Delivery', mail, delivery: { recipients: ['ada@example.test'] } }, '2'),
  );
  t.equal(v1.events.length, 1);
  t.equal(v2.events.length, 1);
  t.same(fetches, [CERT_URL], 'cached after the first fetch');
});

t.test('a subscription is confirmed only when signed, for an allowed topic and an SNS URL', async (t) => {
  const subscribe = 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=x&Token=abc';
  const confirmation = (over: Record<string, string> = {}) =>
    sns.delivery(
      sns.envelope({
        Type: 'SubscriptionConfirmation',
        Message: 'You have chosen to subscribe…',
        SubscribeURL: subscribe,
        Token: 'abc',
        ...over,
      }),
    );
  confirmed.length = 0;
  t.same(await make().parseInbound(confirmation()), { emails: [], events: [] });
  t.same(confirmed, [subscribe], 'SubscribeURL visited');

  const elsewhere = await make()
    .parseInbound(confirmation({ SubscribeURL: 'https://evil.example.com/confirm' }))
    .catch((e: unknown) => e);
  t.ok(isAdapterError(elsewhere, 'invalid_signature'), 'a SubscribeURL off SNS is refused');
  t.same(confirmed, [subscribe], 'and not visited');

  await make({ confirmSubscriptions: false }).parseInbound(confirmation());
  t.same(confirmed, [subscribe], 'confirmSubscriptions false: not visited');

  const failing = make(
    {},
    {
      confirmSubscription: () => Promise.reject(new Error('connection reset')),
    },
  );
  const err = await failing.parseInbound(confirmation()).catch((e: unknown) => e);
  t.ok(
    isAdapterError(err, 'subscription_unconfirmed') && (err as { retryable: boolean }).retryable,
    'a failed confirmation is retryable (SNS sends it again)',
  );

  t.same(
    await make().parseInbound(
      sns.delivery(
        sns.envelope({ Type: 'UnsubscribeConfirmation', Message: 'bye', SubscribeURL: subscribe, Token: 't' }),
      ),
    ),
    { emails: [], events: [] },
  );
});

t.test('without allowed topics nothing from SNS is read', async (t) => {
  const err = await make({ topicArns: [] })
    .parseInbound(notify({ notificationType: 'Delivery', mail }))
    .catch((e: unknown) => e);
  t.ok(isAdapterError(err, 'invalid_signature'));
  t.match((err as Error).message, /topicArns/);
});

t.test('certificate checks', async (t) => {
  t.ok(isSnsUrl('https://sns.us-east-1.amazonaws.com/SimpleNotificationService-x.pem', /\.pem$/));
  t.ok(isSnsUrl('https://sns.cn-north-1.amazonaws.com.cn/x.pem', /\.pem$/), 'China partition');
  for (const bad of [
    'http://sns.us-east-1.amazonaws.com/x.pem',
    'https://sns.us-east-1.amazonaws.com.evil.test/x.pem',
    'https://sns.us-east-1.amazonaws.com:8443/x.pem',
    'https://user@sns.us-east-1.amazonaws.com/x.pem',
    'https://evilsns.us-east-1.amazonaws.com/x.pem',
    'https://sns.us-east-1.amazonaws.com/x.txt',
  ]) {
    t.notOk(isSnsUrl(bad, /\.pem$/), bad);
  }

  const m = sns.envelope({ Type: 'Notification', Message: '{}' });
  const verifier = new SnsVerifier(() => Promise.resolve(sns.certPem));
  await verifier.verify(m);
  const future = await verifier.verify(m, new Date(Date.now() + 30 * 24 * 3600 * 1000)).catch((e: unknown) => e);
  t.ok(isAdapterError(future, 'invalid_signature'), 'an expired certificate is refused');

  const unreachable = new SnsVerifier(() => Promise.reject(new Error('ENOTFOUND')));
  const down = await unreachable.verify(m).catch((e: unknown) => e);
  t.ok(
    isAdapterError(down, 'certificate_unavailable') && (down as { retryable: boolean }).retryable,
    'an unreachable certificate is retryable',
  );

  const garbage = await new SnsVerifier(() => Promise.resolve('not a certificate')).verify(m).catch((e: unknown) => e);
  t.ok(isAdapterError(garbage, 'invalid_signature'), 'something that is not a certificate is refused');
});
