import t from 'tap';
import Hapi from '@hapi/hapi';
import Joi from 'joi';
import { fastAccepts, withFastPath } from '../../core/http/fast-path.js';
import { schemaOf } from '../../core/http/validators.js';
import { buildOpenApiDocument } from '../../core/http/openapi.js';
import { eventsPayload } from '../../plugins/widget/schemas.js';

/** What widget.js sends (plugins/widget/client/widget.js, flush()). */
function widgetBody(n = 5): Record<string, unknown> {
  return {
    consent: true,
    user_id: 'user-42',
    browser: { user_agent: 'Mozilla/5.0 (X11; Linux x86_64)', language: 'it-IT', viewport: { width: 1280, height: 720 }, screen: { width: 1920, height: 1080 } },
    events: Array.from({ length: n }, (_, i) => ({
      type: 'TypeError',
      message: `Cannot read properties of undefined (reading 'total') #${i}`,
      url: 'https://shop.example.com/cart',
      occurred_at: new Date(Date.UTC(2026, 10, 26, 10, 0, i)).toISOString(),
      level: 'error',
      stack: 'TypeError: x\n    at step (https://shop.example.com/app.js:1:2)',
      release: '1.2.0',
      environment: 'production',
    })),
  };
}

// A small seeded generator: the same cases on every run.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const ODD_VALUES: unknown[] = [
  '', 'x', 'x'.repeat(201), 'x'.repeat(4001), 'true', 'false', '5', '-0', ' padded ', 'error', 'fatal', 'ERROR', 'nope',
  '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00Z', '2026-02-30T10:00:00.000Z', '2026-11-26', 'yesterday',
  0, -0, 1, 1.5, -1, 100_000, 100_001, 2 ** 53, NaN, Infinity, true, false, null, undefined, [], {}, [1], { a: 1 }, '{"a":1}', '[]',
];

/** A copy of `body` with one value somewhere replaced, a key added or a key removed. */
function mutate(body: unknown, rand: () => number): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  const paths: Array<[Record<string, unknown> | unknown[], string | number]> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((x, i) => (paths.push([v, i]), walk(x)));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (paths.push([v as Record<string, unknown>, k]), walk(x));
  };
  walk(copy);
  const [holder, key] = paths[Math.floor(rand() * paths.length)]!;
  const what = rand();
  if (what < 0.7) (holder as Record<string | number, unknown>)[key] = ODD_VALUES[Math.floor(rand() * ODD_VALUES.length)];
  else if (what < 0.85 && !Array.isArray(holder)) delete (holder as Record<string, unknown>)[key as string];
  else if (!Array.isArray(holder)) (holder as Record<string, unknown>)[`extra${Math.floor(rand() * 3)}`] = 'x';
  else (holder as unknown[]).push(ODD_VALUES[Math.floor(rand() * ODD_VALUES.length)]);
  return copy;
}

t.test('what widget.js sends takes the fast path, and joi agrees with it', async (t) => {
  for (const n of [1, 5, 20]) {
    const body = widgetBody(n);
    t.ok(fastAccepts(eventsPayload, body), `${n} events`);
    const joi = await eventsPayload.validateAsync(body);
    t.same(joi, body, 'joi returns it unchanged');
  }
  t.notOk(fastAccepts(eventsPayload, widgetBody(21)), '21 events: more than the schema allows');
});

t.test('the fast path never accepts what joi refuses or would change (2,000 mutated payloads)', async (t) => {
  const rand = rng(8);
  let fast = 0;
  let refused = 0;
  for (let i = 0; i < 2000; i++) {
    let body: unknown = widgetBody(1 + Math.floor(rand() * 4));
    for (let m = 1 + Math.floor(rand() * 2); m > 0; m--) body = mutate(body, rand);
    const accepted = fastAccepts(eventsPayload, body);
    const r = eventsPayload.validate(body);
    if (r.error) refused++;
    if (!accepted) continue;
    fast++;
    if (r.error) t.fail(`fast path took a payload joi refuses (${r.error.message}): ${JSON.stringify(body)}`);
    else if (JSON.stringify(r.value) !== JSON.stringify(body) || Object.is((r.value as never as { x?: number }).x, -0)) t.fail(`joi changes it: ${JSON.stringify(body)}`);
  }
  t.ok(fast > 200, `the fast path took ${fast} of them`);
  t.ok(refused > 500, `joi refused ${refused} of them`);
});

t.test('rules the fast path does not know leave the value to joi', async (t) => {
  const s = Joi.object({ a: Joi.string().trim(), b: Joi.string().pattern(/^x/), c: Joi.string().max(5) });
  t.ok(fastAccepts(s, { c: 'abc' }), 'only known keys present');
  t.notOk(fastAccepts(s, { a: 'x', c: 'abc' }), 'trim: joi may change the value');
  t.notOk(fastAccepts(s, { b: 'xy' }), 'a pattern: joi decides');
  t.notOk(fastAccepts(Joi.object({ a: Joi.string().default('x') }), {}), 'a default: joi fills it');
  t.notOk(fastAccepts(Joi.object({ a: Joi.string() }).prefs({ convert: false }), { a: 'x' }), 'preferences: joi decides');
  t.notOk(fastAccepts(Joi.object({ n: Joi.number() }), { n: -0 }), '-0 becomes 0');
  t.notOk(fastAccepts(Joi.object({ d: Joi.string().isoDate() }), { d: '2026-11-26T10:00:00Z' }), 'an ISO date joi would rewrite');
  t.notOk(fastAccepts(Joi.object({ f: Joi.boolean() }), { f: 'true' }), 'a string joi converts');
});

t.test('through hapi: fast or not, the route answers as with joi alone', async (t) => {
  const server = Hapi.server();
  const validated = withFastPath(eventsPayload);
  server.route({
    method: 'POST',
    path: '/e',
    options: {
      id: 'createE',
      validate: { payload: validated, options: { abortEarly: false }, failAction: (_r, _h, err) => { throw err; } },
      handler: (request) => ({ got: request.payload }),
    },
  });
  const ok = await server.inject({ method: 'POST', url: '/e', payload: widgetBody(2) });
  t.equal(ok.statusCode, 200);
  t.same(JSON.parse(ok.payload).got, widgetBody(2));
  const converted = await server.inject({ method: 'POST', url: '/e', payload: { ...widgetBody(1), consent: 'true' } });
  t.equal(converted.statusCode, 200, 'joi still converts');
  t.equal(JSON.parse(converted.payload).got.consent, true);
  const bad = await server.inject({ method: 'POST', url: '/e', payload: { ...widgetBody(1), events: [] } });
  t.equal(bad.statusCode, 400, 'joi still refuses');
  t.match(JSON.parse(bad.payload).message, /events/);
  t.equal(schemaOf(validated), eventsPayload, 'the joi schema stays reachable');
  const doc = buildOpenApiDocument(server, { title: 't', version: '1' } as never);
  const body = (doc.paths['/e'] as { post: { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } } }).post.requestBody;
  t.ok(body?.content['application/json']?.schema.properties?.events, 'OpenAPI documents the payload from the joi schema');
});
