import { readFileSync } from 'node:fs';
import t from 'tap';
import type { ConnectorSettings } from '../../../core/contracts/index.js';
import {
  connectorSettings,
  refusedSettings,
  runConnectorAdapterContract,
  type SettingsIssue,
} from '../../../test/contracts/connector-adapter.js';
import cloudLogsModule, { CloudLogsConnectorAdapter } from '../index.js';
import { normalizeCloudLogEvent } from '../normalize.js';
import { logEvent, startCloudPeer, type CloudPeer } from './peer.js';

const JS_ERROR =
  "TypeError: Cannot read properties of undefined (reading 'total')\n    at computeTotal (/var/task/src/cart.js:41:17)\n    at Runtime.handler (/var/task/node_modules/middy/index.js:12:3)";
const LAMBDA_ERROR = `2026-11-20T10:00:00.000Z\t5f1d-req\tERROR\tInvoke Error \t${JSON.stringify({ errorType: 'RangeError', errorMessage: 'x', message: 'Invalid array length', stack: ['RangeError: Invalid array length', '    at grid (/var/task/src/grid.js:7:9)'] })}`;

const peerP = startCloudPeer();
t.teardown(async () => (await peerP).close());

const create = (peer: CloudPeer, o: Record<string, unknown> = {}) =>
  new CloudLogsConnectorAdapter(
    CloudLogsConnectorAdapter.validateOptions({ stsEndpoint: peer.url, logsEndpoint: peer.url, ...o }),
    { config: {}, log: undefined },
  );
const settingsOf = (
  peer: CloudPeer,
  config: Record<string, unknown> = {},
  secrets: ConnectorSettings['secrets'] = {},
): ConnectorSettings =>
  connectorSettings(
    {
      region: 'eu-west-1',
      role_arn: peer.roleArn,
      external_id: peer.externalId,
      log_group_name: peer.logGroup,
      ...config,
    },
    { access_key_id: peer.accessKeyId, secret_access_key: peer.secretAccessKey, ...secrets },
    { connectorId: 'con_cl1' },
  );

t.test('connector-cloud-logs passes the ConnectorAdapter contract kit against local STS and Logs peers', async (t) => {
  const peer = await peerP;
  peer.events.push(
    logEvent(Date.now() - 60_000, JS_ERROR),
    logEvent(Date.now() - 30_000, LAMBDA_ERROR),
    logEvent(Date.now() - 20_000, 'INFO request done in 12 ms'),
  );
  const cfg = {
    region: 'eu-west-1',
    role_arn: 'arn:aws:iam::123456789012:role/patchwell-logs',
    external_id: 'pw-0123456789abcdef0123456789abcdef',
    log_group_name: '/aws/lambda/shop',
  };
  const context = { expectedExternalId: cfg.external_id };
  /** Settings `change`d from the good ones, refused with `issue`. */
  const refused = (name: string, issue: SettingsIssue, change: object, secrets: Record<string, string> = {}) =>
    refusedSettings(name, issue, { ...cfg, ...change }, secrets, context);
  await runConnectorAdapterContract(t, {
    name: 'connector-cloud-logs',
    kind: 'cloud_logs',
    create: () => create(peer),
    module: cloudLogsModule,
    validateOptions: (o: unknown) => CloudLogsConnectorAdapter.validateOptions(o),
    options: {
      valid: { pollIntervalMs: 30_000 },
      invalid: [{ options: { sessionSeconds: 60 }, key: 'sessionSeconds' }],
    },
    settings: {
      valid: { config: { ...cfg, filter_pattern: '?ERROR ?Exception' }, secrets: {}, context },
      invalid: [
        refused('another external id', 'external_id_mismatch@config.external_id', {
          external_id: 'pw-ffffffffffffffffffffffffffffffff',
        }),
        refused('no external id', 'missing_field@config.external_id', { external_id: undefined }),
        refused('no role', 'missing_field@config.role_arn', { role_arn: '' }),
        refused('a region on Mars', 'invalid_region@config.region', { region: 'mars-1' }),
        refused('a user ARN, not a role', 'invalid_value@config.role_arn', {
          role_arn: 'arn:aws:iam::123456789012:user/bob',
        }),
        refused('a log group with spaces', 'invalid_value@config.log_group_name', { log_group_name: 'my group' }),
        refused(
          'a key id without its secret',
          'missing_field@secrets.secret_access_key',
          {},
          { access_key_id: 'AKIA0000' },
        ),
        refused('an unknown config key', 'unknown_field@config.endpoint', { endpoint: 'https://evil.example' }),
      ],
    },
    test: [
      { name: 'the role is assumed and the group read', settings: () => settingsOf(peer), ok: true, code: 'ok' },
      {
        name: 'the role does not trust this external id',
        settings: () => settingsOf(peer, { external_id: 'pw-ffffffffffffffffffffffffffffffff' }),
        ok: false,
        code: 'forbidden',
      },
      {
        name: 'the calling keys are refused',
        settings: () => settingsOf(peer, {}, { access_key_id: 'AKIAWRONG0000000', secret_access_key: 'nope' }),
        ok: false,
        code: 'unauthorized',
      },
      {
        name: 'the log group does not exist',
        settings: () => settingsOf(peer, { log_group_name: '/aws/lambda/nope' }),
        ok: false,
        code: 'not_found',
      },
      {
        name: 'settings are incomplete',
        settings: () => settingsOf(peer, { region: undefined }),
        ok: false,
        code: 'invalid_settings',
      },
    ],
    poll: { settings: () => settingsOf(peer), minEvents: 2 },
  });
  peer.events.length = 0;
});

t.test('the SDK clients load lazily, and AssumeRole carries the role and the external id', async (t) => {
  const src = readFileSync(new URL('../index.ts', import.meta.url), 'utf8');
  t.notMatch(src, /^import[^\n]*@aws-sdk/m, 'no @aws-sdk import at module top');
  const peer = await peerP;
  const before = peer.assumeCalls.length;
  const a = create(peer);
  t.match(await a.test(settingsOf(peer)), { ok: true, code: 'ok' });
  t.match(await a.test(settingsOf(peer)), { ok: true, code: 'ok' });
  const calls = peer.assumeCalls.slice(before);
  t.equal(calls.length, 1, 'the assumed session is reused until it nears expiry');
  t.match(calls[0], {
    Action: 'AssumeRole',
    RoleArn: peer.roleArn,
    ExternalId: peer.externalId,
    RoleSessionName: 'patchwell-connector-con_cl1',
    DurationSeconds: '3600',
  });
  const refused = await create(peer).test(settingsOf(peer, { external_id: 'pw-ffffffffffffffffffffffffffffffff' }));
  t.match(refused.message, /external id/, 'the refusal says what to check');
  t.notOk(JSON.stringify(refused).includes(peer.secretAccessKey), 'no secret in the answer');
});

t.test(
  'poll walks nextToken pages of error lines, continues a walk cut short, and reports outages as retryable',
  async (t) => {
    const peer = await peerP;
    const base = Date.now() - 50_000;
    for (let i = 0; i < 5; i++) peer.events.push(logEvent(base + i * 1000, i % 2 ? LAMBDA_ERROR : JS_ERROR));
    peer.events.push(logEvent(base + 500, 'START RequestId: 5f1d Version: $LATEST'));
    const settings = settingsOf(peer);
    const a = create(peer);
    const firstCall = peer.filterCalls.length;
    const all = await a.poll(settings, null);
    t.equal(all.events.length, 5, 'three pages of two, two and one');
    t.match(peer.filterCalls[firstCall], {
      logGroupName: peer.logGroup,
      filterPattern: '?ERROR ?FATAL ?CRITICAL ?Error ?Exception ?Traceback ?error ?fatal',
    });
    t.ok(
      peer.filterCalls.slice(firstCall + 1).every((c) => typeof c.nextToken === 'string'),
      'later pages follow nextToken',
    );
    const again = await a.poll(settings, all.cursor);
    t.equal(again.events.length, 0, 'the next window starts after the last');

    const short = create(peer, { maxPagesPerPoll: 1 });
    const p1 = await short.poll(settings, null);
    t.equal(p1.nextPollInMs, 1_000, 'an unfinished walk continues soon');
    const p2 = await short.poll(settings, p1.cursor);
    const p3 = await short.poll(settings, p2.cursor);
    t.same(
      [...p1.events, ...p2.events, ...p3.events].map((e) => e.external_id),
      all.events.map((e) => e.external_id),
      'nothing skipped, nothing twice',
    );

    peer.fail.push('throttle');
    await t.rejects(a.poll(settings, null), { code: 'rate_limited', retryable: true });
    peer.fail.push(500);
    await t.rejects(a.poll(settings, null), { code: 'provider_error', retryable: true });
    await t.rejects(create(peer).poll(settingsOf(peer, { external_id: 'pw-ffffffffffffffffffffffffffffffff' }), null), {
      code: 'forbidden',
      retryable: false,
    });
    await t.rejects(create(peer).poll(settingsOf(peer, { role_arn: 'x' }), null), { code: 'invalid_settings' });
    await t.rejects(create(peer, { stsEndpoint: 'http://127.0.0.1:9' }).poll(settingsOf(peer), null), {
      code: 'unreachable',
      retryable: true,
    });
    peer.events.length = 0;
  },
);

t.test('log lines normalise: JSON, Lambda, plain stacks, tracebacks; other lines give nothing', (t) => {
  const now = new Date().toISOString();
  const js = normalizeCloudLogEvent({ eventId: 'e1', timestamp: 1_763_632_800_000, message: JS_ERROR }, now)!;
  t.match(js, {
    external_id: 'e1',
    type: 'TypeError',
    message: "Cannot read properties of undefined (reading 'total')",
    level: 'error',
    occurred_at: new Date(1_763_632_800_000).toISOString(),
  });
  t.same(js.frames, [
    { file: '/var/task/src/cart.js', function: 'computeTotal', line: 41, column: 17, in_app: true },
    { file: '/var/task/node_modules/middy/index.js', function: 'Runtime.handler', line: 12, column: 3, in_app: false },
  ]);
  const lambda = normalizeCloudLogEvent({ eventId: 'e2', timestamp: 1, message: LAMBDA_ERROR }, now)!;
  t.match(lambda, { type: 'RangeError', message: 'Invalid array length', level: 'error' });
  t.same(lambda.frames, [{ file: '/var/task/src/grid.js', function: 'grid', line: 7, column: 9, in_app: true }]);
  const pino = normalizeCloudLogEvent(
    {
      eventId: 'e3',
      timestamp: 1,
      message: JSON.stringify({
        level: 60,
        msg: 'db down',
        err: {
          type: 'ConnectionError',
          message: 'ECONNREFUSED 10.0.0.5:5432',
          stack: 'ConnectionError: ECONNREFUSED\n    at connect (/app/db.js:3:1)',
        },
        env: 'production',
        version: '2.3.1',
      }),
    },
    now,
  )!;
  t.match(pino, {
    type: 'ConnectionError',
    message: 'ECONNREFUSED 10.0.0.5:5432',
    level: 'fatal',
    environment: 'production',
    release: '2.3.1',
  });
  const py = normalizeCloudLogEvent(
    {
      eventId: 'e4',
      timestamp: 1,
      message:
        'Traceback (most recent call last):\n  File "/var/task/app.py", line 9, in handler\n    total = cart["total"]\nKeyError: \'total\'',
    },
    now,
  )!;
  t.match(py, { type: 'KeyError', message: "'total'", level: 'error' });
  t.same(py.frames, [{ file: '/var/task/app.py', function: 'handler', line: 9, in_app: true }]);
  t.match(normalizeCloudLogEvent({ eventId: 'e5', timestamp: 1, message: '[FATAL] out of memory' }, now), {
    type: 'Error',
    message: 'out of memory',
    level: 'fatal',
  });
  t.equal(normalizeCloudLogEvent({ eventId: 'e6', timestamp: 1, message: 'INFO request done' }, now), null);
  t.equal(
    normalizeCloudLogEvent({ eventId: 'e7', timestamp: 1, message: JSON.stringify({ level: 'info', msg: 'ok' }) }, now),
    null,
  );
  t.equal(normalizeCloudLogEvent({ eventId: 'e8', timestamp: 1, message: '' }, now), null);
  t.end();
});
