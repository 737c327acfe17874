import t from 'tap';
import type { ConnectorSettings } from '../../../core/contracts/index.js';
import {
  connectorSettings,
  refusedSettings,
  runConnectorAdapterContract,
} from '../../../test/contracts/connector-adapter.js';
import metricsModule, { MetricsConnectorAdapter } from '../index.js';
import { framesOfStack } from '../../connector-common/normalize.js';
import { normalizeLog } from '../normalize.js';
import { apiLog, startLogsPeer } from './peer.js';

/** Both keys, for the settings cases about something else. */
const KEYS = { api_key: 'k', application_key: 'a' };
const loopback = { config: { security: { allowLoopbackFetch: true } }, log: undefined };
const create = (o: Record<string, unknown> = {}) =>
  new MetricsConnectorAdapter(MetricsConnectorAdapter.validateOptions({ allowHttp: true, ...o }), loopback);

t.test('connector-metrics passes the ConnectorAdapter contract kit against a local logs-search peer', async (t) => {
  const peer = await startLogsPeer();
  t.teardown(() => peer.close());
  peer.logs.push(
    apiLog({ at: new Date(Date.now() - 60_000) }),
    apiLog({ at: new Date(Date.now() - 30_000), message: 'y is null', kind: 'RangeError' }),
  );
  const settings = (secrets: ConnectorSettings['secrets'], config: Record<string, unknown> = { base_url: peer.url }) =>
    connectorSettings(config, secrets);
  const keys = { api_key: peer.apiKey, application_key: peer.appKey };

  await runConnectorAdapterContract(t, {
    name: 'connector-metrics',
    kind: 'metrics_platform',
    create: () => create(),
    module: metricsModule,
    validateOptions: (o: unknown) => MetricsConnectorAdapter.validateOptions(o),
    options: { valid: { pollIntervalMs: 30_000 }, invalid: [{ options: { pageLimit: 5000 }, key: 'pageLimit' }] },
    settings: {
      valid: {
        config: { base_url: 'https://api.datadoghq.eu', query: 'service:shop env:production' },
        secrets: KEYS,
      },
      invalid: [
        refusedSettings('no application key', 'missing_field@secrets.application_key', {}, { api_key: 'k' }),
        refusedSettings('no api key', 'missing_field@secrets.api_key', {}, { application_key: 'a' }),
        refusedSettings('an ftp site', 'invalid_url@config.base_url', { base_url: 'ftp://api.datadoghq.com' }, KEYS),
        refusedSettings(
          'a metadata address',
          'blocked_address@config.base_url',
          { base_url: 'https://169.254.169.254' },
          KEYS,
        ),
        refusedSettings('a query on two lines', 'invalid_value@config.query', { query: 'a\nb' }, KEYS),
        refusedSettings('an unknown config key', 'unknown_field@config.region', { region: 'eu' }, KEYS),
      ],
    },
    test: [
      { name: 'the keys are good', settings: settings(keys), ok: true, code: 'ok' },
      {
        name: 'the api key is refused',
        settings: settings({ ...keys, api_key: 'wrong' }),
        ok: false,
        code: 'unauthorized',
      },
      {
        name: 'the application key is refused',
        settings: settings({ ...keys, application_key: 'wrong' }),
        ok: false,
        code: 'forbidden',
      },
      {
        name: 'nothing listens there',
        settings: settings(keys, { base_url: 'http://127.0.0.1:9' }),
        ok: false,
        code: 'unreachable',
      },
    ],
    poll: { settings: settings(keys), minEvents: 2 },
  });
  t.ok(
    peer.headers.every((h) => !JSON.stringify(peer.bodies).includes(String(h['dd-api-key']))),
    'the keys travel in headers only, never in the body',
  );
});

t.test('a log normalises to one event; non-error logs to none', (t) => {
  const now = new Date().toISOString();
  const e = normalizeLog(apiLog({ at: new Date('2026-11-20T10:00:00Z') }), now)!;
  t.match(e.external_id, /^AQAAAYvL/);
  t.equal(e.type, 'TypeError');
  t.equal(e.message, "Cannot read properties of undefined (reading 'total')");
  t.equal(e.level, 'error');
  t.equal(e.occurred_at, '2026-11-20T10:00:00.000Z');
  t.equal(e.release, '1.4.2');
  t.equal(e.environment, 'production');
  t.equal(e.url, 'https://shop.example.com/api/checkout');
  t.same(e.user, { id: 'u-42', email: 'ada@example.com' });
  t.same(e.browser, { user_agent: 'Mozilla/5.0' });
  t.same(e.frames, [
    { file: '/srv/app/src/cart.js', function: 'computeTotal', line: 41, column: 17, in_app: true },
    {
      file: '/srv/app/node_modules/express/lib/router.js',
      function: 'Router.handle',
      line: 280,
      column: 9,
      in_app: false,
    },
  ]);
  t.equal(normalizeLog(apiLog({ at: new Date(), status: 'critical' }), now)!.level, 'fatal');
  t.equal(normalizeLog(apiLog({ at: new Date(), status: 'warn' }), now), null, 'a warning log is not an error event');
  t.equal(normalizeLog(apiLog({ at: new Date(), status: 'info' }), now), null);
  t.equal(
    normalizeLog({ id: 'x', attributes: { status: 'error', timestamp: now } }, now),
    null,
    'nothing to say, no event',
  );
  t.equal(
    normalizeLog({ id: 'x', attributes: { status: 'error', timestamp: now, message: 'disk full' } }, now)!.type,
    'Error',
  );
  t.equal(normalizeLog('nope', now), null);
  t.same(
    framesOfStack(
      'Traceback (most recent call last):\n  File "/app/lib/site-packages/flask/app.py", line 10, in wsgi\n  File "/app/shop/views.py", line 7, in checkout\nKeyError: total',
    ),
    [
      { file: '/app/shop/views.py', function: 'checkout', line: 7, in_app: true },
      { file: '/app/lib/site-packages/flask/app.py', function: 'wsgi', line: 10, in_app: false },
    ],
    'python frames, crashing frame first',
  );
  t.end();
});

t.test('poll asks for error logs with the keys, walks every page, and continues a walk cut short', async (t) => {
  const peer = await startLogsPeer();
  t.teardown(() => peer.close());
  const base = Date.now() - 50_000;
  for (let i = 0; i < 5; i++) peer.logs.push(apiLog({ at: new Date(base + i * 1000) }));
  peer.logs.push(
    apiLog({ at: new Date(base + 500), status: 'info', message: 'all good' }),
    apiLog({ at: new Date(base + 600), status: 'warn' }),
  );
  const settings = connectorSettings(
    { base_url: peer.url, query: 'service:shop-api' },
    { api_key: peer.apiKey, application_key: peer.appKey },
  );

  const all = await create({ pageLimit: 2 }).poll(settings, null);
  t.equal(all.events.length, 5, 'three pages of two, two and one; info and warn logs left out');
  t.equal(peer.bodies.length, 3);
  t.match(peer.bodies[0], {
    filter: { query: 'status:(error OR critical OR alert OR emergency) (service:shop-api)' },
    page: { limit: 2 },
    sort: 'timestamp',
  });
  t.notOk((peer.bodies[0].page as Record<string, unknown>).cursor, 'the first page has no cursor');
  t.ok((peer.bodies[1].page as Record<string, unknown>).cursor, 'the next pages follow meta.page.after');
  t.equal(all.nextPollInMs, 60_000);
  const again = await create({ pageLimit: 2 }).poll(settings, all.cursor);
  t.equal(again.events.length, 0, 'the next window starts where the last ended');

  const short = create({ pageLimit: 2, maxPagesPerPoll: 1 });
  const first = await short.poll(settings, null);
  t.equal(first.events.length, 2);
  t.equal(first.nextPollInMs, 1_000, 'an unfinished walk continues soon');
  const second = await short.poll(settings, first.cursor);
  const third = await short.poll(settings, second.cursor);
  t.same(
    [...first.events, ...second.events, ...third.events].map((e) => e.external_id),
    all.events.map((e) => e.external_id),
    'nothing skipped, nothing twice',
  );
});

t.test(
  'refusals and outages: 401/403 are not retried, 429 and 500 are retryable errors the poller backs off on',
  async (t) => {
    const peer = await startLogsPeer();
    t.teardown(() => peer.close());
    const settings = connectorSettings({ base_url: peer.url }, { api_key: peer.apiKey, application_key: peer.appKey });
    await t.rejects(create().poll({ ...settings, secrets: { ...settings.secrets, api_key: 'wrong' } }, null), {
      code: 'unauthorized',
      retryable: false,
    });
    await t.rejects(create().poll({ ...settings, secrets: { ...settings.secrets, application_key: 'wrong' } }, null), {
      code: 'forbidden',
      retryable: false,
    });
    peer.fail.push(429);
    await t.rejects(create().poll(settings, null), {
      code: 'rate_limited',
      retryable: true,
      details: { status: 429, retry_after_s: 7 },
    });
    peer.fail.push(500);
    await t.rejects(create().poll(settings, null), {
      code: 'provider_error',
      retryable: true,
      details: { status: 500 },
    });
    peer.fail.push(429);
    t.match(await create().test(settings), { ok: false, code: 'rate_limited' });
    await t.rejects(create().poll({ ...settings, secrets: { api_key: peer.apiKey } }, null), {
      code: 'invalid_settings',
    });
    t.match(await create().test({ ...settings, secrets: {} }), { ok: false, code: 'invalid_settings' });
    const strict = new MetricsConnectorAdapter(MetricsConnectorAdapter.validateOptions({}), {
      config: {},
      log: undefined,
    });
    t.same(
      strict
        .validateSettings({ base_url: 'http://api.datadoghq.com' }, { api_key: 'k', application_key: 'a' })
        .map((i) => `${i.code}@${i.field}`),
      ['insecure_url@config.base_url'],
      'http sites only when the adapter allows them',
    );
    t.match(
      await strict.test(settings),
      { ok: false, code: 'blocked_address' },
      'a loopback address is refused before any call',
    );
  },
);
