import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { testConfig } from '../helpers/db.js';
import { resolvePlugins } from '../../core/kernel/loader.js';

const hello = { plugins: { hello: { module: './test/fixtures/plugins/hello.ts', options: { greeting: 'ciao' } } } };

t.test('an enabled partner plugin serves its routes and documents them', async (t) => {
  const app = await startTestApp(t, hello);
  const res = await app.server.inject('/v1/hello');
  t.equal(res.statusCode, 200);
  t.same(JSON.parse(res.payload), { greeting: 'ciao' });
  t.ok(res.headers['x-request-id'], 'every answer carries a request id');
  const doc = JSON.parse((await app.server.inject('/v1/openapi.json')).payload);
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0');
  t.ok(doc.paths['/v1/hello']?.get, 'the route is in the document');
  t.ok(doc.tags.some((tag: { name: string }) => tag.name === 'hello'));
  t.ok(doc.paths['/v1/health']?.get && doc.paths['/v1/health/ready']?.get, 'health is documented');
});

t.test('a disabled plugin registers nothing', async (t) => {
  const app = await startTestApp(t, { plugins: { hello: { module: './test/fixtures/plugins/hello.ts', enabled: false } } });
  const res = await app.server.inject('/v1/hello');
  t.equal(res.statusCode, 404);
  t.equal(JSON.parse(res.payload).code, 'not_found');
  const doc = JSON.parse((await app.server.inject('/v1/openapi.json')).payload);
  t.notOk(doc.paths['/v1/hello'], 'its paths leave the document');
  t.notOk((doc.tags ?? []).some((tag: { name: string }) => tag.name === 'hello'), 'its tag leaves the document');
  t.notOk(app.plugins.includes('hello'));
});

t.test('plugin options are validated at boot and name the key', async (t) => {
  const config = testConfig({ plugins: { hello: { module: './test/fixtures/plugins/hello.ts', options: { greeting: 'x'.repeat(50) } } } });
  await t.rejects(resolvePlugins(config), { name: 'ConfigError', message: /plugins\.hello\.options\.greeting/ });
});

t.test('a missing requirement stops boot with a clear message', async (t) => {
  const config = testConfig({ plugins: { needy: { module: './test/fixtures/plugins/needy.ts' } } });
  await t.rejects(resolvePlugins(config), { name: 'ConfigError', message: /plugin needy requires plugin hello/ });
  const uses = testConfig({ plugins: { hello: { module: './test/fixtures/plugins/hello.ts' }, needy: { module: './test/fixtures/plugins/needy.ts' } }, adapters: { payment: null } });
  await t.rejects(resolvePlugins(uses), { message: /uses the payment extension point, but config key adapters\.payment selects no adapter/ });
});

t.test('an unknown adapter name stops boot', async (t) => {
  const { loadAdapters } = await import('../../core/kernel/loader.js');
  const { createContainer } = await import('awilix');
  const config = testConfig({ adapters: { channel: 'mail-pigeon' } });
  await t.rejects(loadAdapters(config, createContainer()), /adapters\.channel: unknown adapter "mail-pigeon"/);
});

t.test('the error envelope', async (t) => {
  const app = await startTestApp(t, hello);
  const inject = (o: Parameters<typeof app.server.inject>[0]) => app.server.inject(o);

  const unknown = await inject('/v1/nope');
  t.equal(unknown.statusCode, 404);
  t.match(JSON.parse(unknown.payload), { statusCode: 404, error: 'Not Found', code: 'not_found', message: /No route for GET \/v1\/nope/ });

  const malformed = await inject({ method: 'POST', url: '/v1/hello', payload: '{"name":', headers: { 'content-type': 'application/json' } });
  t.equal(malformed.statusCode, 400);
  t.equal(JSON.parse(malformed.payload).code, 'invalid_request');

  const invalid = await inject({ method: 'POST', url: '/v1/hello', payload: { name: '', times: 9, extra: true } });
  t.equal(invalid.statusCode, 400);
  const body = JSON.parse(invalid.payload);
  t.equal(body.code, 'invalid_request');
  t.same(body.details.errors.map((e: { path: string }) => e.path).sort(), ['payload.extra', 'payload.name', 'payload.times'], 'every failing field is listed');

  const wrongType = await inject({ method: 'POST', url: '/v1/hello', payload: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(wrongType.statusCode, 415);
  t.equal(JSON.parse(wrongType.payload).code, 'unsupported_media_type');

  const big = await inject({ method: 'POST', url: '/v1/hello', payload: JSON.stringify({ name: 'x'.repeat(2_000_000) }), headers: { 'content-type': 'application/json' } });
  t.equal(big.statusCode, 413);
  t.equal(JSON.parse(big.payload).code, 'payload_too_large');

  const boom = await inject('/v1/hello/boom');
  t.equal(boom.statusCode, 500);
  t.equal(JSON.parse(boom.payload).code, 'internal_error');
  t.notMatch(boom.payload, /secret internal detail/, 'a 500 never leaks the error');
  t.notMatch(boom.payload, /at .*\.ts:\d+/, 'nor a stack');
  t.equal(JSON.parse(boom.payload).details.request_id, boom.headers['x-request-id']);

  const anon = await inject('/v1/hello/private');
  t.equal(anon.statusCode, 401);
  t.equal(JSON.parse(anon.payload).code, 'unauthenticated');
});

t.test('health: liveness and readiness', async (t) => {
  const app = await startTestApp(t);
  const live = await app.server.inject('/v1/health');
  t.equal(live.statusCode, 200);
  t.equal(JSON.parse(live.payload).status, 'ok');
  const ready = await app.server.inject('/v1/health/ready');
  t.equal(ready.statusCode, 200);
  t.match(JSON.parse(ready.payload), { status: 'ok', checks: { database: { ok: true }, bus: { ok: true } } });
});
