import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { isAdapterError } from '../../../core/contracts/index.js';
import { checkNormalizedEvent, connectorSettings } from '../../../test/contracts/connector-adapter.js';
import { normalizeSentryEvent } from '../../connector-common/sentry-event.js';
import { EndpointConnectorAdapter } from '../index.js';

// Bodies the real @sentry/node SDK sent (test/fixtures/sentry/capture.mjs writes them).
const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/sentry/${name}`, import.meta.url));
const lines = (body: Buffer) => body.toString('utf8').split('\n');
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
/** The raw event (third line) of a one-event envelope fixture. */
const rawEvent = (name: string) => json(lines(fixture(name))[2]);

const adapter = (o: Record<string, unknown> = {}) =>
  new EndpointConnectorAdapter(EndpointConnectorAdapter.validateOptions(o));
const settings = connectorSettings({}, {});
const envelope = (body: Buffer | string, a = adapter()) =>
  a.normalizeSentry('envelope', Buffer.isBuffer(body) ? body : Buffer.from(body), settings);
const store = (body: Buffer | string) =>
  adapter().normalizeSentry('store', Buffer.isBuffer(body) ? body : Buffer.from(body), settings);

void t.test('an error with a cause: the primary exception leads, the whole chain is in the stack', (t) => {
  const body = fixture('node-error-cause.envelope');
  const header = json(lines(body)[0]);
  const raw = rawEvent('node-error-cause.envelope');
  const push = envelope(body);
  t.equal(push.events.length, 1);
  t.same(push.skipped, {});
  const e = push.events[0];
  t.same(checkNormalizedEvent(e), [], 'the event fits the contract');
  t.equal(push.eventId, header.event_id, "the answer names the envelope's event id");
  t.equal(e.external_id, raw.event_id, 'the SDK event id deduplicates retries');
  t.equal(e.type, 'Error');
  t.equal(e.message, 'order failed');
  t.equal(e.level, 'error');
  t.equal(e.release, 'shop@2.4.1');
  t.equal(e.environment, 'staging');
  t.equal(e.occurred_at, new Date((raw.timestamp as number) * 1000).toISOString(), 'float seconds → ISO');
  t.equal(e.frames![0].function, 'placeOrder', 'the crashing frame first');
  t.match(e.frames![0], { file: /test\/fixtures\/sentry\/capture\.mjs$/, in_app: true });
  t.type(e.frames![0].line, 'number');
  t.type(e.frames![0].column, 'number');
  const [primary, cause] = e.stack!.split('\nCaused by: ');
  t.match(primary, /^Error: order failed\n {4}at placeOrder \(\/.+capture\.mjs:\d+:\d+\)\n/);
  t.match(cause, /^TypeError: Cannot read properties of undefined \(reading 'map'\)\n {4}at placeOrder \(/);
  t.notMatch(e.stack, / at \? \(/, 'anonymous functions print as V8 does, without a name');
  t.same(e.context!.sdk, { name: 'sentry.javascript.node', version: '11.12.0' });
  const [bundle, debugId] = Object.entries(e.context!.debug_ids!)[0];
  t.match(bundle, /capture\.mjs$/, 'debug ids by the file the SDK registered');
  t.equal(debugId, 'c0ffee00-1234-4abc-8def-0123456789ab');
  t.end();
});

void t.test('a handled error: tags, user, breadcrumbs and frames outside the app', (t) => {
  const [e] = envelope(fixture('node-handled.envelope')).events;
  t.equal(e.type, 'SyntaxError');
  t.same(e.user, { id: 'u-42', email: 'ada@example.com', username: 'ada', ip_address: '203.0.113.7' });
  t.same(e.context!.tags, { 'checkout.step': 'payment', tenant: 'acme' });
  t.match(e.frames![0], { function: 'JSON.parse', in_app: false }, 'the runtime frame is kept, not in the app');
  t.ok(
    e.frames!.some((f) => f.in_app === false && f.file.includes('node_modules/@sentry/')),
    'dependency frames keep in_app false',
  );
  const crumbs = e.context!.breadcrumbs!;
  t.match(crumbs.at(-2), { category: 'ui.click', message: 'button#pay', level: 'info' });
  t.match(crumbs.at(-1), {
    type: 'http',
    category: 'http',
    level: 'warning',
    data: { method: 'POST', url: 'https://pay.example.com/charge', status_code: 502 },
  });
  t.ok(
    crumbs.every((c) => !Number.isNaN(Date.parse(c.timestamp!)) && c.timestamp!.endsWith('Z')),
    'ISO timestamps',
  );
  t.end();
});

void t.test('a message event (captureMessage): message, level and the frames where it was captured', (t) => {
  const push = envelope(fixture('node-message.envelope'));
  const e = push.events[0];
  t.equal(e.message, 'Payment provider answered slowly');
  t.equal(e.level, 'warning');
  t.equal(e.type, 'Error', 'a message has no exception type');
  // SDK 11 attaches a stack trace to messages as a type-less exception.
  t.match(e.frames![0], { file: /capture\.mjs$/, in_app: true });
  t.match(e.stack, /^Payment provider answered slowly\n {4}at /);
  t.equal(push.eventId, e.external_id);
  const now = new Date().toISOString();
  for (const [name, raw] of [
    ['logentry.formatted', { logentry: { formatted: 'Disk almost full', message: 'Disk %s full' } }],
    ['a message string', { message: 'Disk almost full' }],
    ['a message object', { message: { formatted: 'Disk almost full' } }],
  ] as const) {
    const m = normalizeSentryEvent({ ...raw, level: 'info' }, now)!;
    t.match(m, { type: 'Error', message: 'Disk almost full', level: 'info' }, name);
    t.equal(m.stack, undefined, `${name}: no stack without an exception`);
  }
  t.end();
});

void t.test('sessions and spans are counted by type, not stored; they name no event id', (t) => {
  t.same(envelope(fixture('node-session.envelope')), { events: [], skipped: { session: 1 }, eventId: null });
  t.same(envelope(fixture('node-span.envelope')), { events: [], skipped: { span: 1 }, eventId: null });
  // One envelope with the header and event of one capture, then a session, a span and a client report.
  const [head, eventHeader, event] = lines(fixture('node-error-cause.envelope'));
  const [, sessionHeader, session] = lines(fixture('node-session.envelope'));
  const [, spanHeader, span] = lines(fixture('node-span.envelope'));
  const report = '{"type":"client_report"}\n{"timestamp":1,"discarded_events":[]}';
  const mixed = [head, sessionHeader, session, eventHeader, event, spanHeader, span, report].join('\n');
  const push = envelope(mixed);
  t.equal(push.events.length, 1);
  t.same(push.skipped, { session: 1, span: 1, client_report: 1 });
  t.equal(push.eventId, json(head).event_id);
  t.end();
});

void t.test('the gzipped envelope of a large event, as the SDK sent it', (t) => {
  const gz = fixture('node-large.envelope.gz');
  t.same([gz[0], gz[1]], [0x1f, 0x8b], 'the fixture keeps the SDK gzip bytes');
  const body = gunzipSync(gz);
  const raw = json(lines(body)[2]);
  const push = envelope(body);
  const e = push.events[0];
  t.equal(e.type, 'RangeError');
  t.equal(e.message, 'cart too large');
  const rawCrumbs = raw.breadcrumbs as Array<Record<string, unknown>>;
  t.equal(e.context!.breadcrumbs!.length, Math.min(100, rawCrumbs.length));
  t.equal(e.context!.breadcrumbs!.at(-1)!.message, rawCrumbs.at(-1)!.message, 'the newest breadcrumbs are kept');
  t.ok(JSON.stringify(e).length < JSON.stringify(raw).length, 'extra, modules and contexts are not kept');
  t.end();
});

void t.test('store: one event as JSON; transactions skipped; bad bodies are PayloadErrors', (t) => {
  const raw = rawEvent('node-handled.envelope');
  const push = store(JSON.stringify(raw));
  t.equal(push.events.length, 1);
  t.equal(push.eventId, raw.event_id);
  t.same(push.events[0], envelope(fixture('node-handled.envelope')).events[0], 'store and envelope read alike');
  t.same(store(JSON.stringify({ type: 'transaction', event_id: 'ab'.repeat(16) })), {
    events: [],
    skipped: { transaction: 1 },
    eventId: 'ab'.repeat(16),
  });
  for (const [name, body] of [
    ['not JSON', 'event_id=1'],
    ['an array', '[{"message": "x"}]'],
    ['no exception, no message', '{"event_id": "x", "level": "error"}'],
  ] as const)
    t.throws(() => store(body), { code: 'invalid_payload' }, name);
  t.end();
});

void t.test('envelopes that are not envelopes, bad item headers and too many items are PayloadErrors', (t) => {
  const [head, eventHeader, event] = lines(fixture('node-error-cause.envelope'));
  const cases: Array<[string, string, RegExp]> = [
    ['an empty body', '', /not a Sentry envelope/],
    ['plain text', 'hello', /not a Sentry envelope/],
    ['a JSON array header', '[1]\n{"type":"event"}\n{}', /header is not a JSON object/],
    ['an item header that is not JSON', `${head}\ntype=event\n${event}`, /not a Sentry envelope/],
    ['an item header without type', `${head}\n{"length":2}\n{}`, /item 0: the item header has no type/],
    ['an event payload that is not an object', `${head}\n${eventHeader}\n[1,2]`, /item 0 \(event\)/],
  ];
  for (const [name, body, message] of cases) t.throws(() => envelope(body), { code: 'invalid_payload', message }, name);
  const three = [head, eventHeader, event, eventHeader, event, eventHeader, event].join('\n');
  t.equal(envelope(three).events.length, 3, 'three events fit the default limit');
  t.throws(() => envelope(three, adapter({ maxEventsPerRequest: 2 })), {
    code: 'invalid_payload',
    message: /at most 2 events/,
  });
  const dashed = '9F8E7D6C-5B4A-4321-8765-0123456789AB';
  const withDashes = envelope(`{"event_id":"${dashed}"}\n{"type":"event"}\n{"event_id":"${dashed}","message":"m"}`);
  t.equal(withDashes.eventId, '9f8e7d6c5b4a432187650123456789ab', 'a UUID event id is answered as Sentry does');
  t.equal(withDashes.events[0].external_id, withDashes.eventId, 'and stored alike, so a retry matches');
  const [, sh, s] = lines(fixture('node-session.envelope'));
  const sessions = [head, sh, s, sh, s, sh, s].join('\n');
  t.throws(() => envelope(sessions, adapter({ maxEnvelopeItems: 2 })), { message: /at most 2 items/ });
  t.end();
});

void t.test('length-prefixed items: an event as bytes and a binary attachment with newlines', (t) => {
  const [head, , event] = lines(fixture('node-error-cause.envelope'));
  const eventBytes = Buffer.from(event);
  const attachment = Buffer.from([0x00, 0x0a, 0xff, 0x0a, 0x0a, 0x7b]);
  const body = Buffer.concat([
    Buffer.from(`${head}\n{"type":"attachment","length":${attachment.length},"filename":"dump.bin"}\n`),
    attachment,
    Buffer.from(`\n{"type":"event","length":${eventBytes.length}}\n`),
    eventBytes,
    Buffer.from('\n'),
  ]);
  const push = envelope(body);
  t.same(push.skipped, { attachment: 1 });
  t.equal(push.events[0].message, 'order failed', 'the event after the binary item is read');
  t.end();
});

void t.test('what SDKs and webhooks add: request, browser, fingerprints, placeholders', (t) => {
  const now = new Date().toISOString();
  const base = rawEvent('node-handled.envelope');
  const e = normalizeSentryEvent(
    {
      ...base,
      timestamp: '2026-11-20T10:00:00.5Z',
      request: { url: 'https://shop.example.com/pay', headers: { 'User-Agent': 'Mozilla/5.0 (X11)' } },
      contexts: { browser: { name: 'Firefox', version: '133.0' }, os: { name: 'Linux' } },
      user: { id: 7, ip_address: '{{auto}}' },
      fingerprint: ['checkout', 'payment'],
      tags: [['level', 'fatal']],
      breadcrumbs: { values: [{ timestamp: 1_700_000_000.25, message: 'x', data: { deep: { a: [1, 2] } } }] },
    },
    now,
    { preferUrlPaths: true },
  )!;
  t.equal(e.occurred_at, '2026-11-20T10:00:00.500Z');
  t.equal(e.url, 'https://shop.example.com/pay');
  t.same(e.browser, { user_agent: 'Mozilla/5.0 (X11)', name: 'Firefox', version: '133.0', os: 'Linux' });
  t.same(e.user, { id: '7' }, '{{auto}} is no address');
  t.equal(e.fingerprint, 'checkout:payment');
  t.equal(e.level, 'error', "the event's own level wins over a tag");
  t.same(e.context!.breadcrumbs, [
    { timestamp: '2023-11-14T22:13:20.250Z', message: 'x', data: { deep: '{"a":[1,2]}' } },
  ]);
  const images = [
    { type: 'sourcemap', code_file: 'https://shop.example.com/a.js', debug_id: 'C0FFEE0012344ABC8DEF0123456789AB' },
    { type: 'sourcemap', code_file: 'https://shop.example.com/b.js', debug_id: 'not-a-uuid' },
    { type: 'macho', code_file: '/usr/lib/libc.dylib', debug_id: 'c0ffee00-1234-4abc-8def-0123456789ab' },
  ];
  t.same(
    normalizeSentryEvent({ message: 'm', debug_meta: { images } }, now)!.context!.debug_ids,
    { 'https://shop.example.com/a.js': 'c0ffee00-1234-4abc-8def-0123456789ab' },
    'source-map debug ids only, in the form uploads store',
  );
  const headersAsPairs = normalizeSentryEvent({ message: 'm', request: { headers: [['user-agent', 'curl/8']] } }, now);
  t.same(headersAsPairs!.browser, { user_agent: 'curl/8' });
  t.equal(normalizeSentryEvent({ message: 'm', fingerprint: ['{{ default }}', 'x'] }, now)!.fingerprint, undefined);
  const frame = { filename: 'app/cart.js', abs_path: 'https://shop.example.com/static/cart.js', lineno: 3 };
  const withUrl = { exception: { values: [{ type: 'E', stacktrace: { frames: [frame] } }] } };
  t.equal(normalizeSentryEvent(withUrl, now, { preferUrlPaths: true })!.frames![0].file, frame.abs_path);
  t.equal(normalizeSentryEvent(withUrl, now)!.frames![0].file, 'app/cart.js', 'processed events: the source file');
  t.equal(normalizeSentryEvent({ timestamp: 1e300, message: 'far' }, now)!.occurred_at, now, 'no date, no throw');
  t.end();
});

void t.test('odd input never throws: events give null or an event, bodies a PayloadError', (t) => {
  const now = new Date().toISOString();
  fc.assert(
    fc.property(fc.anything(), (v) => {
      const e = normalizeSentryEvent(v, now);
      return e === null || checkNormalizedEvent(e).length === 0;
    }),
    { numRuns: 300 },
  );
  const a = adapter();
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom('envelope', 'store'), (bytes, format) => {
      try {
        a.normalizeSentry(format, Buffer.from(bytes), settings);
        return true;
      } catch (err) {
        return isAdapterError(err, 'invalid_payload');
      }
    }),
    { numRuns: 300 },
  );
  t.pass('no other exception');
  t.end();
});
