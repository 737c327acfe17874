import t from 'tap';
import type { Knex } from 'knex';
import { SourceMapGenerator } from 'source-map';
import type { IncomingEvent } from '../services/group-writer.js';
import { bundlePath } from '../services/source-map-parse.js';
import { Symbolicator } from '../services/symbolicator.js';
import type { SignedUp } from '../../../test/helpers/accounts.js';
import { startProactive, type ProactiveHarness, type Reply } from './helpers.js';

const CDN = 'https://cdn.example.com/static/js/app.3f9a1c2b.js';

/**
 * A minified bundle of two original functions, `addToCart` (src/cart.ts:42) and `checkout`
 * (src/checkout.ts:7), laid out on line 1 at the given columns (0-based), with the minified names
 * the bundler chose. Real maps made with source-map's generator, as a bundler writes them.
 */
function bundleMap(layout: { cart: number; checkout: number }): string {
  const g = new SourceMapGenerator({ file: 'app.js' });
  g.addMapping({
    generated: { line: 1, column: layout.cart },
    original: { line: 42, column: 4 },
    source: 'webpack:///src/cart.ts',
    name: 'addToCart',
  });
  g.addMapping({
    generated: { line: 1, column: layout.cart + 20 },
    original: { line: 44, column: 10 },
    source: 'webpack:///src/cart.ts',
    name: 'addToCart',
  });
  g.addMapping({
    generated: { line: 1, column: layout.checkout },
    original: { line: 7, column: 2 },
    source: 'webpack:///src/checkout.ts',
    name: 'checkout',
  });
  g.addMapping({
    generated: { line: 2, column: 0 },
    original: { line: 1, column: 0 },
    source: 'webpack:///node_modules/react-dom/index.js',
    name: 'render',
  });
  g.setSourceContent('webpack:///src/cart.ts', 'export function addToCart() {}\n');
  return g.toString();
}

/** An event thrown in addToCart (called from checkout), with the bundle's minified frames. */
const crash = (
  release: string,
  cols: { cart: number; checkout: number },
  names: [string, string],
  extra: Record<string, unknown> = {},
) => ({
  type: 'TypeError',
  message: "Cannot read properties of undefined (reading 'price')",
  release,
  frames: [
    { file: CDN, function: names[0], line: 1, column: cols.cart + 21 + 1 },
    { file: `${CDN}?v=2`, function: names[1], line: 1, column: cols.checkout + 3 + 1 },
  ],
  ...extra,
});

/** POST /v1/sourcemaps: maps of one release of the workspace, as `who`. */
function uploadMaps(
  h: ProactiveHarness,
  who: SignedUp,
  workspaceId: string,
  release: string,
  files: Array<{ url_path: string; map: string }>,
): Promise<Reply<'POST', '/v1/sourcemaps'>> {
  return h.call(who, 'POST', '/v1/sourcemaps', { workspace_id: workspaceId, release, files });
}

/** An event of workspace w's `release` whose one frame is in the bundle `file` (no database: Symbolicator unit tests). */
const frameEvent = (release: string, file: string): IncomingEvent => ({
  orgId: 'o',
  workspaceId: 'w',
  connectorId: null,
  source: 'endpoint',
  event: {
    type: 'E',
    message: 'm',
    level: 'error',
    occurred_at: new Date().toISOString(),
    release,
    frames: [{ file, line: 1, column: 2 }],
  },
});

t.test('bundle paths', (t) => {
  t.equal(bundlePath('https://cdn.example.com/static/app.js?v=3#x'), '/static/app.js');
  t.equal(bundlePath('~/static/app.js'), '/static/app.js');
  t.equal(bundlePath('/static/app.js'), '/static/app.js');
  t.equal(bundlePath('app.js'), null);
  t.equal(bundlePath('chrome-extension://abc/x.js'), null);
  t.end();
});

t.test('upload, list, releases and delete: roles, validation, limits, audit and tenant isolation', async (t) => {
  const h = await startProactive(t, {
    plugins: { proactive: { options: { sourcemaps: { maxMapBytes: 4096, maxUploadBytes: 64 * 1024 } } } },
  });
  const owner = await h.owner();
  const ws = await h.workspace(owner);
  const reviewer = await h.member(owner, 'reviewer', [ws.id]);
  const viewer = await h.member(owner, 'client_viewer', [ws.id]);
  const map = bundleMap({ cart: 10, checkout: 60 });

  const up = await h.call(owner, 'POST', '/v1/sourcemaps', {
    workspace_id: ws.id,
    release: 'shop@1.0.0',
    files: [
      { url_path: CDN, map },
      { url_path: '~/static/js/vendor.js', map },
    ],
  });
  t.equal(up.status, 201, up.payload);
  t.same(
    up.body.files.map((f) => f.url_path),
    ['/static/js/app.3f9a1c2b.js', '/static/js/vendor.js'],
    'stored by URL path, host and query dropped',
  );
  t.equal(up.body.files[0].size, Buffer.byteLength(map));
  t.equal(up.body.files[0].sources_count, 3);
  t.notOk('map' in up.body.files[0], 'the map itself is not answered');

  // Replacing one path keeps one row.
  const again = await uploadMaps(h, owner, ws.id, 'shop@1.0.0', [
    { url_path: '/static/js/vendor.js', map: bundleMap({ cart: 0, checkout: 30 }) },
  ]);
  t.equal(again.status, 201);
  await uploadMaps(h, owner, ws.id, 'shop@1.1.0', [{ url_path: CDN, map }]);

  const list = await h.call(reviewer, 'GET', `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@1.0.0&limit=1`);
  t.equal(list.status, 200, list.payload);
  t.equal(list.body.items.length, 1);
  const page2 = await h.call(
    reviewer,
    'GET',
    `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@1.0.0&limit=1&cursor=${list.body.next_cursor}`,
  );
  t.same(
    page2.body.items.map((f) => f.url_path),
    ['/static/js/vendor.js'],
  );
  t.equal(page2.body.items[0].sha256.length, 64);

  const releases = await h.call(reviewer, 'GET', `/v1/sourcemaps/releases?workspace_id=${ws.id}`);
  t.equal(releases.status, 200, releases.payload);
  t.same(
    releases.body.items.map((r) => [r.release, r.files]),
    [
      ['shop@1.1.0', 1],
      ['shop@1.0.0', 2],
    ],
    'most recent upload first',
  );

  // Roles: reviewers read but neither upload nor delete; client viewers do not read.
  t.equal((await uploadMaps(h, reviewer, ws.id, 'r', [{ url_path: CDN, map }])).status, 403);
  t.equal((await h.call(reviewer, 'DELETE', `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@1.0.0`)).status, 403);
  t.equal((await h.call(viewer, 'GET', `/v1/sourcemaps/releases?workspace_id=${ws.id}`)).status, 403);

  // Validation: all or nothing, with a reason per file.
  const bad = await h.call(owner, 'POST', '/v1/sourcemaps', {
    workspace_id: ws.id,
    release: 'shop@2.0.0',
    files: [
      { url_path: CDN, map },
      { url_path: '/a.js', map: '{not json' },
      { url_path: '/b.js', map: JSON.stringify({ version: 2, sources: [], mappings: '' }) },
      { url_path: '/c.js', map: JSON.stringify({ version: 3, sources: ['x'] }) },
      { url_path: '/d.js', map: JSON.stringify({ version: 3, sources: ['x'], names: [], mappings: '!!!!' }) },
      { url_path: 'relative.js', map },
      { url_path: `${CDN}?v=9`, map },
    ],
  });
  t.equal(bad.status, 422, bad.payload);
  t.equal(bad.body.code, 'invalid_source_map');
  t.same(
    (bad.body.details?.errors as Array<{ index: number; code: string }>).map((e) => [e.index, e.code]),
    [
      [1, 'invalid_json'],
      [2, 'unsupported_version'],
      [3, 'invalid_source_map'],
      [4, 'invalid_source_map'],
      [5, 'invalid_url_path'],
      [6, 'duplicate_url_path'],
    ],
  );
  t.equal(
    (await h.call(owner, 'GET', `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@2.0.0`)).body.items.length,
    0,
    'nothing of a refused upload was stored',
  );
  t.equal(
    (await h.call(owner, 'POST', '/v1/sourcemaps', { workspace_id: ws.id, release: 'shop@2.0.0', files: [] })).status,
    400,
  );

  // Limits: one map over maxMapBytes, a body over maxUploadBytes.
  const big = JSON.stringify({
    version: 3,
    sources: ['a.ts'],
    names: [],
    mappings: 'AAAA',
    sourcesContent: ['x'.repeat(5000)],
  });
  const tooBig = await uploadMaps(h, owner, ws.id, 'shop@2.0.0', [{ url_path: '/big.js', map: big }]);
  t.equal(tooBig.status, 413);
  t.equal(tooBig.body.code, 'source_map_too_large');
  const huge = await h.call(owner, 'POST', '/v1/sourcemaps', {
    workspace_id: ws.id,
    release: 'shop@2.0.0',
    files: Array.from({ length: 30 }, (_, i) => ({ url_path: `/f${i}.js`, map: big.slice(0, 3000) })),
  });
  t.equal(huge.status, 413);
  t.equal(huge.body.code, 'payload_too_large');

  // Another organization: its workspace id answers 404, and it sees none of these maps.
  const other = await h.owner();
  const otherWs = await h.workspace(other);
  t.equal((await h.call(other, 'GET', `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@1.0.0`)).status, 404);
  t.equal((await h.call(other, 'GET', `/v1/sourcemaps/releases?workspace_id=${ws.id}`)).status, 404);
  t.equal((await uploadMaps(h, other, ws.id, 'shop@1.0.0', [{ url_path: CDN, map }])).status, 404);
  t.equal((await h.call(other, 'DELETE', `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@1.0.0`)).status, 404);
  t.same((await h.call(other, 'GET', `/v1/sourcemaps/releases?workspace_id=${otherWs.id}`)).body.items, []);
  t.equal(
    (await h.call(owner, 'GET', `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@1.0.0`)).body.items.length,
    2,
    'still there',
  );

  // Delete every map of a release.
  const del = await h.call(owner, 'DELETE', `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@1.0.0`);
  t.equal(del.status, 200, del.payload);
  t.same(del.body, { workspace_id: ws.id, release: 'shop@1.0.0', deleted: 2 });
  t.equal(
    (await h.call(owner, 'DELETE', `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@1.0.0`)).status,
    404,
    'nothing left to delete',
  );
  t.same(
    (await h.call(owner, 'GET', `/v1/sourcemaps/releases?workspace_id=${ws.id}`)).body.items.map(
      (r: { release: string }) => r.release,
    ),
    ['shop@1.1.0'],
  );

  const audits = await h.app
    .db('audit_entries')
    .where({ org_id: owner.organization.id })
    .whereLike('action', 'sourcemap.%')
    .orderBy('created_at')
    .select<Array<{ action: string; metadata: unknown }>>('action', 'metadata');
  t.same(
    audits.map((a) => a.action),
    ['sourcemap.uploaded', 'sourcemap.uploaded', 'sourcemap.uploaded', 'sourcemap.deleted'],
  );
  t.notOk(JSON.stringify(audits).includes('mappings'), 'maps never enter the audit log');
});

t.test(
  'symbolication: frames mapped to the original source, generated kept, grouped on the original frames',
  async (t) => {
    const h = await startProactive(t);
    const owner = await h.owner();
    const ws = await h.workspace(owner);
    const c = await h.endpoint(owner, ws.id);
    const layout1 = { cart: 10, checkout: 60 };
    const layout2 = { cart: 100, checkout: 5 };

    // Before any map: stored as it came (bundle frames, not symbolicated).
    const before = await h.ingest(c.id, c.token, crash('shop@1.0.0', layout1, ['a', 'b']));
    t.equal(before.status, 202, before.payload);
    const plain = await h.call(owner, 'GET', `/v1/error-groups/${before.body.group_ids[0]}`);
    t.equal(plain.body.symbolicated, false);
    t.equal(plain.body.frames[0].generated, null);
    t.equal(plain.body.events[0].symbolicated, false);

    t.equal(
      (await uploadMaps(h, owner, ws.id, 'shop@1.0.0', [{ url_path: CDN, map: bundleMap(layout1) }])).status,
      201,
    );
    // Release 1.1.0 was built again: other minified names and columns, the same original code.
    t.equal(
      (
        await uploadMaps(h, owner, ws.id, 'shop@1.1.0', [
          { url_path: '/static/js/app.3f9a1c2b.js', map: bundleMap(layout2) },
        ])
      ).status,
      201,
    );

    const r1 = await h.ingest(c.id, c.token, crash('shop@1.0.0', layout1, ['a', 'b'], { user: 'u1' }));
    const r2 = await h.ingest(c.id, c.token, crash('shop@1.1.0', layout2, ['Xe', 'Qt'], { user: 'u2' }));
    t.equal(r1.status, 202);
    t.equal(r2.status, 202);
    t.equal(
      r1.body.group_ids[0],
      r2.body.group_ids[0],
      'two builds of the same code fall into one group once symbolicated',
    );
    t.not(
      r1.body.group_ids[0],
      before.body.group_ids[0],
      'events stored before the map keep their group (no reprocessing)',
    );

    const d = await h.call(owner, 'GET', `/v1/error-groups/${r1.body.group_ids[0]}`);
    t.equal(d.status, 200, d.payload);
    t.equal(d.body.symbolicated, true);
    t.same(d.body.frames[0], {
      file: 'webpack:///src/cart.ts',
      function: 'addToCart',
      line: 44,
      column: 11,
      in_app: true,
      generated: { file: CDN, function: 'a', line: 1, column: layout1.cart + 22 },
    });
    t.equal(d.body.frames[1].file, 'webpack:///src/checkout.ts');
    t.equal(d.body.frames[1].function, 'checkout');
    t.equal(d.body.frames[1].line, 7);
    t.same(d.body.frames[1].generated, { file: `${CDN}?v=2`, function: 'b', line: 1, column: layout1.checkout + 4 });
    t.ok(
      d.body.events.every((e) => e.symbolicated),
      'events symbolicated',
    );
    t.equal(d.body.group?.event_count, 2);

    // A V8 stack string (no frames) is parsed and symbolicated too; a vendored original source is not in-app.
    const stack = `TypeError: boom\n    at render (${CDN}:2:1)\n    at a (${CDN}:1:${layout1.cart + 22})`;
    const s = await h.ingest(c.id, c.token, { type: 'TypeError', message: 'boom', release: 'shop@1.0.0', stack });
    const sd = await h.call(owner, 'GET', `/v1/error-groups/${s.body.group_ids[0]}`);
    t.equal(sd.body.symbolicated, true);
    t.same(
      sd.body.frames.map((f) => [f.file, f.in_app]),
      [
        ['webpack:///node_modules/react-dom/index.js', false],
        ['webpack:///src/cart.ts', true],
      ],
    );
    // The browser SDK marks every bundle frame in_app: a library's original source is still not in-app.
    const guessed = await h.ingest(c.id, c.token, {
      type: 'TypeError',
      message: 'boom from the SDK',
      release: 'shop@1.0.0',
      frames: [
        { file: CDN, line: 2, column: 1, in_app: true },
        { file: CDN, line: 1, column: layout1.cart + 22, in_app: true },
      ],
    });
    const gd = await h.call(owner, 'GET', `/v1/error-groups/${guessed.body.group_ids[0]}`);
    const guessedFrames = gd.body.frames;
    t.same(
      guessedFrames.map((f) => [f.file, f.in_app]),
      [
        ['webpack:///node_modules/react-dom/index.js', false],
        ['webpack:///src/cart.ts', true],
      ],
      "the SDK's in_app guess gives way for a source under node_modules",
    );

    // Frames of another release, or of a bundle without a map, stay as they came.
    const none = await h.ingest(c.id, c.token, crash('shop@9.9.9', layout1, ['a', 'b']));
    t.equal((await h.call(owner, 'GET', `/v1/error-groups/${none.body.group_ids[0]}`)).body.symbolicated, false);

    // A group first seen with bundle frames (an explicit fingerprint keeps it one group) takes the
    // original frames of its first symbolicated event once the map arrives.
    const fp = await h.ingest(c.id, c.token, crash('shop@9.9.9', layout1, ['a', 'b'], { fingerprint: 'cart-price' }));
    t.equal(
      (await uploadMaps(h, owner, ws.id, 'shop@9.9.9', [{ url_path: CDN, map: bundleMap(layout1) }])).status,
      201,
    );
    const fp2 = await h.ingest(c.id, c.token, crash('shop@9.9.9', layout1, ['a', 'b'], { fingerprint: 'cart-price' }));
    t.equal(fp2.body.group_ids[0], fp.body.group_ids[0]);
    const fd = await h.call(owner, 'GET', `/v1/error-groups/${fp.body.group_ids[0]}`);
    t.equal(fd.body.symbolicated, true, 'the group is symbolicated now');
    t.equal(fd.body.frames[0].function, 'addToCart');
    t.same(
      fd.body.events.map((e) => e.symbolicated),
      [true, false],
      'each event keeps its own flag',
    );

    // After the release's maps are deleted, its new events are no longer symbolicated.
    t.equal((await h.call(owner, 'DELETE', `/v1/sourcemaps?workspace_id=${ws.id}&release=shop@1.0.0`)).status, 200);
    const after = await h.ingest(c.id, c.token, crash('shop@1.0.0', layout1, ['a', 'b']));
    t.equal(after.body.group_ids[0], before.body.group_ids[0], 'back to the bundle-frame group');

    // Another organization's maps never symbolicate this workspace's events.
    const other = await h.owner();
    const otherWs = await h.workspace(other);
    t.equal(
      (await uploadMaps(h, other, otherWs.id, 'shop@1.0.0', [{ url_path: CDN, map: bundleMap(layout1) }])).status,
      201,
    );
    const mine = await h.ingest(c.id, c.token, crash('shop@1.0.0', layout1, ['a', 'b']));
    t.equal(mine.body.group_ids[0], before.body.group_ids[0], 'still not symbolicated');
  },
);

t.test('a slow map lookup never holds ingest beyond the time limit', async (t) => {
  const never = new Promise<never>(() => undefined);
  const builder: Record<string, unknown> = {};
  builder.whereIn = () => builder;
  builder.select = () => never;
  builder.distinct = () => never;
  const db = (() => builder) as unknown as Knex;
  const warned: string[] = [];
  const sym = new Symbolicator(db, { cacheSize: 2, timeoutMs: 50, missCacheMs: 1000 }, {
    warn: (_o: unknown, msg?: string) => {
      warned.push(msg ?? '');
    },
  } as never);
  const ev = frameEvent('1', CDN);
  const started = Date.now();
  const out = await sym.symbolicate([ev]);
  t.ok(Date.now() - started < 1000, 'answered at the time limit');
  t.equal(out[0], ev, 'the event as it came');
  t.match(warned.join(), /too slow/);
  sym.stop();
});

t.test(
  'events of releases without maps skip stack parsing and lookups: one query per workspace per missCacheMs',
  async (t) => {
    const queries: string[] = [];
    const builder: Record<string, unknown> = {};
    builder.whereIn = () => builder;
    builder.distinct = () => {
      queries.push('releases');
      return Promise.resolve([{ workspace_id: 'w', release: 'mapped' }]);
    };
    builder.select = () => {
      queries.push('maps');
      return Promise.resolve([]);
    };
    const db = (() => builder) as unknown as Knex;
    const sym = new Symbolicator(db, { cacheSize: 2, timeoutMs: 1000, missCacheMs: 60_000 }, {
      warn: () => undefined,
    } as never);
    const ev = (release: string, n: number) => frameEvent(release, `https://cdn.example.com/app.${n}.js`);

    const batch = [ev('plain', 1), ev('plain', 2)];
    t.equal((await sym.symbolicate(batch))[0], batch[0], 'as they came');
    t.same(queries, ['releases'], 'the releases with maps of the workspace, once');
    await sym.symbolicate([ev('plain', 3), ev('plain', 4)]);
    t.same(queries, ['releases'], 'new bundle paths of a release without maps cost nothing more');
    await sym.symbolicate([ev('mapped', 5)]);
    t.same(queries, ['releases', 'maps'], 'a release with maps looks its bundle up');
    sym.forget('w', 'plain');
    await sym.symbolicate([ev('plain', 6)]);
    t.same(queries, ['releases', 'maps', 'releases'], 'an upload in this process reads the releases again');
    sym.stop();
  },
);

/** A map with the debug id Sentry's tooling writes into it (`debugId` by the bundler plugins, `debug_id` by older sentry-cli). */
const withDebugId = (map: string, field: 'debugId' | 'debug_id', id: string): string =>
  JSON.stringify({ ...(JSON.parse(map) as object), [field]: id });

/** An SDK event of workspace `workspaceId` thrown in addToCart, naming the debug id of its bundle (event.context.debug_ids). */
const sdkEvent = (
  workspaceId: string,
  file: string,
  release: string | undefined,
  debugIds: Record<string, string> | undefined,
): IncomingEvent => ({
  orgId: 'o',
  workspaceId,
  connectorId: null,
  source: 'endpoint',
  event: {
    type: 'TypeError',
    message: 'x is undefined',
    level: 'error',
    occurred_at: new Date().toISOString(),
    ...(release ? { release } : {}),
    frames: [{ file, function: 'a', line: 1, column: 10 + 21 + 1 }],
    ...(debugIds ? { context: { debug_ids: debugIds } } : {}),
  },
});

void t.test('debug ids: a bundle is matched by the debug id its SDK names, else by release and URL path', async (t) => {
  const h = await startProactive(t);
  const owner = await h.owner();
  const ws = await h.workspace(owner);
  const layout = { cart: 10, checkout: 60 };
  const D1 = '85314830-023f-4cf1-a267-535f4e37bb17';
  const D2 = 'c1d2e3f4-0000-4a4a-8b8b-0123456789ab';

  // Stored in one form: lower case, with hyphens, whichever field and spelling the tool wrote.
  const up = await uploadMaps(h, owner, ws.id, 'shop@1.0.0', [
    { url_path: CDN, map: withDebugId(bundleMap(layout), 'debugId', D1.toUpperCase().replace(/-/g, '')) },
  ]);
  t.equal(up.status, 201, up.payload);
  const answered = up.body.files[0];
  t.notOk('debug_id' in answered, 'the answer is the same SourceMap as without a debug id');
  const stored = await h.app
    .db('source_maps')
    .where({ workspace_id: ws.id })
    .select<Array<{ debug_id: string | null }>>('debug_id');
  t.same(
    stored.map((r) => r.debug_id),
    [D1],
  );
  const bad = await uploadMaps(h, owner, ws.id, 'shop@1.0.0', [
    { url_path: '/x.js', map: withDebugId(bundleMap(layout), 'debug_id', 'not-a-uuid') },
  ]);
  t.equal(bad.status, 422, bad.payload);
  const errors = bad.body.details?.errors as Array<{ code: string }>;
  t.same(
    errors.map((e) => e.code),
    ['invalid_debug_id'],
  );

  const sym = new Symbolicator(h.app.db, { cacheSize: 8, timeoutMs: 5000, missCacheMs: 60_000 }, {
    warn: () => undefined,
  } as never);
  t.teardown(() => sym.stop());

  // By debug id: another release (or none) and a bundle URL that is no http path still find the map.
  const bundle = 'app:///static/js/main.min.js';
  for (const release of ['shop@7.0.0', undefined]) {
    const [byId] = await sym.symbolicate([sdkEvent(ws.id, bundle, release, { [bundle]: D1 })]);
    t.equal(byId.symbolicated, true, `matched by debug id (release ${release ?? 'none'})`);
    t.match(byId.event.frames![0], {
      file: 'webpack:///src/cart.ts',
      function: 'addToCart',
      line: 44,
      generated: { file: bundle },
    });
  }
  // The event names its bundle by URL, the frame by the same URL with a query: matched by path.
  const [query] = await sym.symbolicate([sdkEvent(ws.id, `${CDN}?v=2`, undefined, { [CDN]: D1 })]);
  t.equal(query.symbolicated, true, 'the debug id of the same bundle path');

  // A debug id without a map falls back to the release and URL path.
  const [fallback] = await sym.symbolicate([sdkEvent(ws.id, CDN, 'shop@1.0.0', { [CDN]: D2 })]);
  t.equal(fallback.symbolicated, true, 'matched by release and URL path');
  const [neither] = await sym.symbolicate([sdkEvent(ws.id, bundle, 'shop@7.0.0', { [bundle]: D2 })]);
  t.notOk(neither.symbolicated, 'no map by debug id, none for the release');

  // A debug id without a map is remembered: a map uploaded through another process is seen after
  // missCacheMs, or at once where the upload happened (forget).
  t.equal(
    (
      await uploadMaps(h, owner, ws.id, 'shop@2.0.0', [
        { url_path: '/static/js/main.min.js', map: withDebugId(bundleMap(layout), 'debug_id', D2) },
      ])
    ).status,
    201,
  );
  const [remembered] = await sym.symbolicate([sdkEvent(ws.id, bundle, undefined, { [bundle]: D2 })]);
  t.notOk(remembered.symbolicated, 'the miss is remembered');
  sym.forget(ws.id, 'shop@2.0.0');
  const [seen] = await sym.symbolicate([sdkEvent(ws.id, bundle, undefined, { [bundle]: D2 })]);
  t.equal(seen.symbolicated, true, 'found once the upload is known');

  // Another workspace's event naming the same debug id is not served this workspace's map.
  const other = await h.owner();
  const otherWs = await h.workspace(other);
  const [foreign] = await sym.symbolicate([sdkEvent(otherWs.id, bundle, undefined, { [bundle]: D1 })]);
  t.notOk(foreign.symbolicated, 'maps never cross workspaces');
});

void t.test(
  'debug ids: one lookup per new debug id, misses remembered, no release query for events without one',
  async (t) => {
    const queries: string[] = [];
    const builder: Record<string, unknown> = {};
    builder.whereIn = () => builder;
    builder.whereNotNull = () => builder;
    builder.orderBy = () => builder;
    builder.distinct = () => {
      queries.push('releases');
      return Promise.resolve([]);
    };
    builder.select = (...cols: string[]) => {
      queries.push(cols.includes('debug_id') ? 'debug ids' : 'paths');
      return Promise.resolve([]);
    };
    const db = (() => builder) as unknown as Knex;
    const sym = new Symbolicator(db, { cacheSize: 2, timeoutMs: 1000, missCacheMs: 60_000 }, {
      warn: () => undefined,
    } as never);
    const id = '85314830-023f-4cf1-a267-535f4e37bb17';
    const ev = sdkEvent('w', CDN, undefined, { [CDN]: id });

    t.equal((await sym.symbolicate([ev, ev]))[0], ev, 'as it came');
    t.same(queries, ['debug ids'], 'one query for the batch, none for releases');
    await sym.symbolicate([ev]);
    t.same(queries, ['debug ids'], 'the miss is remembered');
    await sym.symbolicate([sdkEvent('w', CDN, undefined, { [CDN]: 'not a uuid' })]);
    t.same(queries, ['debug ids'], 'a malformed debug id is ignored');
    sym.forget('w', 'any');
    await sym.symbolicate([ev]);
    t.same(queries, ['debug ids', 'debug ids'], 'an upload in this process looks again');
    sym.stop();
  },
);
