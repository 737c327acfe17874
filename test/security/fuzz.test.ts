import t from 'tap';
import fc from 'fast-check';
import type { JsonSchema, OpenApiDocument } from '../../core/http/openapi-types.js';
import { signUp, type SignedUp } from '../helpers/accounts.js';
import { ALL_PLUGINS, createWorkspace, startSecurityApp, uid, watchWrites } from './helpers.js';

/**
 * Every operation of the service's own OpenAPI document gets malformed requests (wrong types,
 * nulls, NULs, unpaired surrogates, huge strings, unknown fields, prototype keys, in the path,
 * the query and the body), signed in and not. No answer is a 5xx; text Postgres cannot store
 * answers 4xx; and an operation whose answers were all refusals stored nothing.
 *
 * Bounded for CI (FUZZ_RUNS random cases per operation and caller, default 2, besides the fixed ones); FUZZ_SEED replays a run.
 * The service runs the api role only, so no consumer writes in the background between the
 * before and after counts.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 2);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
}
interface Operation {
  id: string;
  method: string;
  path: string;
  params: Param[];
  body: { type: string; schema: JsonSchema } | null;
  anonymous: boolean;
}

/** The keywords of a JSON Schema the sampler reads. */
type SchemaNode = {
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  type?: string | string[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  minItems?: number;
  items?: SchemaNode;
  required?: string[];
  properties?: Record<string, SchemaNode>;
};

/** Strings Postgres cannot store as they are: the guard must refuse them wherever they appear. */
const UNSTORABLE = ['a\u0000b', '\u0000', 'x\ud800', '\udfffy', 'ok\ud83d'];
const NASTY = [
  '__proto__',
  'constructor',
  'prototype',
  '',
  ' ',
  '../../etc/passwd',
  "' or 1=1 --",
  '%00',
  '\u202e',
  '😀😀',
  'null',
  '-1',
  '1e999',
  'ws_00000000000000000000000000',
];
const HUGE = 'h'.repeat(200_000);

const unstorable = fc.constantFrom(...UNSTORABLE);
const malformed: fc.Arbitrary<unknown> = fc.oneof(
  unstorable,
  fc.constantFrom(...NASTY),
  fc.constant(HUGE),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.oneof(unstorable, fc.constantFrom(...NASTY)), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('a', '__proto__', 'constructor', 'k\u0000'), fc.oneof(unstorable, fc.integer()), {
    maxKeys: 2,
  }),
);

/** What a request carries: which part is malformed, and how. */
interface Variant {
  kind: 'field' | 'unknown' | 'proto' | 'root' | 'query' | 'path' | 'every-string';
  value: unknown;
  pick: number;
  idChoice: number;
}

const variant = fc.record({
  kind: fc.constantFrom<Variant['kind']>('field', 'field', 'unknown', 'proto', 'root', 'query', 'path'),
  value: malformed,
  pick: fc.nat(),
  idChoice: fc.nat(),
});

function containsUnstorable(v: unknown): boolean {
  if (typeof v === 'string')
    return UNSTORABLE.some((u) => v.includes(u)) || !(v as string & { isWellFormed(): boolean }).isWellFormed();
  if (Array.isArray(v)) return v.some(containsUnstorable);
  if (v && typeof v === 'object')
    return Object.entries(v).some(([k, x]) => containsUnstorable(k) || containsUnstorable(x));
  return false;
}

/** Percent-encoding that keeps an unpaired surrogate as the bytes a client could send (CESU-8), where encodeURIComponent throws. */
function enc(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    out +=
      ch.length === 1 && c >= 0xd800 && c <= 0xdfff
        ? [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('')
        : encodeURIComponent(ch);
  }
  return out;
}

/** JSON text of a value (an unpaired surrogate is written as its \u escape, so it arrives as one). */
const json = (v: unknown): string => JSON.stringify(v);

function resolve(doc: OpenApiDocument, schema: JsonSchema | undefined): SchemaNode {
  let s = (schema ?? {}) as SchemaNode;
  for (let i = 0; i < 10 && s.$ref; i++) s = doc.components.schemas[String(s.$ref).split('/').pop()!] ?? {};
  return s;
}

/** A plausible value for a schema: what a well-meaning client would send, to get past validation to the deeper code. */
function sample(doc: OpenApiDocument, raw: JsonSchema | undefined, depth = 0): unknown {
  const s = resolve(doc, raw);
  if (depth > 4) return null;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum.find((e) => e !== null) ?? s.enum[0];
  const alt = s.anyOf ?? s.oneOf;
  if (Array.isArray(alt) && alt.length)
    return sample(doc, alt.find((a) => resolve(doc, a).type !== 'null') ?? alt[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  switch (type) {
    case 'string': {
      if (s.format === 'email') return `fuzz-${uid()}@example.test`;
      if (s.format === 'uri' || s.format === 'url') return 'http://127.0.0.1:9/fuzz';
      if (s.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      if (s.format === 'date') return '2030-01-01';
      const len = Math.min(Math.max(Number(s.minLength ?? 0), 4), Number(s.maxLength ?? 4));
      return 'fuzz'.padEnd(len, 'z').slice(0, Math.max(len, 1));
    }
    case 'integer':
    case 'number':
      return Math.max(Number(s.minimum ?? 1), 1);
    case 'boolean':
      return true;
    case 'array':
      return Number(s.minItems ?? 0) > 0 ? [sample(doc, s.items, depth + 1)] : [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) out[k] = sample(doc, s.properties?.[k], depth + 1);
      return out;
    }
    default:
      return null;
  }
}

function operations(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op?.operationId) continue;
      const content = op.requestBody?.content;
      const type = content ? Object.keys(content)[0] : null;
      ops.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        params: [...((item as { parameters?: Param[] }).parameters ?? []), ...(op.parameters ?? [])],
        body: type ? { type, schema: content![type].schema ?? {} } : null,
        anonymous:
          Array.isArray(op.security) &&
          (op.security.length === 0 || op.security.some((s) => Object.keys(s).length === 0)),
      });
    }
  }
  return ops;
}

/** The cases every operation gets whatever the seed: a NUL in each path id, in the query, in every string of a body; an unpaired surrogate in a body. */
function examples(op: Operation): [Variant][] {
  const out: [Variant][] = [[{ kind: 'query', value: 'a\u0000b', pick: 0, idChoice: 0 }]];
  if (op.params.some((p) => p.in === 'path')) out.push([{ kind: 'path', value: 'x\u0000y', pick: 0, idChoice: 0 }]);
  if (op.body?.type === 'application/json') {
    out.push(
      [{ kind: 'every-string', value: '\u0000', pick: 0, idChoice: 0 }],
      [{ kind: 'every-string', value: '\ud800', pick: 0, idChoice: 0 }],
    );
  }
  return out;
}

interface Built {
  method: string;
  url: string;
  payload?: string;
  headers: Record<string, string>;
  unstorable: boolean;
}

function build(doc: OpenApiDocument, op: Operation, v: Variant, ids: string[]): Built {
  let unstorable = false;
  const realId = ids[v.idChoice % ids.length];
  let url = op.path.replace(/\{([^}]+)\}/g, () => {
    // DELETE never gets a real id: it could end the caller's own organization for the rest of the run.
    if (v.kind === 'path') {
      const value = typeof v.value === 'string' ? v.value : json(v.value);
      if (containsUnstorable(value)) unstorable = true;
      return enc(value.slice(0, 5000)) || 'x';
    }
    return op.method === 'DELETE' ? `nope_${uid()}` : realId;
  });
  const query = new URLSearchParams();
  const queryParams = op.params.filter((p) => p.in === 'query');
  for (const p of queryParams) if (p.required) query.set(p.name, String(sample(doc, p.schema)));
  let search = query.toString();
  if (v.kind === 'query') {
    const name = queryParams.length ? queryParams[v.pick % queryParams.length].name : 'unknown_param';
    const value = typeof v.value === 'string' ? v.value : json(v.value);
    // Invalid UTF-8 in a query string is read as U+FFFD; a NUL stays a NUL.
    if (value.includes('\u0000')) unstorable = true;
    search += `${search ? '&' : ''}${enc(name)}=${enc(value.slice(0, 5000))}`;
  }
  if (search) url += `?${search}`;

  const headers: Record<string, string> = {};
  if (!op.body || !['POST', 'PUT', 'PATCH'].includes(op.method)) return { method: op.method, url, headers, unstorable };
  if (op.body.type !== 'application/json') {
    // A raw body of another type (a MIME message, a form): NULs in the bytes.
    headers['content-type'] = op.body.type;
    const text = op.body.type.includes('form')
      ? `a=${enc(String(v.value))}`
      : `Subject: fuzz\r\n\r\n${String(v.value).slice(0, 5000)}`;
    return { method: op.method, url, headers, payload: text, unstorable: false };
  }
  headers['content-type'] = 'application/json';
  const base = sample(doc, op.body.schema);
  let payload: string;
  if (v.kind === 'root' || base === null || typeof base !== 'object' || Array.isArray(base)) {
    payload = v.kind === 'root' ? json(v.value) : json(base);
    if (v.kind === 'root' && containsUnstorable(v.value)) unstorable = true;
  } else {
    const body = base as Record<string, unknown>;
    if (v.kind === 'every-string' && typeof v.value === 'string') {
      // Every string of a plausible body gets the text appended: the request is valid but for it.
      const spoil = (x: unknown): unknown =>
        typeof x === 'string'
          ? x + (v.value as string)
          : Array.isArray(x)
            ? x.map(spoil)
            : x && typeof x === 'object'
              ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, spoil(y)]))
              : x;
      const spoiled = spoil(body);
      if (containsUnstorable(spoiled)) unstorable = true;
      return { method: op.method, url, headers, payload: json(spoiled), unstorable };
    }
    const props = Object.keys(resolve(doc, op.body.schema).properties ?? {});
    if (v.kind === 'field' && props.length) {
      body[props[v.pick % props.length]] = v.value;
      if (containsUnstorable(v.value)) unstorable = true;
    } else if (v.kind === 'unknown') {
      body[`unknown_${v.pick % 7}`] = v.value;
      if (containsUnstorable(v.value)) unstorable = true;
    }
    payload = json(body);
    // Own __proto__ and constructor keys, as a client's JSON can carry them (an object literal cannot).
    if (v.kind === 'proto')
      payload = payload.replace(
        /^\{/,
        '{"__proto__":{"role":"owner","staff":true},"constructor":{"prototype":{"staff":true}},',
      );
    if (payload.startsWith('{,')) payload = '{' + payload.slice(2);
    payload = payload.replace(/,\}$/, '}');
  }
  return { method: op.method, url, headers, payload, unstorable };
}

t.test('malformed requests to every operation: no 5xx, unstorable text refused, refusals store nothing', async (t) => {
  const app = await startSecurityApp(t, ALL_PLUGINS, undefined, ['api']);

  const doc = JSON.parse((await app.server.inject({ url: '/v1/openapi.json' })).payload) as OpenApiDocument;
  const ops = operations(doc);
  t.ok(ops.length >= 240, `the document lists every operation (${ops.length})`);

  let signups = 0;
  const newOwner = async (): Promise<{ owner: SignedUp; ids: string[] }> => {
    // A different client address each time: signups are limited per address.
    const owner = await signUp(app);
    signups++;
    const ws = await createWorkspace(app, owner);
    return { owner, ids: [ws.id, owner.user.id, owner.organization.id, `ws_${'0'.repeat(26)}`] };
  };
  let who = await newOwner();
  const writes = await watchWrites(app);
  const failures: string[] = [];
  const timing: [number, string][] = [];
  t.comment(`fuzz seed ${SEED}, ${RUNS} runs per operation and caller`);

  for (const [i, op] of ops.entries()) {
    for (const signedIn of [false, true]) {
      await writes.take();
      const t0 = Date.now();
      const answers: number[] = [];
      await fc.assert(
        fc.asyncProperty(variant, async (v) => {
          const req = build(doc, op, v, who.ids);
          const res = await app.server.inject({
            method: req.method,
            url: req.url,
            payload: req.payload,
            headers: { ...req.headers, ...(signedIn ? who.owner.auth.headers : {}) },
            remoteAddress: `10.9.${i % 250}.${signedIn ? 2 : 1}`,
          });
          answers.push(res.statusCode);
          if (res.statusCode >= 500)
            failures.push(
              `${op.id} ${req.method} ${req.url.slice(0, 200)} ${String(req.payload ?? '').slice(0, 200)} → ${res.statusCode} ${res.payload.slice(0, 300)}`,
            );
          if (req.unstorable && res.statusCode < 400)
            failures.push(
              `${op.id} accepted unstorable text: ${req.url.slice(0, 200)} ${String(req.payload ?? '').slice(0, 200)} → ${res.statusCode}`,
            );
          return true;
        }),
        // Without a credential a signed-in route answers 401 before reading anything but the path: one run and the path case.
        signedIn || op.anonymous
          ? { numRuns: RUNS, seed: SEED + i * 2 + (signedIn ? 1 : 0), examples: examples(op) }
          : { numRuns: 1, seed: SEED + i * 2, examples: examples(op).filter(([v]) => v.kind === 'path') },
      );
      timing.push([Date.now() - t0, `${op.id} ${signedIn}`]);
      const changed = await writes.take();
      if (answers.every((s) => s >= 400)) {
        if (changed.length)
          failures.push(
            `${op.id} (${signedIn ? 'signed in' : 'anonymous'}) refused every request but changed: ${changed.join(', ')}`,
          );
      }
      // A run that signed the owner out (logout, a password change) or removed the organization: start again.
      if (
        signedIn &&
        (await app.server.inject({ url: '/v1/auth/me', headers: who.owner.auth.headers })).statusCode !== 200
      )
        who = await newOwner();
    }
  }
  if (process.env.FUZZ_TIMING)
    t.comment(
      timing
        .sort((a, b) => b[0] - a[0])
        .slice(0, 30)
        .map((x) => x.join(' '))
        .join('\n'),
    );
  t.same(failures, [], `no 5xx and no stored refusal over ${ops.length} operations (${signups} owners signed up)`);
});
