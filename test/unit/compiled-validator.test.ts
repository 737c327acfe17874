import t from 'tap';
import fc from 'fast-check';
import Hapi from '@hapi/hapi';
import Joi from 'joi';
import { asIsJsonSchema, compiledAccepts, withCompiledCheck } from '../../core/http/compiled-validator.js';
import { schemaOf } from '../../core/http/validators.js';
import { buildOpenApiDocument } from '../../core/http/openapi.js';
import { eventsPayload } from '../../plugins/widget/schemas.js';

/** What widget.js sends (plugins/widget/client/widget.js, flush()). */
function widgetBody(n = 5): Record<string, unknown> {
  return {
    consent: true,
    user_id: 'user-42',
    browser: {
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
      language: 'it-IT',
      viewport: { width: 1280, height: 720 },
      screen: { width: 1920, height: 1080 },
    },
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

/** Same value, leaf by leaf with Object.is (so 0 and -0 differ); keys holding undefined count as absent, as in JSON. */
function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return false;
  const keys = (o: object) =>
    Object.keys(o)
      .filter((k) => (o as Record<string, unknown>)[k] !== undefined)
      .sort();
  const ka = keys(a);
  const kb = keys(b);
  if (Array.isArray(a) && a.length !== (b as unknown[]).length) return false;
  return (
    ka.length === kb.length &&
    ka.every((k, i) => k === kb[i] && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** The property under test: whatever the compiled check takes, joi takes too and returns unchanged. */
function joiAgrees(schema: Joi.Schema, value: unknown): string | null {
  if (!compiledAccepts(schema, value)) return null;
  const r = schema.validate(value);
  if (r.error) return `the check took a value joi refuses (${r.error.message})`;
  return sameValue(r.value, value) ? null : `joi changes it to ${JSON.stringify(r.value)}`;
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
  '',
  'x',
  'x'.repeat(201),
  'x'.repeat(4001),
  '😀'.repeat(2001),
  'true',
  'false',
  '5',
  '-0',
  ' padded ',
  'error',
  'fatal',
  'ERROR',
  'nope',
  '2026-11-26T10:00:00.000Z',
  '2026-11-26T10:00:00Z',
  '2026-11-26T10:00:00.000+00:00',
  '2026-02-30T10:00:00.000Z',
  '2026-11-26',
  'yesterday',
  0,
  -0,
  1,
  1.5,
  -1,
  100_000,
  100_001,
  2 ** 53,
  NaN,
  Infinity,
  true,
  false,
  null,
  undefined,
  [],
  {},
  [1],
  { a: 1 },
  '{"a":1}',
  '[]',
];

/** A copy of `body` with one value somewhere replaced, a key added or a key removed. */
function mutate(body: unknown, rand: () => number): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  const paths: Array<[Record<string, unknown> | unknown[], string | number]> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v))
      v.forEach((x, i) => {
        paths.push([v, i]);
        walk(x);
      });
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        paths.push([v as Record<string, unknown>, k]);
        walk(x);
      }
  };
  walk(copy);
  const [holder, key] = paths[Math.floor(rand() * paths.length)];
  const what = rand();
  if (what < 0.7)
    (holder as Record<string | number, unknown>)[key] = ODD_VALUES[Math.floor(rand() * ODD_VALUES.length)];
  else if (what < 0.85 && !Array.isArray(holder)) delete holder[key as string];
  else if (!Array.isArray(holder)) holder[`extra${Math.floor(rand() * 3)}`] = 'x';
  else holder.push(ODD_VALUES[Math.floor(rand() * ODD_VALUES.length)]);
  return copy;
}

t.test('what widget.js sends passes the compiled check, and joi agrees with it', async (t) => {
  for (const n of [1, 5, 20]) {
    const body = widgetBody(n);
    t.ok(compiledAccepts(eventsPayload, body), `${n} events`);
    const joi: unknown = await eventsPayload.validateAsync(body);
    t.same(joi, body, 'joi returns it unchanged');
  }
  t.notOk(compiledAccepts(eventsPayload, widgetBody(21)), '21 events: more than the schema allows');
});

t.test('the compiled check never takes what joi refuses or would change (2,000 mutated widget payloads)', (t) => {
  const rand = rng(8);
  let taken = 0;
  let refused = 0;
  for (let i = 0; i < 2000; i++) {
    let body: unknown = widgetBody(1 + Math.floor(rand() * 4));
    for (let m = 1 + Math.floor(rand() * 2); m > 0; m--) body = mutate(body, rand);
    if (eventsPayload.validate(body).error) refused++;
    if (compiledAccepts(eventsPayload, body)) taken++;
    const wrong = joiAgrees(eventsPayload, body);
    if (wrong) t.fail(`${wrong}: ${JSON.stringify(body)}`);
  }
  t.ok(taken > 200, `the check took ${taken} of them`);
  t.ok(refused > 500, `joi refused ${refused} of them`);
  t.end();
});

// ---- generated schemas and values (fast-check): the check is never looser than joi

// COMPILED_CHECK_RUNS and COMPILED_CHECK_SEED widen or replay the search (fixed by default: the same cases every run).
const RUNS = Number(process.env.COMPILED_CHECK_RUNS ?? 600);
const SEED = Number(process.env.COMPILED_CHECK_SEED ?? 28);

/** A small joi schema, described as data so that values can be generated to fit it (or nearly). */
type Spec =
  | {
      kind: 'string';
      min?: number;
      max?: number;
      empty: boolean;
      extra?: 'pattern' | 'iso' | 'trim' | 'lowercase' | 'email';
    }
  | { kind: 'number'; integer: boolean; min?: number; max?: number; greater?: number; unsafe: boolean }
  | { kind: 'boolean' }
  | { kind: 'valid'; values: Array<string | number> }
  | {
      kind: 'object';
      keys: Array<{ name: string; spec: Spec; presence: 'required' | 'optional' | 'default' }>;
      unknown: boolean;
    }
  | { kind: 'array'; item: Spec; itemRequired: boolean; min?: number; max?: number };

const small = fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined });
const specOf: fc.Memo<Spec> = fc.memo((depth) => {
  const leaves: Array<fc.Arbitrary<Spec>> = [
    fc.record({
      kind: fc.constant('string' as const),
      min: small,
      max: small,
      empty: fc.boolean(),
      extra: fc.option(
        fc.constantFrom('pattern' as const, 'iso' as const, 'trim' as const, 'lowercase' as const, 'email' as const),
        { nil: undefined },
      ),
    }),
    fc.record({
      kind: fc.constant('number' as const),
      integer: fc.boolean(),
      min: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }),
      max: fc.option(fc.integer({ min: -5, max: 50 }), { nil: undefined }),
      greater: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }),
      unsafe: fc.boolean(),
    }),
    fc.constant({ kind: 'boolean' as const }),
    fc.record({
      kind: fc.constant('valid' as const),
      values: fc.array(fc.oneof(fc.constantFrom('a', 'B', ''), fc.integer({ min: -1, max: 2 })), {
        minLength: 1,
        maxLength: 3,
      }),
    }),
  ];
  if (depth <= 1) return fc.oneof(...leaves);
  const presence = fc.constantFrom('required' as const, 'optional' as const, 'default' as const);
  const key = fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd'), spec: specOf(depth - 1), presence });
  return fc.oneof(
    ...leaves,
    fc.record({
      kind: fc.constant('object' as const),
      keys: fc.uniqueArray(key, { selector: (k) => k.name, maxLength: 4 }),
      unknown: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant('array' as const),
      item: specOf(depth - 1),
      itemRequired: fc.boolean(),
      min: small,
      max: small,
    }),
  );
});

function joiOf(s: Spec): Joi.Schema {
  switch (s.kind) {
    case 'string': {
      let j = Joi.string();
      if (s.min !== undefined) j = j.min(s.min);
      if (s.max !== undefined) j = j.max(s.max);
      if (s.empty) j = j.allow('');
      if (s.extra === 'pattern') j = j.pattern(/^[a-c]*$/);
      if (s.extra === 'iso') j = j.isoDate();
      if (s.extra === 'trim') j = j.trim();
      if (s.extra === 'lowercase') j = j.lowercase();
      if (s.extra === 'email') j = j.email({ tlds: false });
      return j;
    }
    case 'number': {
      let j = Joi.number();
      if (s.integer) j = j.integer();
      if (s.min !== undefined) j = j.min(s.min);
      if (s.max !== undefined) j = j.max(s.max);
      if (s.greater !== undefined) j = j.greater(s.greater);
      return s.unsafe ? j.unsafe() : j;
    }
    case 'boolean':
      return Joi.boolean();
    case 'valid':
      return Joi.valid(...s.values);
    case 'object': {
      const j = Joi.object(
        Object.fromEntries(
          s.keys.map((k) => {
            const child = joiOf(k.spec);
            return [
              k.name,
              k.presence === 'required'
                ? child.required()
                : k.presence === 'default'
                  ? child.default(defaultOf(k.spec))
                  : child,
            ];
          }),
        ),
      );
      return s.unknown ? j.unknown(true) : j;
    }
    case 'array': {
      let j = Joi.array().items(s.itemRequired ? joiOf(s.item).required() : joiOf(s.item));
      if (s.min !== undefined) j = j.min(s.min);
      if (s.max !== undefined) j = j.max(s.max);
      return j;
    }
  }
}

function defaultOf(s: Spec): string | number | boolean | object {
  return s.kind === 'number'
    ? 1
    : s.kind === 'boolean'
      ? true
      : s.kind === 'valid'
        ? s.values[0]
        : s.kind === 'object'
          ? {}
          : s.kind === 'array'
            ? []
            : 'd';
}

const oddValue = fc.oneof(
  fc.constantFrom(...ODD_VALUES),
  fc.string({ maxLength: 8 }),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);

/** Values shaped by the spec (so that many are taken), with odd values mixed in at every level. */
function valueOf(s: Spec): fc.Arbitrary<unknown> {
  const shaped = ((): fc.Arbitrary<unknown> => {
    switch (s.kind) {
      case 'string':
        return fc.oneof(
          fc.string({ maxLength: 8 }),
          fc.stringMatching(/^[a-c]{0,6}$/),
          fc.constantFrom(' a', 'A', 'a@b.co', '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00Z', '😀😀'),
        );
      case 'number':
        return fc.oneof(
          fc.integer({ min: -10, max: 60 }),
          fc.double({ min: -10, max: 60 }),
          fc.constantFrom(-0, 2 ** 53, -(2 ** 60), 0.5),
        );
      case 'boolean':
        return fc.oneof(fc.boolean(), fc.constantFrom('true', 'no', 1));
      case 'valid':
        return fc.oneof(fc.constantFrom(...s.values), fc.constantFrom('b', 'A', '1', 2));
      case 'object':
        return fc.record(
          Object.fromEntries([...s.keys.map((k) => [k.name, valueOf(k.spec)] as const), ['z', oddValue] as const]),
          { requiredKeys: [] },
        );
      case 'array':
        return fc.array(valueOf(s.item), { maxLength: 7 });
    }
  })();
  return fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: oddValue });
}

t.test('for generated joi schemas and values, whatever the check takes joi takes unchanged', (t) => {
  let taken = 0;
  let tried = 0;
  const pair = specOf(3).chain((spec) =>
    fc.tuple(fc.constant(spec), fc.array(valueOf(spec), { minLength: 5, maxLength: 5 })),
  );
  fc.assert(
    fc.property(pair, ([spec, values]) => {
      const schema = joiOf(spec);
      for (const value of values) {
        tried++;
        if (compiledAccepts(schema, value)) taken++;
        const wrong = joiAgrees(schema, value);
        if (wrong) throw new Error(`${wrong}: ${JSON.stringify(value)} with ${JSON.stringify(schema.describe())}`);
      }
    }),
    { numRuns: RUNS, seed: SEED },
  );
  t.ok(taken > tried / 10, `the check took ${taken} of ${tried} values (seed ${SEED})`);
  t.end();
});

t.test('rules the check does not model leave the value to joi', (t) => {
  const s = Joi.object({ a: Joi.string().trim(), b: Joi.string().pattern(/^x/i), c: Joi.string().max(5) });
  t.ok(compiledAccepts(s, { c: 'abc' }), 'only modelled keys present');
  t.notOk(compiledAccepts(s, { a: 'x', c: 'abc' }), 'trim: joi may change the value');
  t.notOk(compiledAccepts(s, { b: 'xy' }), 'a pattern with flags: joi decides');
  t.notOk(compiledAccepts(Joi.object({ a: Joi.string().default('x') }), {}), 'a default: joi fills it');
  t.ok(compiledAccepts(Joi.object({ a: Joi.string().default('x') }), { a: 'y' }), 'a default, the key given: as it is');
  t.notOk(
    compiledAccepts(Joi.object({ a: Joi.string() }).prefs({ convert: false }), { a: 'x' }),
    'preferences: joi decides',
  );
  t.notOk(compiledAccepts(Joi.object({ n: Joi.number() }), { n: -0 }), '-0 becomes 0');
  t.notOk(compiledAccepts(Joi.object({ n: Joi.number() }), { n: 2 ** 53 }), 'an unsafe number: joi refuses it');
  t.notOk(
    compiledAccepts(Joi.object({ d: Joi.string().isoDate() }), { d: '2026-11-26T10:00:00Z' }),
    'an ISO date joi would rewrite',
  );
  t.notOk(compiledAccepts(Joi.object({ f: Joi.boolean() }), { f: 'true' }), 'a string joi converts');
  t.notOk(
    compiledAccepts(Joi.object({ s: Joi.string().max(3) }), { s: '😀😀' }),
    'lengths in UTF-16 units, as joi counts them',
  );
  t.notOk(
    compiledAccepts(Joi.object({ e: Joi.string().email().required(), s: Joi.string() }), { e: 'a@b.co', s: 'x' }),
    'a required key it does not model',
  );
  t.notOk(compiledAccepts(Joi.object({ s: Joi.string() }), { s: 'x', other: 1 }), 'an unknown key: joi refuses it');
  t.ok(
    compiledAccepts(Joi.object({ s: Joi.string() }).unknown(), { s: 'x', other: 1 }),
    '.unknown(): other keys as they are',
  );
  t.end();
});

t.test("the JSON Schema behind the check is the OpenAPI converter's, narrowed", (t) => {
  const schema = asIsJsonSchema(eventsPayload) as {
    properties: Record<string, { properties?: Record<string, unknown> }>;
  };
  t.same(
    schema.properties.browser.properties!.viewport,
    {
      type: 'object',
      properties: {
        width: { type: 'integer', minimum: 0, maximum: 100_000, notNegativeZero: true },
        height: { type: 'integer', minimum: 0, maximum: 100_000, notNegativeZero: true },
      },
      required: ['width', 'height'],
      additionalProperties: false,
    },
    "joi's own bounds win over the safe-number bounds",
  );
  const email = asIsJsonSchema(Joi.object({ e: Joi.string().email() }));
  t.same(
    email,
    { type: 'object', properties: { e: { not: {} } }, additionalProperties: false },
    'an email key: never taken',
  );
  t.end();
});

t.test('through hapi: taken by the check or not, the route answers as with joi alone', async (t) => {
  const server = Hapi.server();
  const validated = withCompiledCheck(eventsPayload);
  server.route({
    method: 'POST',
    path: '/e',
    options: {
      id: 'createE',
      // the service's own validation options (core/kernel/app.ts)
      validate: {
        payload: validated,
        options: { abortEarly: false },
        failAction: (_r, _h, err) => {
          throw err ?? new Error('invalid request');
        },
      },
      // joi returns a copy; the compiled check hands on the parsed body itself
      handler: (request) => ({
        got: request.payload,
        checkTookIt: request.payload === (request.orig as { payload?: unknown }).payload,
      }),
    },
  });
  /** What the route above answers. */
  const echo = (payload: string) => JSON.parse(payload) as { got: Record<string, unknown>; checkTookIt: boolean };
  const ok = await server.inject({ method: 'POST', url: '/e', payload: widgetBody(2) });
  t.equal(ok.statusCode, 200);
  t.same(echo(ok.payload).got, widgetBody(2));
  t.equal(echo(ok.payload).checkTookIt, true, "widget.js's body skips joi");
  const converted = await server.inject({ method: 'POST', url: '/e', payload: { ...widgetBody(1), consent: 'true' } });
  t.equal(converted.statusCode, 200, 'joi still converts');
  t.equal(echo(converted.payload).got.consent, true);
  t.equal(echo(converted.payload).checkTookIt, false, 'a body joi converts goes to joi');
  const bad = await server.inject({ method: 'POST', url: '/e', payload: { ...widgetBody(1), events: [] } });
  t.equal(bad.statusCode, 400, 'joi still refuses');
  t.match(
    (JSON.parse(bad.payload) as { message: string }).message,
    /"events" must contain at least 1 items/,
    "with joi's own message",
  );
  t.equal(schemaOf(validated), eventsPayload, 'the joi schema stays reachable');
  const doc = buildOpenApiDocument(server, { title: 't', version: '1' });
  type Body = { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
  const body = (doc.paths['/e'] as { post: { requestBody?: Body } }).post.requestBody;
  t.ok(
    body?.content['application/json']?.schema.properties?.events,
    'OpenAPI documents the payload from the joi schema',
  );
});
