import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { testConfig } from '../helpers/db.js';
import { loadAdapters, resolvePlugins, type PluginLoader } from '../../core/kernel/loader.js';
import { builtinAdapters } from '../../adapters/index.js';
import { builtinPlugins } from '../../plugins/index.js';
import { asFunction, createContainer } from 'awilix';
import type { Request } from '@hapi/hapi';
import { KEYS } from '../../core/kernel/keys.js';
import type { Principal } from '../../core/http/auth.js';
import type { OpenApiDocument } from '../../core/http/openapi-types.js';
import { signUp } from '../helpers/accounts.js';
import type { Answer, ApiError } from '../helpers/api-types.js';

/** The error envelope an answer's text holds. */
const envelope = (payload: string) => JSON.parse(payload) as ApiError;

const hello = { plugins: { hello: { module: './test/fixtures/plugins/hello.ts', options: { greeting: 'ciao' } } } };

t.test('an enabled partner plugin serves its routes and documents them', async (t) => {
  const app = await startTestApp(t, hello);
  const res = await app.server.inject('/v1/hello');
  t.equal(res.statusCode, 200);
  t.same(JSON.parse(res.payload), { greeting: 'ciao' });
  t.ok(res.headers['x-request-id'], 'every answer carries a request id');
  const doc = JSON.parse((await app.server.inject('/v1/openapi.json')).payload) as OpenApiDocument;
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0');
  t.ok(doc.paths['/v1/hello']?.get, 'the route is in the document');
  t.ok(doc.tags.some((tag) => tag.name === 'hello'));
  t.ok(doc.paths['/v1/health']?.get && doc.paths['/v1/health/ready']?.get, 'health is documented');
});

t.test('a disabled plugin registers nothing', async (t) => {
  const app = await startTestApp(t, {
    plugins: { hello: { module: './test/fixtures/plugins/hello.ts', enabled: false } },
  });
  const res = await app.server.inject('/v1/hello');
  t.equal(res.statusCode, 404);
  t.equal(envelope(res.payload).code, 'not_found');
  const doc = JSON.parse((await app.server.inject('/v1/openapi.json')).payload) as OpenApiDocument;
  t.notOk(doc.paths['/v1/hello'], 'its paths leave the document');
  t.notOk(
    (doc.tags ?? []).some((tag) => tag.name === 'hello'),
    'its tag leaves the document',
  );
  t.notOk(app.plugins.includes('hello'));
});

t.test('plugin options are validated at boot and name the key', async (t) => {
  const config = testConfig({
    plugins: { hello: { module: './test/fixtures/plugins/hello.ts', options: { greeting: 'x'.repeat(50) } } },
  });
  await t.rejects(resolvePlugins(config, builtinPlugins), {
    name: 'ConfigError',
    message: /plugins\.hello\.options\.greeting/,
  });
});

t.test('a missing requirement stops boot with a clear message', async (t) => {
  const config = testConfig({ plugins: { needy: { module: './test/fixtures/plugins/needy.ts' } } });
  await t.rejects(resolvePlugins(config, builtinPlugins), {
    name: 'ConfigError',
    message: /plugin needy requires plugin hello/,
  });
  const uses = testConfig({
    plugins: {
      hello: { module: './test/fixtures/plugins/hello.ts' },
      needy: { module: './test/fixtures/plugins/needy.ts' },
    },
    adapters: { payment: null },
  });
  await t.rejects(resolvePlugins(uses, builtinPlugins), {
    message: /uses the payment extension point, but config key adapters\.payment selects no adapter/,
  });
});

t.test('an unknown adapter name stops boot', async (t) => {
  const config = testConfig({ adapters: { channel: 'mail-pigeon' } });
  await t.rejects(
    loadAdapters(config, createContainer(), builtinAdapters),
    /adapters\.channel: unknown adapter "mail-pigeon" \(shipped: agent-builtin, /,
  );
});

t.test('the core loads only the plugins and adapters its caller hands it', async (t) => {
  // A registry of one partner plugin, by name: config needs no "module" path for it.
  const registry: Record<string, PluginLoader> = {
    hello: () => import('../fixtures/plugins/hello.js'),
  };
  const only = await resolvePlugins(testConfig({ plugins: { console: { enabled: false } } }), registry);
  t.same(
    only.map((p) => p.definition.name),
    ['hello'],
    'no shipped plugin comes in from elsewhere',
  );
  t.same(only[0].options, { greeting: 'hello' }, 'its options are validated with defaults');
  await t.rejects(
    resolvePlugins(testConfig(), registry),
    { name: 'ConfigError', message: /config key plugins\.console: unknown plugin/ },
    'a plugin config turns on but the registry lacks stops boot',
  );
  const mailOnly = { 'mail-outbox': builtinAdapters['mail-outbox'] };
  await t.rejects(
    loadAdapters(testConfig({ adapters: { channel: 'mail-pigeon' } }), createContainer(), mailOnly),
    /unknown adapter "mail-pigeon" \(shipped: mail-outbox\)/,
    'the message lists the registry it was given',
  );
});

t.test('the error envelope', async (t) => {
  const app = await startTestApp(t, hello);
  const inject = (o: Parameters<typeof app.server.inject>[0]) => app.server.inject(o);
  /** POST /v1/hello with a raw body of `type`. */
  const post = (payload: string, type: string) =>
    inject({ method: 'POST', url: '/v1/hello', payload, headers: { 'content-type': type } });

  const unknown = await inject('/v1/nope');
  t.equal(unknown.statusCode, 404);
  t.match(JSON.parse(unknown.payload), {
    statusCode: 404,
    error: 'Not Found',
    code: 'not_found',
    message: /No route for GET \/v1\/nope/,
  });

  const malformed = await post('{"name":', 'application/json');
  t.equal(malformed.statusCode, 400);
  t.equal(envelope(malformed.payload).code, 'invalid_request');

  const invalid = await inject({ method: 'POST', url: '/v1/hello', payload: { name: '', times: 9, extra: true } });
  t.equal(invalid.statusCode, 400);
  const body = envelope(invalid.payload);
  t.equal(body.code, 'invalid_request');
  t.same(
    (body.details?.errors as Array<{ path: string }>).map((e) => e.path).sort(),
    ['payload.extra', 'payload.name', 'payload.times'],
    'every failing field is listed',
  );

  const wrongType = await post('name=x', 'application/x-www-form-urlencoded');
  t.equal(wrongType.statusCode, 415);
  t.equal(envelope(wrongType.payload).code, 'unsupported_media_type');

  const big = await post(JSON.stringify({ name: 'x'.repeat(2_000_000) }), 'application/json');
  t.equal(big.statusCode, 413);
  t.equal(envelope(big.payload).code, 'payload_too_large');

  const boom = await inject('/v1/hello/boom');
  t.equal(boom.statusCode, 500);
  t.equal(envelope(boom.payload).code, 'internal_error');
  t.notMatch(boom.payload, /secret internal detail/, 'a 500 never leaks the error');
  t.notMatch(boom.payload, /at .*\.ts:\d+/, 'nor a stack');
  t.equal(envelope(boom.payload).details?.request_id, boom.headers['x-request-id']);

  const anon = await inject('/v1/hello/private');
  t.equal(anon.statusCode, 401);
  t.equal(envelope(anon.payload).code, 'unauthenticated');
});

t.test('health: liveness and readiness', async (t) => {
  const app = await startTestApp(t);
  const live = await app.server.inject('/v1/health');
  t.equal(live.statusCode, 200);
  t.equal((JSON.parse(live.payload) as Answer<'GET', '/v1/health'>).status, 'ok');
  const ready = await app.server.inject('/v1/health/ready');
  t.equal(ready.statusCode, 200);
  t.match(JSON.parse(ready.payload), { status: 'ok', checks: { database: { ok: true }, bus: { ok: true } } });
});

t.test('plugin consumers: one scope per message, idempotent, retried, fed by the outbox', async (t) => {
  const app = await startTestApp(t, hello);
  const seen = app.container.resolve('helloSeen') as {
    id: string;
    attempt: number;
    hasTrx: boolean;
    scopedMessageId: string;
  }[];
  const res = await app.server.inject({ method: 'POST', url: '/v1/hello/greet', payload: { fail: true } });
  t.equal(res.statusCode, 202);
  const { id } = JSON.parse(res.payload) as { id: string };
  const deadline = Date.now() + 10_000;
  while (!seen.some((s) => s.attempt === 2) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.same(
    seen.map((s) => s.attempt),
    [1, 2],
    'the failed first attempt is retried',
  );
  t.ok(
    seen.every((s) => s.id === id && s.scopedMessageId === id && s.hasTrx),
    'the scope holds the message and a transaction',
  );
  // A redelivery of the same message id is recognised by the inbox.
  await app.bus.publish({ id, type: 'hello.greeted', orgId: null, occurredAt: new Date().toISOString(), payload: {} });
  await new Promise((r) => setTimeout(r, 300));
  t.equal(seen.length, 2, 'a redelivered message is handled once');
  const row = await app.db<{ id: string; published_at: Date | null }>('outbox').where({ id }).first();
  t.ok(row?.published_at, 'the outbox row is marked published');
});

t.test('the request scope: made on first use, holds the request and, after sign-in, the principal', async (t) => {
  const app = await startTestApp(t);
  // A scoped service a partner plugin could register: it reads the request's principal.
  app.container.register(
    'whoAmI',
    asFunction(({ principal }: { principal: Principal | null }) => ({ userId: principal?.userId ?? null })).scoped(),
  );
  const made: boolean[] = [];
  const answer = (request: Request) => {
    const scope = request.app.scope as unknown as { made: unknown };
    made.push(scope.made !== null);
    const sameRequest = request.app.scope.resolve(KEYS.request) === request;
    return {
      sameRequest,
      who: request.app.scope.container.resolve<{ userId: string | null }>('whoAmI').userId,
      again: request.app.scope.container === request.app.scope.container,
    };
  };
  app.server.route({ method: 'GET', path: '/v1/test-scope/public', options: { auth: false }, handler: answer });
  app.server.route({ method: 'GET', path: '/v1/test-scope/private', handler: answer });
  app.server.route({
    method: 'GET',
    path: '/v1/test-scope/untouched',
    options: { auth: false },
    handler: (request) => ({ made: (request.app.scope as unknown as { made: unknown }).made !== null }),
  });

  const owner = await signUp(app);
  const anon = await app.server.inject('/v1/test-scope/public');
  t.same(
    JSON.parse(anon.payload),
    { sameRequest: true, who: null, again: true },
    'an anonymous request: its own request, no principal, one scope',
  );
  const signedIn = await app.server.inject({ url: '/v1/test-scope/private', ...owner.auth });
  t.same(
    JSON.parse(signedIn.payload),
    { sameRequest: true, who: owner.user.id, again: true },
    "a signed-in request's scope knows its principal",
  );
  t.same(made, [false, false], 'no scope exists before a handler asks for one');
  t.same(
    JSON.parse((await app.server.inject('/v1/test-scope/untouched')).payload),
    { made: false },
    'a request that never asks makes none',
  );
});

t.test('cookie requests from a foreign Origin are refused before anything runs', async (t) => {
  const app = await startTestApp(t, hello);
  const foreign = await app.server.inject({
    method: 'POST',
    url: '/v1/hello',
    payload: { name: 'x' },
    headers: { cookie: 'pw_session=abc', origin: 'https://evil.example' },
  });
  t.equal(foreign.statusCode, 403);
  t.equal(envelope(foreign.payload).code, 'forbidden');
  const own = await app.server.inject({
    method: 'POST',
    url: '/v1/hello',
    payload: { name: 'x' },
    headers: { cookie: 'pw_session=abc', origin: 'http://localhost:3000' },
  });
  t.equal(own.statusCode, 200, 'the public base URL is an allowed origin');
  const noCookie = await app.server.inject({
    method: 'POST',
    url: '/v1/hello',
    payload: { name: 'x' },
    headers: { origin: 'https://evil.example' },
  });
  t.equal(noCookie.statusCode, 200, 'without the cookie there is nothing to forge');
});

t.test('graceful stop lets an in-flight request finish', async (t) => {
  const { testConfig: cfg } = await import('../helpers/db.js');
  const { createApp } = await import('../../core/kernel/app.js');
  const { pgliteTemplate } = await import('../../core/data/pglite-template.js');
  const config = cfg({ ...hello, server: { port: 0, host: '127.0.0.1' } });
  const pglite = config.database.url ? undefined : await pgliteTemplate();
  const app = await createApp(config, { plugins: builtinPlugins, adapters: builtinAdapters, pgliteTemplate: pglite });
  await app.start({ scheduler: false });
  const url = `http://127.0.0.1:${app.server.info.port}/v1/hello/slow`;
  const pending = fetch(url).then((r) => r.json());
  await new Promise((r) => setTimeout(r, 100));
  const stopped = app.stop();
  t.same(await pending, { done: true }, 'the request started before stop completes');
  await stopped;
  await t.rejects(fetch(url), 'new connections are refused after stop');
  const { dropTestSchema } = await import('../helpers/db.js');
  await dropTestSchema(config);
});

t.test('internal errors are reported through @sentry/node when SENTRY_DSN is set', async (t) => {
  const http = await import('node:http');
  const received: string[] = [];
  const sink = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  t.teardown(() => sink.close());
  const port = (sink.address() as { port: number }).port;
  const app = await startTestApp(t, { ...hello, sentry: { dsn: `http://publickey@127.0.0.1:${port}/1` } });
  const res = await app.server.inject('/v1/hello/boom');
  t.equal(res.statusCode, 500);
  const deadline = Date.now() + 5000;
  while (!received.some((b) => b.includes('secret internal detail')) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  t.ok(
    received.some((b) => b.includes('secret internal detail')),
    'the error reached the Sentry endpoint',
  );
  t.ok(
    received.some((b) => b.includes(res.headers['x-request-id'] as string)),
    'tagged with the request id',
  );
});

t.test('core housekeeping tasks purge old outbox, inbox and rate-limit rows', async (t) => {
  const app = await startTestApp(t);
  const old = new Date(Date.now() - 30 * 24 * 3600 * 1000);
  await app.db('outbox').insert({ id: 'evt_old', type: 'x.y', payload: '{}', created_at: old, published_at: old });
  await app.db('inbox').insert({ consumer: 'c', message_id: 'm', handled_at: old });
  await app.db('rate_limits').insert({ key: 'k', window_start: old, count: 1 });
  for (const task of ['core.purge-outbox', 'core.purge-inbox', 'core.purge-rate-limits'])
    await app.scheduler.runNow(task);
  t.equal((await app.db('outbox').where({ id: 'evt_old' })).length, 0);
  t.equal((await app.db('inbox').where({ consumer: 'c' })).length, 0);
  t.equal((await app.db('rate_limits').where({ key: 'k' })).length, 0);
  const runs = await app.db('scheduled_tasks').whereIn('name', ['core.purge-outbox', 'core.purge-inbox']);
  t.equal(runs.length, 2, 'runs are recorded');
});
