import { simpleParser } from 'mailparser';
import t from 'tap';
import { isAdapterError, type OutgoingEmail } from '../../../core/contracts/index.js';
import { runChannelAdapterContract } from '../../../test/contracts/channel-adapter.js';
import sesModule, { SesChannelAdapter, type SesOptions } from '../index.js';
import { REGION, TOPIC, inboundRaw, receivedNotification, snsSigner, startSesPeer } from './helpers.js';

const SECRET = 'ses-webhook-secret-0123456789';
const credentials = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' };

const message = (over: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  from: { address: 'support@acme.test', name: 'Acme Support' },
  to: [{ address: 'ada@example.test' }],
  subject: 'Re: Export broken — sistemato',
  text: 'Fixed in 2.0.1.\n',
  html: '<p>Fixed in <b>2.0.1</b>.</p>',
  messageId: `<ses-${Date.now()}-${Math.random().toString(36).slice(2)}@acme.test>`,
  headers: {
    'In-Reply-To': '<c1@example.test>',
    References: '<c0@example.test> <c1@example.test>',
    'Auto-Submitted': 'auto-replied',
  },
  ...over,
});

t.test('mail-ses against aws-ses-v2-local (and a local fake of the identity operations)', async (t) => {
  const peer = await startSesPeer(t);
  const sns = snsSigner();
  const make = (over: Partial<SesOptions> = {}) =>
    new SesChannelAdapter(
      SesChannelAdapter.validateOptions({
        region: REGION,
        endpoint: peer.endpoint,
        credentials,
        webhookSecret: SECRET,
        topicArns: [TOPIC],
        ...over,
      }),
      { config: {}, log: undefined },
      { fetchCertificate: (url) => sns.fetchCertificate(url), confirmSubscription: async () => {} },
    );

  await t.test('contract kit', (t) =>
    runChannelAdapterContract(t, {
      name: 'mail-ses',
      create: () => make(),
      destroy: (a) => (a as SesChannelAdapter).close(),
      module: sesModule,
      validateOptions: (o: unknown) => SesChannelAdapter.validateOptions(o),
      options: {
        valid: { region: 'eu-west-1', topicArns: [TOPIC], webhookSecret: SECRET, configurationSetName: 'patchwell' },
        invalid: [
          { options: { topicArns: ['not-an-arn'] }, key: 'adapters.options.mail-ses.topicArns.0' },
          { options: { endpoint: 'ftp://x' }, key: 'endpoint' },
          { options: { credentials: { accessKeyId: 'x' } }, key: 'credentials.secretAccessKey' },
        ],
      },
      mimeSecret: SECRET,
      received: (m) => {
        const raw = peer.raws.find((r) => r.toString().includes(`Message-ID: ${m.messageId}`));
        if (!raw) return Promise.reject(new Error(`SES was not handed ${m.messageId}`));
        return Promise.resolve(raw);
      },
      inbound: {
        signed: () =>
          sns.delivery(
            sns.envelope({
              Type: 'Notification',
              Message: receivedNotification(
                ['acme@in.kit.example.test', 'beta@in.kit.example.test'],
                inboundRaw('acme@in.kit.example.test'),
              ),
            }),
          ),
        expect: { emails: 2, events: 0 },
        forged: [
          {
            name: 'signed with a key SNS never used',
            delivery: () => sns.delivery(sns.envelope({ Type: 'Notification', Message: '{}' }, { otherKey: true })),
          },
          {
            name: 'Message changed after signing',
            delivery: () =>
              sns.delivery({
                ...sns.envelope({ Type: 'Notification', Message: '{"notificationType":"Delivery"}' }),
                Message: '{"notificationType":"Bounce"}',
              }),
          },
          {
            name: 'certificate on another host',
            delivery: () =>
              sns.delivery(
                sns.envelope({
                  Type: 'Notification',
                  Message: '{}',
                  SigningCertURL: 'https://sns.evil.example.com/cert.pem',
                }),
              ),
          },
          {
            name: 'certificate over http',
            delivery: () =>
              sns.delivery(
                sns.envelope({
                  Type: 'Notification',
                  Message: '{}',
                  SigningCertURL: 'http://sns.eu-west-1.amazonaws.com/cert.pem',
                }),
              ),
          },
          {
            name: 'a topic that is not allowed',
            delivery: () =>
              sns.delivery(
                sns.envelope({
                  Type: 'Notification',
                  Message: '{}',
                  TopicArn: 'arn:aws:sns:eu-west-1:999999999999:attacker',
                }),
              ),
          },
          {
            name: 'no signature',
            delivery: () => sns.delivery({ ...sns.envelope({ Type: 'Notification', Message: '{}' }), Signature: '' }),
          },
          {
            name: 'unknown SignatureVersion',
            delivery: () =>
              sns.delivery({ ...sns.envelope({ Type: 'Notification', Message: '{}' }), SignatureVersion: '3' as '2' }),
          },
          { name: 'not JSON', delivery: () => sns.delivery('Type=Notification&Message=hello') },
        ],
      },
    }),
  );

  await t.test('send: raw MIME reaches SES with its threading headers and both parts', async (t) => {
    const adapter = make({ configurationSetName: 'patchwell-events' });
    t.teardown(() => adapter.close());
    const m = message({ cc: [{ address: 'bob@example.test' }] });
    const result = await adapter.send(m);
    t.match(result.providerMessageId, /\S+/, 'SES MessageId');
    t.same(result.accepted, ['ada@example.test', 'bob@example.test']);

    const stored = (await peer.store()).emails.find((e) => e.messageId === result.providerMessageId);
    t.ok(stored, 'the emulator stored the mail under the returned MessageId');
    t.equal(stored?.subject, m.subject);
    t.match(stored?.from ?? '', /support@acme\.test/);
    t.match(stored?.destination.to.join(',') ?? '', /ada@example\.test/);
    t.match(stored?.destination.cc.join(',') ?? '', /bob@example\.test/);
    t.equal(stored?.body.text?.trimEnd(), m.text.trimEnd(), 'text part');
    t.equal(stored?.body.html, m.html, 'HTML part');

    const parsed = await simpleParser(peer.raws.find((r) => r.includes(m.messageId))!);
    t.equal(parsed.messageId, m.messageId, 'Message-ID');
    t.equal(parsed.inReplyTo, '<c1@example.test>', 'In-Reply-To');
    t.same(parsed.references, ['<c0@example.test>', '<c1@example.test>'], 'References');
    t.equal(parsed.headers.get('auto-submitted'), 'auto-replied');
  });

  await t.test('send honours AWS_ENDPOINT_URL_SESV2 and the SDK environment', async (t) => {
    const saved = { ...process.env };
    t.teardown(() => {
      for (const k of ['AWS_ENDPOINT_URL_SESV2', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    });
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SESV2: peer.emulator,
      AWS_REGION: 'us-east-2',
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 'env-secret',
    });
    const adapter = new SesChannelAdapter(SesChannelAdapter.validateOptions({}), { config: {}, log: undefined });
    t.teardown(() => adapter.close());
    const m = message();
    const { providerMessageId } = await adapter.send(m);
    t.ok(
      (await peer.store()).emails.some((e) => e.messageId === providerMessageId),
      'the emulator named by AWS_ENDPOINT_URL_SESV2 got it',
    );
    t.equal(
      peer.raws.some((r) => r.includes(m.messageId)),
      false,
      'not through the configured endpoint of the other adapters',
    );
    const receiving = await make().registerDomain('in.env.example.test', 'receiving');
    t.ok(receiving, 'sanity: the fake still answers');
  });

  await t.test('send: a refused message is permanent, throttling is retryable', async (t) => {
    const adapter = make();
    t.teardown(() => adapter.close());
    const refused = await adapter.send(message({ to: [{ address: 'refused@example.test' }] })).catch((e: unknown) => e);
    t.ok(isAdapterError(refused, 'send_rejected'), `MessageRejected: ${(refused as Error).message}`);
    t.equal((refused as { retryable: boolean }).retryable, false);
    const throttled = await adapter
      .send(message({ to: [{ address: 'throttled@example.test' }] }))
      .catch((e: unknown) => e);
    t.ok(isAdapterError(throttled, 'send_failed'), `TooManyRequests: ${(throttled as Error).message}`);
    t.equal((throttled as { retryable: boolean }).retryable, true);
  });

  await t.test('domains: Easy DKIM, custom MAIL FROM and the inbound MX, with SES statuses mapped', async (t) => {
    const adapter = make();
    t.teardown(() => adapter.close());
    const sending = await adapter.registerDomain('Mail.Acme.test', 'sending');
    const id = peer.identities.get('mail.acme.test')!;
    t.equal(sending.domain, 'mail.acme.test');
    t.equal(sending.status, 'pending');
    t.same(
      sending.records.filter((r) => r.record === 'dkim').map((r) => [r.type, r.name, r.value, r.status]),
      id.tokens.map((tok) => ['CNAME', `${tok}._domainkey.mail.acme.test`, `${tok}.dkim.amazonses.com`, 'pending']),
      'three DKIM CNAMEs from the tokens',
    );
    t.same(
      sending.records.filter((r) => r.record !== 'dkim').map((r) => [r.record, r.type, r.name, r.value, r.priority]),
      [
        ['return_path', 'MX', 'bounce.mail.acme.test', `feedback-smtp.${REGION}.amazonses.com`, 10],
        ['spf', 'TXT', 'bounce.mail.acme.test', 'v=spf1 include:amazonses.com ~all', undefined],
      ],
      'MAIL FROM: MX and SPF',
    );
    t.same(
      id.mailFrom,
      { domain: 'bounce.mail.acme.test', status: 'PENDING', behavior: 'USE_DEFAULT_VALUE' },
      'PutEmailIdentityMailFromAttributes',
    );

    id.dkim = 'SUCCESS';
    id.verification = 'SUCCESS';
    t.equal(
      (await adapter.checkDomain('mail.acme.test', 'sending')).status,
      'partially_verified',
      'DKIM verified, MAIL FROM pending',
    );
    id.mailFrom!.status = 'FAILED';
    const partlyFailed = await adapter.checkDomain('mail.acme.test', 'sending');
    t.equal(partlyFailed.status, 'partially_failed');
    t.equal(partlyFailed.error?.code, 'mail_from_failed');
    id.mailFrom!.status = 'SUCCESS';
    const verified = await adapter.checkDomain('mail.acme.test', 'sending');
    t.equal(verified.status, 'verified');
    t.ok(
      verified.records.every((r) => r.status === 'verified'),
      'every record verified',
    );

    const receiving = await adapter.registerDomain('in.acme.test', 'receiving');
    t.same(
      receiving.records.find((r) => r.type === 'MX'),
      {
        purpose: 'receiving',
        record: 'mx',
        type: 'MX',
        name: 'in.acme.test',
        value: `inbound-smtp.${REGION}.amazonaws.com`,
        priority: 10,
      },
    );
    const inId = peer.identities.get('in.acme.test')!;
    t.equal(inId.mailFrom, undefined, 'no MAIL FROM for a receiving domain');
    inId.verification = 'FAILED';
    inId.dkim = 'FAILED';
    inId.errorType = 'HOST_NOT_FOUND';
    const failed = await adapter.checkDomain('in.acme.test', 'receiving');
    t.equal(failed.status, 'failed');
    t.match(failed.error, { code: 'verification_failed', message: /HOST_NOT_FOUND/ });
    inId.verification = 'TEMPORARY_FAILURE';
    t.equal((await adapter.checkDomain('in.acme.test', 'receiving')).status, 'temporary_failure');

    const again = await adapter.registerDomain('in.acme.test', 'receiving');
    t.same(
      again.records.map((r) => r.name),
      receiving.records.map((r) => r.name),
      'registering again re-reads the identity',
    );
    await adapter.deleteDomain('in.acme.test', 'receiving');
    t.notOk(peer.identities.has('in.acme.test'), 'DeleteEmailIdentity');
    await adapter.deleteDomain('in.acme.test', 'receiving');
    const gone = await adapter.checkDomain('in.acme.test', 'receiving').catch((e: unknown) => e);
    t.ok(isAdapterError(gone, 'not_found'), 'a deleted domain is not_found');
  });
});
