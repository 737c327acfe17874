import t from 'tap';
import type { ConnectorSettings } from '../../../core/contracts/index.js';
import {
  connectorSettings,
  refusedSettings,
  runConnectorAdapterContract,
} from '../../../test/contracts/connector-adapter.js';
import trackerModule, { ErrorTrackerConnectorAdapter } from '../index.js';
import { nextCursorOf, normalizeWebhookBody } from '../normalize.js';
import { apiEvent, eventAlertBody, signedDelivery, startTrackerPeer } from './peer.js';

const SECRET = 'a5c3f0b1e2d4c6b8a0f1e3d5c7b9a1f3e5d7c9b1a3f5e7d9c1b3a5f7e9d1c3b5';
/** The secrets of a polling setup (an auth token) and of a push-only one (the client secret). */
const polling = { auth_token: 'tok' };
const pushed = { client_secret: SECRET };
const loopback = { config: { security: { allowLoopbackFetch: true } }, log: undefined };
const create = () =>
  new ErrorTrackerConnectorAdapter(ErrorTrackerConnectorAdapter.validateOptions({ allowHttp: true }), loopback);

t.test('connector-error-tracker passes the ConnectorAdapter contract kit against a local tracker peer', async (t) => {
  const peer = await startTrackerPeer();
  t.teardown(() => peer.close());
  peer.events.push(
    apiEvent({ at: new Date(Date.now() - 60_000) }),
    apiEvent({ at: new Date(Date.now() - 30_000), message: 'y is null' }),
  );
  const settings = (
    secrets: ConnectorSettings['secrets'],
    config: Record<string, unknown> = { organization: 'acme', project: 'shop', base_url: peer.url },
  ) => connectorSettings(config, secrets);
  const delivery = signedDelivery(
    SECRET,
    'event_alert',
    eventAlertBody({
      eventId: 'e'.repeat(32),
      issue: '202',
      message: "Cannot read properties of undefined (reading 'qty')",
    }),
  );

  await runConnectorAdapterContract(t, {
    name: 'connector-error-tracker',
    kind: 'error_tracker',
    create,
    module: trackerModule,
    validateOptions: (o: unknown) => ErrorTrackerConnectorAdapter.validateOptions(o),
    options: {
      valid: { pollIntervalMs: 30_000 },
      invalid: [{ options: { maxPagesPerPoll: 0 }, key: 'maxPagesPerPoll' }],
    },
    settings: {
      valid: {
        config: { organization: 'acme', project: 'shop', base_url: 'https://tracker.example.com' },
        secrets: { client_secret: SECRET, auth_token: 'tok' },
      },
      invalid: [
        refusedSettings('no secret at all', 'missing_field@secrets.client_secret', {}),
        refusedSettings('polling without a project', 'missing_field@config.project', { organization: 'acme' }, polling),
        refusedSettings(
          'a slug with a slash',
          'invalid_value@config.organization',
          { organization: 'acme/x', project: 'shop' },
          polling,
        ),
        refusedSettings(
          'an ftp base URL',
          'invalid_url@config.base_url',
          { base_url: 'ftp://tracker.example.com' },
          pushed,
        ),
        refusedSettings(
          'a metadata address',
          'blocked_address@config.base_url',
          { base_url: 'https://169.254.169.254' },
          pushed,
        ),
        refusedSettings('an unknown config key', 'unknown_field@config.region', { region: 'eu' }, pushed),
      ],
    },
    test: [
      {
        name: 'push only, nothing yet',
        settings: settings({ client_secret: SECRET }),
        ok: null,
        code: 'awaiting_delivery',
      },
      { name: 'the token is good', settings: settings({ auth_token: peer.token }), ok: true, code: 'ok' },
      {
        name: 'the token is refused',
        settings: settings({ auth_token: 'wrong-token' }),
        ok: false,
        code: 'unauthorized',
      },
      {
        name: 'the project does not exist',
        settings: settings({ auth_token: peer.token }, { organization: 'acme', project: 'nope', base_url: peer.url }),
        ok: false,
        code: 'not_found',
      },
    ],
    poll: { settings: settings({ auth_token: peer.token }), minEvents: 2 },
    push: {
      settings: settings({ client_secret: SECRET }),
      signed: delivery,
      bodySigned: true,
      forged: [
        {
          name: 'signed with another secret',
          delivery: signedDelivery('another-secret', 'event_alert', JSON.parse(delivery.rawBody.toString()) as unknown),
        },
        {
          name: 'sha256= prefixed (another scheme)',
          delivery: {
            headers: {
              ...delivery.headers,
              'sentry-hook-signature': `sha256=${delivery.headers['sentry-hook-signature']}`,
            },
            rawBody: delivery.rawBody,
          },
        },
      ],
    },
  });
});

t.test('webhook bodies: event_alert, error and issue normalise to one event; other resources to none', (t) => {
  const now = new Date().toISOString();
  const [alert] = normalizeWebhookBody(
    eventAlertBody({ eventId: 'f'.repeat(32), issue: '202', message: 'boom 42', user: 'u-7' }),
    now,
  )!;
  t.equal(alert.external_id, 'f'.repeat(32));
  t.equal(alert.type, 'TypeError');
  t.equal(alert.message, 'boom 42');
  t.equal(alert.fingerprint, 'error-tracker-issue:202', 'the tracker issue groups its events');
  t.equal(alert.release, 'shop@1.2.0');
  t.equal(alert.url, 'https://shop.example.com/cart?id=1');
  t.same(alert.user, { id: 'u-7', email: 'u-7@example.com', ip_address: '203.0.113.9' });
  t.same(alert.browser, { user_agent: 'Mozilla/5.0', name: 'Chrome', version: '120.0', os: 'macOS' });
  t.same(alert.frames, [{ file: 'app/cart.js', function: 'addItem', line: 12, column: 3, in_app: true }]);

  const errorBody = {
    action: 'created',
    data: {
      error: {
        event_id: '1'.repeat(32),
        issue_id: '7',
        level: 'warning',
        timestamp: 1_700_000_000,
        fingerprint: ['checkout', 'timeout'],
        logentry: { formatted: 'Checkout timed out' },
      },
    },
  };
  const [err] = normalizeWebhookBody(errorBody, now)!;
  t.equal(err.level, 'warning');
  t.equal(err.fingerprint, 'checkout:timeout', 'a custom fingerprint wins');
  t.equal(err.occurred_at, new Date(1_700_000_000_000).toISOString());
  t.equal(err.message, 'Checkout timed out');

  const issue = {
    id: '303',
    title: 'RangeError: bad size',
    level: 'fatal',
    lastSeen: '2026-11-20T10:00:00Z',
    metadata: { type: 'RangeError', value: 'bad size', filename: 'app/grid.js', function: 'layout' },
  };
  const [created] = normalizeWebhookBody({ action: 'created', data: { issue } }, now)!;
  t.same(created, {
    external_id: 'issue:303',
    type: 'RangeError',
    message: 'bad size',
    level: 'fatal',
    occurred_at: '2026-11-20T10:00:00.000Z',
    fingerprint: 'error-tracker-issue:303',
    frames: [{ file: 'app/grid.js', function: 'layout', in_app: true }],
  });
  t.same(normalizeWebhookBody({ action: 'resolved', data: { issue } }, now), [], 'a resolved issue brings no event');
  t.same(normalizeWebhookBody({ action: 'created', data: { installation: { uuid: 'x' } } }, now), []);
  t.equal(normalizeWebhookBody('nope', now), null);
  t.end();
});

t.test('Link header: next cursor while results="true", none at the end', (t) => {
  t.equal(
    nextCursorOf(
      '<https://x/api/0/?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <https://x/api/0/?cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"',
    ),
    '0:100:0',
  );
  t.equal(
    nextCursorOf(
      '<https://x/?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <https://x/?cursor=0:100:0>; rel="next"; results="false"; cursor="0:100:0"',
    ),
    null,
  );
  t.equal(nextCursorOf(null), null);
  t.end();
});

t.test('poll walks every page of the window, and continues a walk cut short', async (t) => {
  const peer = await startTrackerPeer({ pageSize: 2 });
  t.teardown(() => peer.close());
  const base = Date.now() - 50_000;
  for (let i = 0; i < 5; i++) peer.events.push(apiEvent({ at: new Date(base + i * 1000) }));
  const settings = connectorSettings(
    { organization: 'acme', project: 'shop', base_url: peer.url },
    { auth_token: peer.token },
  );
  const all = await create().poll(settings, null);
  t.equal(all.events.length, 5, 'three pages of two, two and one');
  t.equal(peer.requests.filter((r) => r.includes('/events/')).length, 3);
  const again = await create().poll(settings, all.cursor);
  t.equal(again.events.length, 0, 'the next window starts where the last ended');

  const short = new ErrorTrackerConnectorAdapter(
    ErrorTrackerConnectorAdapter.validateOptions({ allowHttp: true, maxPagesPerPoll: 1 }),
    loopback,
  );
  const first = await short.poll(settings, null);
  t.equal(first.events.length, 2);
  t.equal(first.nextPollInMs, 1_000, 'an unfinished walk continues soon');
  const second = await short.poll(settings, first.cursor);
  const third = await short.poll(settings, second.cursor);
  t.equal(first.events.length + second.events.length + third.events.length, 5, 'nothing skipped');
  t.equal(third.nextPollInMs, 60_000);

  peer.failNext = 1;
  await t.rejects(create().poll(settings, null), { code: 'provider_error', retryable: true });
  const noToken = await create().poll({ ...settings, secrets: {} }, null);
  t.same(noToken.events, [], 'push-only connectors have nothing to poll');
});
