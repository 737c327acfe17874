// The real @sentry/node SDK, in child processes, reports to Patchwell through a connector's DSN
// (issue 29; docs/proactive.md, "Sentry SDKs"). The service listens on a real port behind a
// recording proxy (the DSN's host: the service's public base URL), which sees every request the
// SDK sends and what it was answered, keeps the bytes for redelivery and can lose an answer.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { parseEnvelope } from '@sentry/core';
import t from 'tap';
import { startProactive } from './helpers.js';

const APP = fileURLToPath(new URL('./fixtures/sentry-node-app.mjs', import.meta.url));
const RETRY_AFTER_S = 2;

/** A command to the shop (fixtures/sentry-node-app.mjs), one JSON line on its stdin. */
type ShopCommand = { op: 'fail'; order: string } | { op: 'flush' };
/** The shop's answer, one JSON line on its stdout: the captured event's id, whether the flush completed, or what threw. */
interface ShopAnswer {
  event_id?: string | null;
  flushed?: boolean;
  error?: string;
}

/** One request the SDK sent, as the proxy saw it, and what the service answered. */
interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The event ids of the envelope's event items (none: a client report, a session…). */
  events: string[];
  status: number | null;
  answer: Record<string, string>;
  at: number;
}

function eventIds(headers: http.IncomingHttpHeaders, body: Buffer): string[] {
  const raw = headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
  const [, items] = parseEnvelope(raw);
  return items.filter(([h]) => h.type === 'event').map(([, p]) => (p as { event_id: string }).event_id);
}

/** A request's headers as a client sends them again (without those of its connection). */
const forwarded = (headers: http.IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).filter(
      ([k, v]) => typeof v === 'string' && !['host', 'connection', 'transfer-encoding', 'content-length'].includes(k),
    ),
  ) as Record<string, string>;

/** A recording proxy in front of the service; `loseAnswer(order)` drops the answer to the next event of that order. */
async function startProxy() {
  const seen: Seen[] = [];
  let target = '';
  let lose: string | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry: Seen = {
        url: req.url ?? '',
        headers: req.headers,
        body,
        events: eventIds(req.headers, body),
        status: null,
        answer: {},
        at: Date.now(),
      };
      seen.push(entry);
      void fetch(`${target}${entry.url}`, {
        method: req.method,
        headers: forwarded(req.headers),
        body: new Uint8Array(body),
      })
        .then(async (up) => {
          entry.status = up.status;
          for (const k of ['retry-after', 'x-sentry-rate-limits', 'content-type']) {
            const v = up.headers.get(k);
            if (v !== null) entry.answer[k] = v;
          }
          const text = await up.text();
          if (lose !== null && body.includes(lose)) {
            // Stored by the service, but the SDK never hears it: its transport retries on a new socket.
            lose = null;
            req.socket.destroy();
            return;
          }
          res.writeHead(up.status, entry.answer).end(text);
        })
        .catch((err: unknown) => res.writeHead(502).end(String(err)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    forward(to: string) {
      target = to;
    },
    loseAnswer(order: string) {
      lose = `for order ${order}`;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The application with the SDK in a child process (fixtures/sentry-node-app.mjs), driven one command at a time. */
function startShop(dsn: string) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [APP], {
    env: { ...process.env, SENTRY_DSN: dsn, NODE_OPTIONS: '' },
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const answers: ShopAnswer[] = [];
  const waiting: Array<(a: ShopAnswer) => void> = [];
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const a = JSON.parse(out.slice(0, nl)) as ShopAnswer;
      out = out.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(a);
      else answers.push(a);
    }
  });
  const send = (command: ShopCommand): Promise<ShopAnswer> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the shop did not answer ${JSON.stringify(command)}: ${stderr}`)),
        20_000,
      );
      waiting.push((a) => {
        clearTimeout(timer);
        resolve(a);
      });
      child.stdin.write(`${JSON.stringify(command)}\n`);
    });
  return {
    /** The checkout of `order` throws; the SDK captures and flushes: the event id and whether the flush completed. */
    fail: (order: string) =>
      send({ op: 'fail', order }) as Promise<{ event_id: string; flushed: boolean; error?: string }>,
    get alive() {
      return child.exitCode === null;
    },
    stderr: () => stderr,
    stop: () =>
      new Promise<number | null>((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.stdin.end();
      }),
  };
}

const proxy = await startProxy();
t.teardown(() => proxy.close());
// The queue holds one event: a second one waiting for its commit is refused with 429 (the rate-limit scenario).
const h = await startProactive(t, {
  server: { publicBaseUrl: proxy.url },
  plugins: {
    proactive: {
      options: { ingest: { maxQueuedEvents: 1, retryAfterSeconds: RETRY_AFTER_S, connectorCacheMs: 60_000 } },
    },
  },
});
const listener = h.app.server.listener;
await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise<void>((r) => listener.close(() => r())));
proxy.forward(`http://127.0.0.1:${(listener.address() as AddressInfo).port}`);

const owner = await h.owner();
const ws = await h.workspace(owner);
const created = await h.createConnector(owner, ws.id, { kind: 'endpoint', name: 'Shop backend' });
if (created.status !== 201) throw new Error(`connector: ${created.status} ${created.payload}`);
// An endpoint connector (201): its DSN and push token are set.
const connectorId = created.body.connector.id;
const dsn = created.body.connector.dsn!;
const pushToken = created.body.token!;
const shop = startShop(dsn);
t.teardown(() => shop.stop());

/** The events the proactive store has for the connector, with the given SDK event id. */
const stored = async (eventId: string): Promise<number> => {
  const row = (await h.app
    .db('error_events')
    .where({ connector_id: connectorId, external_id: eventId })
    .count({ n: '*' })
    .first()) as { n: number | string };
  return Number(row.n);
};
const storedForConnector = async (): Promise<number> => {
  const row = (await h.app.db('error_events').where({ connector_id: connectorId }).count({ n: '*' }).first()) as {
    n: number | string;
  };
  return Number(row.n);
};
const groups = async () => (await h.errorGroups(owner, ws.id)).items;
const detail = async (id: string) => {
  const res = await h.call(owner, 'GET', `/v1/error-groups/${id}`);
  if (res.status !== 200) throw new Error(res.payload);
  return res.body;
};
const sentFor = (eventId: string) => proxy.seen.filter((s) => s.events.includes(eventId));
/** What the service answered to each request that carried the event. */
const statuses = (eventId: string) => sentFor(eventId).map((s) => s.status);

void t.test('the DSN is a Sentry DSN on the service public URL, with a numeric project id', async (t) => {
  const url = new URL(dsn);
  t.equal(`${url.protocol}//${url.host}`, proxy.url);
  t.match(url.username, /^[0-9a-f]{32}$/, 'a 32 hex public key');
  t.match(url.pathname, /^\/\d+$/, 'a numeric project id');
  t.notOk(pushToken.includes(url.username), 'the key is not the push token');
  const again = await h.call(owner, 'GET', `/v1/connectors/${connectorId}`);
  t.equal(again.body.dsn, dsn, 'every connector answer shows it');
});

void t.test(
  'a captured exception becomes an error group with the SDK frames, release, environment and context',
  async (t) => {
    const sent = await shop.fail('1001');
    t.same([sent.flushed, sent.error], [true, undefined], shop.stderr());
    const [request] = sentFor(sent.event_id);
    t.equal(request?.status, 200, 'the envelope is accepted');
    t.match(request.url, new RegExp(`^/api/${new URL(dsn).pathname.slice(1)}/envelope/`));

    const list = await groups();
    t.equal(list.length, 1, 'one group');
    const group = list[0];
    t.equal(group.type, 'PaymentDeclined', "the SDK's exception type");
    t.match(group.title, /Card declined for order/);
    t.equal(group.event_count, 1);
    t.equal(group.release, 'shop@1.4.2');
    t.same(group.sources, ['endpoint']);

    const d = await detail(group.id);
    const fns = d.frames.filter((f) => f.in_app).map((f) => f.function);
    t.ok(
      fns.includes('chargeCard') && fns.includes('checkout'),
      `the application's frames are in_app: ${fns.join(', ')}`,
    );
    t.ok(
      d.frames.some((f) => !f.in_app && f.file.startsWith('node:')),
      "Node's own frames are not in_app",
    );
    t.same(d.environments, ['production']);
    t.same(
      d.releases.map((r) => r.release),
      ['shop@1.4.2'],
    );
    const event = d.events.find((e) => e.external_id === sent.event_id);
    t.ok(event, 'the event carries the SDK event id');
    t.equal(event?.release, 'shop@1.4.2');
    t.equal(event?.environment, 'production');
    t.equal(event?.type, 'PaymentDeclined');
    t.match(event?.message, /Card declined for order 1001/);
    t.equal(event?.user?.id, 'customer-42', "the SDK's user");
    t.ok(
      event?.user?.email && event.user.email !== 'mario.rossi@example.com',
      'with the address masked, as every sample event',
    );
    t.equal(group.affected_users, 1, 'and counted as an affected user');

    // Tags, breadcrumbs and the SDK, as the console shows them with the group's events.
    const ctx = event?.context;
    t.same(ctx?.sdk, { name: 'sentry.javascript.node', version: '11.12.0' }, "the SDK's name and version");
    t.equal(ctx?.tags?.shop, 'eu-1', 'the tag');
    t.ok(
      ctx?.breadcrumbs?.some((b) => b.category === 'cart' && b.message === 'checkout of order 1001'),
      'the breadcrumb',
    );
  },
);

void t.test('redelivery and an SDK retry store one event each', async (t) => {
  const first = await shop.fail('2001');
  t.equal(first.flushed, true);
  const [request] = sentFor(first.event_id);
  t.equal(await stored(first.event_id), 1);

  // The same bytes posted again, as a proxy or a retrying relay would.
  const again = await fetch(`${proxy.url}${request.url}`, {
    method: 'POST',
    headers: forwarded(request.headers),
    body: new Uint8Array(request.body),
  });
  t.equal(again.status, 200, 'a redelivery is answered as a success');
  t.match(await again.json(), { id: first.event_id, accepted: 0, duplicates: 1 }, 'named a duplicate');
  t.equal(await stored(first.event_id), 1, 'and stored once');

  // The service stores 2004 but its answer is lost; the SDK's transport sends the envelope again on a new socket
  // (it does so when a kept-alive socket is reset: 2003 just went over it).
  const countBefore = (await groups())[0].event_count;
  proxy.loseAnswer('2004');
  t.equal((await shop.fail('2003')).flushed, true);
  const second = await shop.fail('2004');
  t.equal(second.error, undefined, 'the SDK does not throw into the application');
  const deliveries = sentFor(second.event_id);
  t.equal(deliveries.length, 2, 'the SDK sent it twice');
  t.ok(deliveries[0].body.equals(deliveries[1].body), 'the same envelope');
  t.same(statuses(second.event_id), [200, 200], 'both answered');
  t.equal(await stored(second.event_id), 1, 'stored once');
  t.equal((await groups())[0].event_count, countBefore + 2, '2003 and 2004 counted once each');
});

void t.test('a DSN with a wrong key or another project id is refused with 401; the SDK carries on', async (t) => {
  const before = await storedForConnector();
  const url = new URL(dsn);
  const wrongKey = new URL(dsn);
  wrongKey.username = 'f'.repeat(32);
  const wrongProject = new URL(dsn);
  wrongProject.pathname = `/${Number(url.pathname.slice(1)) + 1_000_000}`;
  // Two applications at once (each child takes seconds to load the SDK).
  const strangers = (
    [
      ['another key', wrongKey.href, '3001'],
      ['another project id', wrongProject.href, '3002'],
    ] as const
  ).map(([what, bad, order]) => ({ what, order, app: startShop(bad) }));
  for (const { what, order, app } of strangers) {
    const sent = await app.fail(order);
    t.equal(sent.error, undefined, `${what}: the SDK does not throw`);
    t.equal(sent.flushed, true, `${what}: the flush completes`);
    t.same(statuses(sent.event_id), [401], `${what}: 401`);
    t.ok(app.alive, `${what}: the application still runs`);
  }
  t.same(await Promise.all(strangers.map(({ app }) => app.stop())), [0, 0], 'and both end normally');
  t.equal(await storedForConnector(), before, 'nothing stored');
});

void t.test('a 429 with Retry-After stops the SDK sending until the limit ends', async (t) => {
  // Hold the group writer on a lock: the one event the queue holds waits, so the next one is refused.
  // (Its connector is looked up first: on PGlite the lock holds the only connection.)
  const token = pushToken;
  t.equal((await h.ingest(connectorId, token, { message: 'waiting for its commit' })).status, 202);
  const lock = await h.app.db.transaction();
  await lock.raw('lock table error_groups in exclusive mode');
  const filler = h.ingest(connectorId, token, { message: 'waiting for its commit' });
  for (let i = 0; i < 200 && h.app.container.cradle.errorIngest.depth < 1; i++)
    await new Promise((r) => setTimeout(r, 10));
  t.equal(h.app.container.cradle.errorIngest.depth, 1, 'the queue is full');

  const limited = await shop.fail('4001');
  const [refused] = sentFor(limited.event_id);
  t.equal(refused?.status, 429, 'refused while the queue is full');
  t.equal(refused?.answer['retry-after'], String(RETRY_AFTER_S), 'with Retry-After');
  t.match(refused?.answer['x-sentry-rate-limits'], new RegExp(`^${RETRY_AFTER_S}:`), 'and X-Sentry-Rate-Limits');
  const limitEnds = refused.at + RETRY_AFTER_S * 1000;

  // While the limit holds the SDK drops its events instead of sending them.
  const during = [await shop.fail('4002'), await shop.fail('4003')];
  t.ok(Date.now() < limitEnds, 'both captured within the limit');
  await lock.commit();
  t.equal((await filler).status, 202);
  t.same(
    during.map((e) => sentFor(e.event_id).length),
    [0, 0],
    'no request while the limit held',
  );
  t.equal(
    proxy.seen.filter((s) => s.events.length && s.at > refused.at && s.at < limitEnds).length,
    0,
    'no event reached the server during the limit',
  );

  await new Promise((r) => setTimeout(r, Math.max(0, limitEnds - Date.now() + 200)));
  const after = await shop.fail('4004');
  t.same(statuses(after.event_id), [200], 'after the limit the SDK sends again');
  t.equal(await stored(after.event_id), 1);
  t.equal(await stored(limited.event_id), 0, 'the refused event was not stored');
});

void t.test('a rotated token changes the DSN: the old one is refused afterwards', async (t) => {
  const rotated = await h.call(owner, 'POST', `/v1/connectors/${connectorId}/rotate-token`);
  t.equal(rotated.status, 200);
  const fresh = rotated.body.connector.dsn!;
  t.not(fresh, dsn, 'a new DSN');
  t.equal(new URL(fresh).pathname, new URL(dsn).pathname, 'for the same project');

  const old = await shop.fail('5001');
  t.same(statuses(old.event_id), [401], 'the old DSN is refused');
  t.equal(await stored(old.event_id), 0);

  const renewed = startShop(fresh);
  const sent = await renewed.fail('5002');
  t.same(statuses(sent.event_id), [200], 'the new DSN is accepted');
  t.equal(await stored(sent.event_id), 1);
  await renewed.stop();
});
