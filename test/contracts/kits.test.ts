import t from 'tap';
import {
  AdapterOptionsError,
  DeliverySignatureError,
  adapterModule,
  hmacSha256Hex,
  isAdapterError,
  parseMimeDelivery,
  signMimeDelivery,
  validateAdapterOptions,
  type InboundDelivery,
  type InboundParseResult,
} from '../../core/contracts/index.js';
import { CollectingTest } from './common.js';
import {
  checkDomainState,
  checkInboundParseResult,
  checkSendResult,
  mimeDelivery,
  runChannelAdapterContract,
} from './channel-adapter.js';
import {
  checkConnectorTestResult,
  checkNormalizedEvent,
  connectorSettings,
  refusedSettings,
  runConnectorAdapterContract,
} from './connector-adapter.js';
import { checkJobResult, kitJob, runAgentExecutorContract } from './agent-executor.js';
import { checkPaymentEvent, checkPriceList, runPaymentProviderContract } from './payment-provider.js';
import { checkCodeHostEvent, checkPullRequest, runCodeHostContract } from './code-host.js';
import { checkConnectionTestResult, kitConnection, runIdentityProviderContract } from './identity-provider.js';
import {
  FakeBuiltinExecutor,
  FakeChannelAdapter,
  FakeCodeHost,
  FakeEndpointConnector,
  FakeMetricsConnector,
  FakeOidcProvider,
  FakePaymentProvider,
  FakeSamlProvider,
} from './fakes.js';

const SECRET = 'kit-webhook-secret-0123456789';

const channelKit = {
  name: 'mail-fake',
  create: () =>
    new FakeChannelAdapter(
      FakeChannelAdapter.validateOptions({ sendingHost: 'mail.fake.test', webhookSecret: SECRET }),
    ),
  module: adapterModule('channel', FakeChannelAdapter),
  validateOptions: (o: unknown) => FakeChannelAdapter.validateOptions(o),
  options: {
    valid: { sendingHost: 'mail.fake.test', webhookSecret: SECRET },
    invalid: [
      { options: {}, key: 'adapters.options.mail-fake.sendingHost' },
      { options: { sendingHost: 'mail.fake.test', webhookSecret: 'short' }, key: 'webhookSecret' },
    ],
  },
  mimeSecret: SECRET,
};

t.test('channel kit: a fake email provider passes', (t) => runChannelAdapterContract(t, channelKit));

t.test('connector kit: a push-only endpoint passes', (t) =>
  runConnectorAdapterContract(t, {
    name: 'connector-fake-endpoint',
    kind: 'endpoint',
    create: () => new FakeEndpointConnector(FakeEndpointConnector.validateOptions({})),
    module: adapterModule('connector', FakeEndpointConnector),
    settings: {
      valid: { config: {}, secrets: { token: 'tok-123' } },
      invalid: [refusedSettings('no token', 'missing_field@secrets.token', {})],
    },
    test: [
      {
        name: 'nothing arrived yet',
        settings: settingsWith({ token: 't' }, null),
        ok: null,
        code: 'awaiting_delivery',
      },
      { name: 'events arrive', settings: settingsWith({ token: 't' }, new Date()), ok: null, code: 'receiving' },
    ],
    push: {
      settings: settingsWith({ token: 'tok-123' }),
      signed: {
        headers: { authorization: 'Bearer tok-123', 'content-type': 'application/json' },
        rawBody: Buffer.from(JSON.stringify([{ type: 'TypeError', message: 'form is null', level: 'error' }])),
      },
      forged: [
        {
          name: 'another token',
          delivery: { headers: { authorization: 'Bearer tok-999' }, rawBody: Buffer.from('{}') },
        },
      ],
    },
  }),
);

t.test('connector kit: a polling source passes', (t) =>
  runConnectorAdapterContract(t, {
    name: 'connector-fake-metrics',
    kind: 'metrics_platform',
    create: () => new FakeMetricsConnector(FakeMetricsConnector.validateOptions({})),
    options: {
      valid: { requestTimeoutMs: 5000 },
      invalid: [{ options: { requestTimeoutMs: 5 }, key: 'requestTimeoutMs' }],
    },
    validateOptions: (o) => FakeMetricsConnector.validateOptions(o),
    settings: {
      valid: { config: { site: 'https://logs.example.test' }, secrets: { api_key: 'k' } },
      invalid: [
        refusedSettings('no site', 'missing_field@config.site', {}, { api_key: 'k' }),
        refusedSettings(
          'http site',
          'insecure_url@config.site',
          { site: 'http://logs.example.test' },
          { api_key: 'k' },
        ),
        refusedSettings(
          'stored key counts',
          'invalid_url@config.site',
          { site: 'x' },
          {},
          { storedSecrets: ['api_key'] },
        ),
      ],
    },
    test: [
      { name: 'a good key', settings: settingsWith({ api_key: 'good-key' }), ok: true },
      { name: 'a bad key', settings: settingsWith({ api_key: 'bad' }), ok: false, code: 'unauthorized' },
    ],
    poll: { settings: settingsWith({ api_key: 'good-key' }), minEvents: 1 },
  }),
);

t.test('agent kit: a diagnose-only builtin executor passes', (t) =>
  runAgentExecutorContract(t, {
    name: 'agent-fake',
    mode: 'builtin',
    completes: true,
    create: () => new FakeBuiltinExecutor(FakeBuiltinExecutor.validateOptions({})),
    module: adapterModule('agent', FakeBuiltinExecutor),
    options: { valid: {}, invalid: [{ options: { maxConcurrentJobs: 0 }, key: 'maxConcurrentJobs' }] },
  }),
);

const payment = () => new FakePaymentProvider(FakePaymentProvider.validateOptions({ webhookSecret: SECRET }));
const paymentBody = Buffer.from(JSON.stringify({ id: 'evt_1', type: 'topup.paid', pack: 'topup_10', org_id: 'org_1' }));

t.test('payment kit: a simulated provider passes', (t) =>
  runPaymentProviderContract(t, {
    name: 'payment-fake',
    create: payment,
    module: adapterModule('payment', FakePaymentProvider),
    options: {
      valid: { webhookSecret: SECRET },
      invalid: [{ options: { webhookSecret: SECRET, currency: 'EURO' }, key: 'currency' }],
    },
    webhooks: {
      signed: { headers: { 'x-fake-signature': `sha256=${hmacSha256Hex(SECRET, paymentBody)}` }, rawBody: paymentBody },
      expectType: 'topup.paid',
    },
    subscribe: (p) => Promise.resolve((p as FakePaymentProvider).activate('indie')),
    connect: true,
  }),
);

const hookBody = Buffer.from(JSON.stringify({ action: 'opened', number: 1 }));

t.test('code host kit: an in-memory host passes', (t) =>
  runCodeHostContract(t, {
    name: 'codehost-fake',
    create: () => new FakeCodeHost(FakeCodeHost.validateOptions({ webhookSecret: SECRET })),
    module: adapterModule('codeHost', FakeCodeHost),
    options: { valid: { webhookSecret: SECRET }, invalid: [{ options: {}, key: 'webhookSecret' }] },
    webhooks: {
      signed: {
        headers: {
          'x-github-event': 'pull_request',
          'x-github-delivery': 'dlv-1',
          'x-hub-signature-256': `sha256=${hmacSha256Hex(SECRET, hookBody)}`,
        },
        rawBody: hookBody,
      },
      expectKind: 'pull_request',
    },
    repository: { ref: { installationId: null, fullName: 'kit/app' }, file: 'README.md' },
    pullRequest: { head: 'feature' },
  }),
);

t.test('identity kit: a fake OIDC provider passes', (t) =>
  runIdentityProviderContract(t, {
    name: 'identity-fake-oidc',
    protocol: 'oidc',
    create: () => new FakeOidcProvider(FakeOidcProvider.validateOptions({})),
    module: adapterModule('identity', FakeOidcProvider),
    connection: kitConnection('oidc', { issuer: 'https://idp.good.test', clientId: 'c1', clientSecret: 's1' }),
  }),
);

t.test('identity kit: a fake SAML provider passes', (t) =>
  runIdentityProviderContract(t, {
    name: 'identity-fake-saml',
    protocol: 'saml',
    create: () => new FakeSamlProvider(FakeSamlProvider.validateOptions({})),
    options: { valid: {}, invalid: [{ options: { clockToleranceSeconds: -1 }, key: 'clockToleranceSeconds' }] },
    validateOptions: (o) => FakeSamlProvider.validateOptions(o),
  }),
);

t.test('a kit refuses a broken adapter', async (t) => {
  await t.test('the collector agrees with tap on a good adapter', async (t) => {
    const c = new CollectingTest();
    await runChannelAdapterContract(c, channelKit);
    t.same(c.failures, []);
    t.ok(c.passed.length > 10, `${c.passed.length} checks passed`);
  });

  await t.test('an email provider that trusts unsigned deliveries and invents a status fails', async (t) => {
    class Careless extends FakeChannelAdapter {
      override parseInbound(d: InboundDelivery): Promise<InboundParseResult> {
        return Promise.resolve({
          emails: [{ recipient: 'x@y.test', raw: d.rawBody, providerVerdicts: {}, providerMessageId: 'm' }],
          events: [],
        });
      }
      override checkDomain(domain: string) {
        return Promise.resolve({ domain, purpose: 'sending' as const, status: 'ok' as never, records: [] });
      }
    }
    const c = new CollectingTest();
    await runChannelAdapterContract(c, {
      ...channelKit,
      create: () => new Careless({ sendingHost: 'mail.fake.test', webhookSecret: SECRET }),
    });
    t.ok(c.caught('forged mime deliveries', 'no signature header'), 'unsigned delivery caught');
    t.ok(c.caught('unknown provider'), 'unknown provider caught');
    t.ok(c.caught('checkDomain answers a DomainState'), 'bad domain status caught');
  });

  await t.test('a connector with another identifier whose verifyPush throws fails', async (t) => {
    class Throwing extends FakeEndpointConnector {
      override verifyPush(): boolean {
        throw new Error('no header');
      }
    }
    const c = new CollectingTest();
    await runConnectorAdapterContract(c, {
      name: 'connector-other-name',
      kind: 'endpoint',
      create: () => new Throwing({}),
      settings: { valid: { config: {}, secrets: { token: 't' } } },
      push: {
        settings: settingsWith({ token: 't' }),
        signed: { headers: { authorization: 'Bearer t' }, rawBody: Buffer.from('{"message":"m"}') },
      },
    });
    t.ok(c.caught('identifier'), 'wrong identifier caught');
    t.ok(c.caught('verifyPush threw'), 'throwing verifyPush caught');
  });

  await t.test('an executor that reports a fix it cannot run fails', async (t) => {
    class Liar extends FakeBuiltinExecutor {
      override readonly capabilities = { diagnose: true, fix: true };
    }
    const c = new CollectingTest();
    await runAgentExecutorContract(c, {
      name: 'agent-fake',
      mode: 'builtin',
      completes: true,
      create: () => new Liar({}),
    });
    t.ok(c.caught('a fix job', 'fix: a succeeded fix job has one'), 'missing fix caught');
  });
});

t.test('checkers name what is wrong', (t) => {
  const msg = {
    from: { address: 'a@b.test' },
    to: [{ address: 'c@d.test' }],
    subject: 's',
    text: 't',
    headers: {},
    messageId: '<m@b>',
  };
  const txtOnly = [{ purpose: 'receiving', type: 'TXT', name: 'a.test', value: 'v' }];
  const cases: Array<[string, string[], RegExp]> = [
    [
      'a domain without records',
      checkDomainState(
        { domain: 'a.test', purpose: 'receiving', status: 'verified', records: [] },
        'a.test',
        'receiving',
      ),
      /records/,
    ],
    [
      'a receiving domain without MX',
      checkDomainState(
        { domain: 'a.test', purpose: 'receiving', status: 'verified', records: txtOnly },
        'a.test',
        'receiving',
      ),
      /MX/,
    ],
    [
      'a stranger among the accepted',
      checkSendResult({ providerMessageId: 'p', accepted: ['z@z.test'] }, msg),
      /not a recipient/,
    ],
    [
      'an unknown SPF verdict',
      checkInboundParseResult({
        emails: [
          { recipient: 'a@x.test', raw: Buffer.from('x'), providerVerdicts: { spf: 'maybe' }, providerMessageId: 'm' },
        ],
        events: [],
      }),
      /spf/,
    ],
    [
      'ok null with code ok',
      checkConnectorTestResult({ ok: null, code: 'ok', message: 'm', details: {} }),
      /awaiting_delivery/,
    ],
    [
      'a bad level and date',
      checkNormalizedEvent({ type: 'E', message: 'm', level: 'warn', occurred_at: 'yesterday' }),
      /level[\s\S]*occurred_at/,
    ],
    [
      'a costly job without diagnosis',
      checkJobResult({ status: 'succeeded', cost_usd: 5 }, kitJob('diagnose')),
      /above the limit[\s\S]*diagnosis/,
    ],
    ['a vendor event type', checkPaymentEvent({ type: 'charge.succeeded' }), /not a PaymentEvent type/],
    ['no plans', checkPriceList({ plans: [], topups: [] }), /plans/],
    ['pull request number 0', checkPullRequest({ number: 0 }), /number/],
    ['an empty delivery id', checkCodeHostEvent({ deliveryId: '', kind: 'push' }), /deliveryId/],
    ['a failed test without error', checkConnectionTestResult({ ok: false, details: {} }), /error/],
  ];
  for (const [name, found, pattern] of cases) t.match(found.join('\n'), pattern, name);
  t.end();
});

t.test('shared helpers of core/contracts', async (t) => {
  await t.test('validateAdapterOptions names the config key and fills defaults', (t) => {
    const err = t.throws(() =>
      validateAdapterOptions('mail-fake', FakeChannelAdapter.optionsSchema, { webhookSecret: 1 }),
    ) as Error;
    t.ok(err instanceof AdapterOptionsError);
    t.match(err.message, /config key adapters\.options\.mail-fake\.sendingHost: is required/);
    t.match(err.message, /config key adapters\.options\.mail-fake\.webhookSecret: must be a string/);
    t.same(FakeMetricsConnector.validateOptions({}), { requestTimeoutMs: 10_000, minPollIntervalMs: 60_000 });
    t.end();
  });

  await t.test('mime deliveries: signature over the raw body, one email per envelope recipient', (t) => {
    const d = mimeDelivery('A@In.Test, b@in.test', SECRET);
    const r = parseMimeDelivery(d, SECRET);
    t.same(
      r.emails.map((e) => e.recipient),
      ['a@in.test', 'b@in.test'],
    );
    t.equal(d.headers['x-webhook-signature'], signMimeDelivery(d.rawBody, SECRET));
    t.throws(() => parseMimeDelivery(d, undefined), DeliverySignatureError, 'no secret configured: nothing is trusted');
    const noRecipient = { ...d, headers: { 'x-webhook-signature': d.headers['x-webhook-signature'] } };
    t.ok(
      isAdapterError(
        catchError(() => parseMimeDelivery(noRecipient, SECRET)),
        'invalid_payload',
      ),
      'missing X-Envelope-To',
    );
    t.end();
  });

  await t.test('adapterModule builds a validated instance', async (t) => {
    const mod = adapterModule('channel', FakeChannelAdapter);
    t.equal(mod.name, 'mail-fake');
    const a = await mod.create({ sendingHost: 'mail.fake.test' }, { config: {}, log: null });
    t.equal(a.identifier, 'mail-fake');
    t.throws(() => mod.create({ sendingHost: 'not a host!' }, { config: {}, log: null }), AdapterOptionsError);
  });
});

function settingsWith(secrets: Record<string, string>, lastDeliveryAt: Date | null = null) {
  return connectorSettings({ site: 'https://logs.example.test' }, secrets, { lastDeliveryAt });
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err;
  }
}
