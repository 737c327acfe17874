import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { createEnvelope, makeDsn, serializeEnvelope, type Event } from '@sentry/core';
import type { Answer } from '../../../test/helpers/api-types.js';
import { startProactive, type ProactiveHarness, type Reply } from './helpers.js';

/**
 * The Sentry protocol's wire rules (docs/proactive.md, "Sentry SDKs"): the DSN, the three places a
 * key may come from, compressed bodies, CORS for browsers, pauses and rate limits. Envelopes are
 * written by @sentry/core's own serializer; plugins/proactive/test/sentry-node.test.ts and
 * sentry-browser.test.ts drive the real SDKs end to end.
 */

const eventId = () => randomBytes(16).toString('hex');
const errorEvent = (id = eventId(), message = 'Cannot read properties of undefined'): Event => ({
  event_id: id,
  timestamp: Date.now() / 1000,
  platform: 'node',
  level: 'error',
  release: 'shop@1.4.0',
  environment: 'production',
  exception: {
    values: [
      {
        type: 'TypeError',
        value: message,
        stacktrace: {
          frames: [{ filename: '/app/src/cart.js', function: 'total', lineno: 12, colno: 7, in_app: true }],
        },
      },
    ],
  },
  sdk: { name: 'sentry.javascript.node', version: '11.12.0' },
});

interface Dsn {
  url: string;
  key: string;
  projectId: string;
}

const envelopeOf = (events: Event[], extra: Array<[Record<string, unknown>, unknown]> = [], dsn?: string): Buffer =>
  Buffer.from(
    serializeEnvelope(
      createEnvelope({ event_id: events[0]?.event_id, sent_at: new Date().toISOString(), ...(dsn ? { dsn } : {}) }, [
        ...events.map((e) => [{ type: 'event' }, e]),
        ...extra,
      ] as never),
    ) as string,
  );

async function setUp(t: Test, config: Record<string, unknown> = {}) {
  const h = await startProactive(t, config);
  const owner = await h.owner();
  const ws = await h.workspace(owner);
  const created = await h.createConnector(owner, ws.id, { kind: 'endpoint', name: 'Shop (Sentry SDK)' });
  const connector = created.body.connector as { id: string; dsn: string };
  const dsnUrl = connector.dsn;
  const parsed = makeDsn(dsnUrl)!;
  const dsn: Dsn = { url: dsnUrl, key: parsed.publicKey ?? '', projectId: parsed.projectId };
  return { h, owner, ws, connectorId: connector.id, dsn };
}

/**
 * An envelope POSTed to `path`: `/api/<project>/envelope/` as the SDKs write it, with its trailing slash (which the
 * router strips) and any query, so the answer is typed as the envelope operation's.
 */
const post = async (
  h: ProactiveHarness,
  path: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<Reply<'POST', '/api/{project_id}/envelope'>> => {
  const res = await h.call(null, 'POST', path, body, { 'content-type': 'application/x-sentry-envelope', ...headers });
  return { ...res, body: res.body as Answer<'POST', '/api/{project_id}/envelope'> };
};
const auth = (key: string) => ({
  'x-sentry-auth': `Sentry sentry_version=7, sentry_client=sentry.javascript.node/11.12.0, sentry_key=${key}`,
});
const storedEvents = async (h: ProactiveHarness, connectorId: string) =>
  Number(
    ((await h.app.db('error_events').where({ connector_id: connectorId }).count({ n: '*' }).first()) as { n: string })
      .n,
  );

void t.test('the DSN: what every SDK parses, one per endpoint connector, replaced with the token', async (t) => {
  const { h, owner, ws, connectorId, dsn } = await setUp(t);
  t.match(dsn.url, /^http:\/\/[0-9a-f]{32}@[^/]+\/\d+$/, 'scheme://<32 hex>@host/<numeric project id>');
  t.ok(makeDsn(dsn.url), "@sentry/core's DSN parser takes it");
  const other = await h.createConnector(owner, ws.id, { kind: 'endpoint', name: 'Other' });
  t.not(
    makeDsn((other.body.connector as { dsn: string }).dsn)!.projectId,
    dsn.projectId,
    'each connector its own project id',
  );
  const tracker = await h.call(owner, 'GET', `/v1/connectors/${connectorId}`);
  t.equal(tracker.body.dsn, dsn.url, 'the DSN stays in every connector answer');

  const before = await post(h, `/api/${dsn.projectId}/envelope/`, envelopeOf([errorEvent()]), auth(dsn.key));
  t.equal(before.status, 200);
  const rotated = await h.call(owner, 'POST', `/v1/connectors/${connectorId}/rotate-token`);
  t.equal(rotated.status, 200);
  const next = makeDsn((rotated.body.connector as { dsn: string }).dsn)!;
  t.equal(next.projectId, dsn.projectId, 'rotation keeps the project id');
  t.not(next.publicKey, dsn.key, 'and replaces the key');
  const old = await post(h, `/api/${dsn.projectId}/envelope/`, envelopeOf([errorEvent()]), auth(dsn.key));
  t.equal(old.status, 401, 'the old DSN is refused');
  const fresh = await post(
    h,
    `/api/${dsn.projectId}/envelope/`,
    envelopeOf([errorEvent()]),
    auth(next.publicKey ?? ''),
  );
  t.equal(fresh.status, 200, 'the new one is taken');
});

void t.test('the key comes from X-Sentry-Auth, the sentry_key query parameter or the envelope header', async (t) => {
  const { h, connectorId, dsn } = await setUp(t);
  const path = `/api/${dsn.projectId}/envelope/`;

  const byHeader = errorEvent();
  const res = await post(h, path, envelopeOf([byHeader]), auth(dsn.key));
  t.equal(res.status, 200);
  t.match(res.body, { id: byHeader.event_id, accepted: 1, duplicates: 0, skipped: {} }, 'Sentry answers {id}');

  const byQuery = await post(h, `${path}?sentry_key=${dsn.key}&sentry_version=7`, envelopeOf([errorEvent()]));
  t.equal(byQuery.status, 200, 'query parameter (browser SDKs)');
  const byDsn = await post(h, path, envelopeOf([errorEvent()], [], dsn.url));
  t.equal(byDsn.status, 200, "the envelope header's dsn (tunnels)");
  const store = await h.call(null, 'POST', `/api/${dsn.projectId}/store/`, Buffer.from(JSON.stringify(errorEvent())), {
    'content-type': 'application/json',
    ...auth(dsn.key),
  });
  t.equal(store.status, 200, 'the store endpoint takes one event');
  t.equal(await storedEvents(h, connectorId), 4);

  const wrongKey = await post(h, path, envelopeOf([errorEvent()]), auth('0'.repeat(32)));
  t.equal(wrongKey.status, 401, 'a wrong key: 401');
  t.equal(wrongKey.body.code, 'unauthenticated');
  const headerWinsOverDsn = await post(h, path, envelopeOf([errorEvent()], [], dsn.url), auth('f'.repeat(32)));
  t.equal(headerWinsOverDsn.status, 401, 'a wrong key in the header is not saved by a right one in the body');
  t.equal((await post(h, path, envelopeOf([errorEvent()]))).status, 401, 'no key at all: 401');
  t.equal(
    (await post(h, '/api/999999999/envelope/', envelopeOf([errorEvent()]), auth(dsn.key))).status,
    401,
    'another project',
  );
  t.equal((await post(h, '/api/shop/envelope/', envelopeOf([errorEvent()]), auth(dsn.key))).status, 401, 'no number');
  t.equal(await storedEvents(h, connectorId), 4, 'nothing refused was stored');
});

void t.test('gzip, deflate and br bodies; redelivery stored once; other items counted, not stored', async (t) => {
  const { h, connectorId, dsn } = await setUp(t);
  const path = `/api/${dsn.projectId}/envelope/`;
  const same = errorEvent();
  for (const [encoding, encode] of [
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const) {
    const res = await post(h, path, encode(envelopeOf([errorEvent()])), {
      ...auth(dsn.key),
      'content-encoding': encoding,
    });
    t.equal(res.status, 200, encoding);
    t.equal(res.body.accepted, 1);
  }
  const unknown = await post(h, path, envelopeOf([errorEvent()]), { ...auth(dsn.key), 'content-encoding': 'compress' });
  t.match([unknown.status, unknown.body.code], [400, 'invalid_payload'], 'another encoding: 400');
  const corrupt = await post(h, path, Buffer.from('not gzip at all'), { ...auth(dsn.key), 'content-encoding': 'gzip' });
  t.match([corrupt.status, corrupt.body.code], [400, 'invalid_payload'], 'a corrupt stream: 400');

  const session = [
    { type: 'session' },
    { sid: eventId(), status: 'ok', started: new Date().toISOString(), attrs: { release: 'shop@1.4.0' } },
  ];
  const report = [{ type: 'client_report' }, { timestamp: Date.now() / 1000, discarded_events: [] }];
  const first = await post(h, path, envelopeOf([same], [session, report] as never), auth(dsn.key));
  t.match(first.body, { accepted: 1, duplicates: 0, skipped: { session: 1, client_report: 1 } });
  const again = await post(h, path, envelopeOf([same]), auth(dsn.key));
  t.match(again.body, { id: same.event_id, accepted: 0, duplicates: 1 }, 'an SDK retry of the same event_id');
  t.equal(await storedEvents(h, connectorId), 4, 'three encodings and one event sent twice');

  const onlySession = await post(h, path, envelopeOf([], [session] as never), auth(dsn.key));
  t.match(onlySession.body, { id: null, accepted: 0, skipped: { session: 1 } }, 'sessions alone are counted');
  const notEnvelope = await post(h, path, Buffer.from('{"event_id": 1}\n{not json'), auth(dsn.key));
  t.match([notEnvelope.status, notEnvelope.body.code], [400, 'invalid_payload'], 'no envelope: 400');
});

void t.test('a decoded body larger than the limit is refused, whatever its compressed size', async (t) => {
  const { h, dsn } = await setUp(t, {
    plugins: { proactive: { options: { ingest: { maxSentryBodyBytes: 64 * 1024 } } } },
  });
  const bomb = gzipSync(Buffer.concat([envelopeOf([errorEvent()]), Buffer.alloc(1024 * 1024, 32)]));
  t.ok(bomb.length < 64 * 1024, `compressed: ${bomb.length} bytes`);
  const res = await post(h, `/api/${dsn.projectId}/envelope/`, bomb, { ...auth(dsn.key), 'content-encoding': 'gzip' });
  t.match([res.status, res.body.code], [413, 'payload_too_large']);
});

void t.test("browsers: CORS from the workspace's allowed origins only", async (t) => {
  const { h, ws, dsn } = await setUp(t);
  await h.app
    .db('workspaces')
    .where({ id: ws.id })
    .update({ widget_allowed_origins: JSON.stringify(['https://*.shop.example']) });
  const path = `/api/${dsn.projectId}/envelope/?sentry_key=${dsn.key}&sentry_version=7`;
  const browser = { 'content-type': 'text/plain;charset=UTF-8' };

  const ok = await post(h, path, envelopeOf([errorEvent()]), { ...browser, origin: 'https://www.shop.example' });
  t.equal(ok.status, 200);
  t.equal(ok.headers['access-control-allow-origin'], 'https://www.shop.example');
  t.match(ok.headers['access-control-expose-headers'], /X-Sentry-Rate-Limits/);
  const other = await post(h, path, envelopeOf([errorEvent()]), { ...browser, origin: 'https://evil.example' });
  t.match([other.status, other.body.code], [403, 'origin_not_allowed'], 'another origin: 403');
  t.notOk(other.headers['access-control-allow-origin'], 'without CORS headers');

  const preflight = await h.call(null, 'OPTIONS', `/api/${dsn.projectId}/envelope/`, undefined, {
    origin: 'https://www.shop.example',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'content-type, x-sentry-auth',
  });
  t.equal(preflight.status, 204, 'preflight');
  t.equal(preflight.headers['access-control-allow-origin'], 'https://www.shop.example');
  t.match(preflight.headers['access-control-allow-headers'], /x-sentry-auth/);
  const refused = await h.call(null, 'OPTIONS', `/api/${dsn.projectId}/envelope/`, undefined, {
    origin: 'https://evil.example',
  });
  t.equal(refused.status, 403, 'preflight from another origin');
});

void t.test('a paused connector and an overloaded service answer as the SDKs expect', async (t) => {
  const { h, owner, connectorId, dsn } = await setUp(t, {
    plugins: { proactive: { options: { ingest: { maxQueuedEvents: 1, retryAfterSeconds: 7 } } } },
  });
  const path = `/api/${dsn.projectId}/envelope/`;
  const overloaded = await post(h, path, envelopeOf([errorEvent(), errorEvent()]), auth(dsn.key));
  t.equal(overloaded.status, 429, 'more than the queue takes: 429');
  t.equal(overloaded.headers['retry-after'], '7');
  t.equal(overloaded.headers['x-sentry-rate-limits'], '7::organization', 'every category held back for as long');
  t.equal(await storedEvents(h, connectorId), 0, 'nothing of it was stored');

  const paused = await h.call(owner, 'POST', `/v1/connectors/${connectorId}/pause`);
  t.equal(paused.status, 200);
  const res = await post(h, path, envelopeOf([errorEvent()]), auth(dsn.key));
  t.match([res.status, res.body.code], [409, 'connector_paused']);
});

void t.test("the SDK's context is kept with the event and masked like its message", async (t) => {
  const { h, owner, dsn } = await setUp(t);
  const event: Event = {
    ...errorEvent(),
    user: { id: 'u-42', email: 'jane.doe@example.com' },
    tags: { plan: 'pro', customer: 'jane.doe@example.com' },
    breadcrumbs: [
      { timestamp: Date.now() / 1000, category: 'ui.click', message: 'clicked "Pay" as jane.doe@example.com' },
      {
        timestamp: Date.now() / 1000,
        category: 'fetch',
        data: { url: '/api/cart?email=jane.doe@example.com', status_code: 500 },
      },
    ],
  };
  const res = await post(h, `/api/${dsn.projectId}/envelope/`, envelopeOf([event]), auth(dsn.key));
  t.equal(res.status, 200);
  const detail = await h.call(owner, 'GET', `/v1/error-groups/${res.body.group_ids[0]}`);
  const [stored] = detail.body.events;
  t.match(stored.context, {
    tags: { plan: 'pro', customer: 'j***@e***.com' },
    breadcrumbs: [
      { category: 'ui.click', message: 'clicked "Pay" as j***@e***.com' },
      { category: 'fetch', data: { url: '/api/cart?email=j***@e***.com', status_code: 500 } },
    ],
    sdk: { name: 'sentry.javascript.node', version: '11.12.0' },
  });
  t.notMatch(JSON.stringify(stored), /jane\.doe@example\.com/, 'the address appears nowhere in the answer');
});
