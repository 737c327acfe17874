import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { signUp } from '../../../test/helpers/accounts.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { CHROMIUM, freePort, launchChromium } from '../../../test/helpers/browser.js';
import { call } from '../../../test/helpers/call.js';

// Issue 29's acceptance: the real @sentry/browser in Chromium, on a page that loads a bundle built
// with esbuild and Sentry's own debug-id injection, reports an error whose group shows the original source.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RELEASE = 'shop@2.4.0';

/** The app's original sources: the throw is in src/cart.ts, on the line that contains `throw`. */
const CART_TS = `export interface Item {
  price: number;
}

export function addToCart(items: Item[], index: number): number {
  const item = items[index];
  if (!item) {
    throw new TypeError(\`No item at position \${index}\`);
  }
  return item.price;
}
`;
const THROW_LINE = CART_TS.split('\n').findIndex((l) => l.includes('throw ')) + 1;

const MAIN_TS = `import * as Sentry from '@sentry/browser';
import { addToCart } from './cart';

declare const __DSN__: string;
declare const __RELEASE__: string;

Sentry.init({ dsn: __DSN__, release: __RELEASE__ });

document.getElementById('buy')!.addEventListener('click', () => {
  document.getElementById('total')!.textContent = String(addToCart([], 3));
});
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body>
  <h1>Cart</h1>
  <button id="buy" type="button">Buy</button>
  <output id="total"></output>
  <script src="/static/js/app.min.js"></script>
</body></html>`;

/**
 * Builds the app as a CI would: esbuild bundles and minifies it with a source map, and Sentry's
 * esbuild plugin (no auth token, telemetry off, upload disabled) injects the debug id into the
 * bundle and its map. Answers the bundle, the map text and the map's debug id.
 */
async function buildApp(dsn: string): Promise<{ bundle: string; map: string; debugId: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'pw-sentry-browser-'));
  try {
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src/cart.ts'), CART_TS);
    await writeFile(join(dir, 'src/main.ts'), MAIN_TS);
    const { build } = await import('esbuild');
    const { sentryEsbuildPlugin } = await import('@sentry/bundler-plugins/esbuild');
    await build({
      entryPoints: [join(dir, 'src/main.ts')],
      outfile: join(dir, 'dist/app.min.js'),
      absWorkingDir: dir,
      nodePaths: [join(ROOT, 'node_modules')],
      bundle: true,
      minify: true,
      format: 'iife',
      target: 'es2020',
      sourcemap: true,
      sourcesContent: false,
      logLevel: 'silent',
      define: { __DSN__: JSON.stringify(dsn), __RELEASE__: JSON.stringify(RELEASE) },
      plugins: [
        sentryEsbuildPlugin({
          telemetry: false,
          silent: true,
          sourcemaps: { disable: 'disable-upload' },
          release: { inject: false, create: false, finalize: false },
        }),
      ],
    });
    const bundle = await readFile(join(dir, 'dist/app.min.js'), 'utf8');
    const map = await readFile(join(dir, 'dist/app.min.js.map'), 'utf8');
    const { debugId } = JSON.parse(map) as { debugId?: string };
    if (!debugId) throw new Error('the Sentry esbuild plugin injected no debug id');
    return { bundle, map, debugId };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (!existsSync(CHROMIUM)) {
  void t.test(
    'a browser error reported by @sentry/browser',
    { skip: `chromium is not installed at ${CHROMIUM}` },
    () => undefined,
  );
} else {
  const port = await freePort();
  const apiOrigin = `http://127.0.0.1:${port}`;
  const app = await startTestApp(t, { server: { host: '127.0.0.1', port, publicBaseUrl: apiOrigin } });
  await app.server.start();

  // The shop: another origin than the API (another host name for the loopback).
  const files = new Map<string, { type: string; body: string }>([
    ['/', { type: 'text/html; charset=utf-8', body: PAGE }],
  ]);
  const shop: Server = createServer((req, res) => {
    const f = files.get(new URL(req.url ?? '/', 'http://shop').pathname);
    if (!f) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': f.type }).end(f.body);
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => shop.close(() => r())));
  const shopOrigin = `http://localhost:${(shop.address() as AddressInfo).port}`;

  void t.test('a browser error reported by @sentry/browser is grouped on its original source line', async (t) => {
    const owner = await signUp(app, { orgName: 'Browser Shop' });
    const created = await call(app, owner, 'POST', '/v1/workspaces', { name: 'Browser Shop' });
    t.equal(created.status, 201, created.payload);
    const workspaceId = created.body.id;
    const origins = await call(app, owner, 'PATCH', `/v1/workspaces/${workspaceId}/widget`, {
      allowed_origins: [shopOrigin],
    });
    t.equal(origins.status, 200, origins.payload);
    const connector = await call(app, owner, 'POST', '/v1/connectors', {
      workspace_id: workspaceId,
      kind: 'endpoint',
      name: 'Shop front end',
    });
    t.equal(connector.status, 201, connector.payload);
    const dsn = connector.body.connector.dsn!;
    t.match(dsn, new RegExp(`^http://[0-9a-f]{32}@127\\.0\\.0\\.1:${port}/\\d+$`), 'a DSN the SDK parses');

    const built = await buildApp(dsn);
    t.match(
      built.bundle,
      `//# debugId=${built.debugId}`,
      'the bundle carries its debug id, as Sentry tooling writes it',
    );
    files.set('/static/js/app.min.js', { type: 'text/javascript', body: built.bundle });

    // CI uploads the map under its build's name, not the runtime release: only the debug id the SDK
    // reports can find it.
    const up = await call(app, owner, 'POST', '/v1/sourcemaps', {
      workspace_id: workspaceId,
      release: `ci-build-${built.debugId.slice(0, 8)}`,
      files: [{ url_path: `${shopOrigin}/static/js/app.min.js`, map: built.map }],
    });
    t.equal(up.status, 201, up.payload);

    const browser = await launchChromium(t);

    /** Opens the shop at `origin`, clicks Buy, and answers the response to the SDK's error envelope and the console. */
    const buyAt = async (origin: string) => {
      const tab = await browser.newPage();
      const console: string[] = [];
      tab.on('console', (m) => console.push(m.text()));
      const pageErrors: string[] = [];
      tab.on('pageerror', (e) => pageErrors.push(e.message));
      await tab.goto(`${origin}/`);
      // The SDK also sends session envelopes; the error is the envelope with an `event` item.
      const sending = tab.waitForRequest(
        (r) => r.url().startsWith(`${apiOrigin}/api/`) && (r.postData() ?? '').includes('{"type":"event"'),
        { timeout: 15_000 },
      );
      await tab.click('#buy');
      const request = await sending;
      const answer = await request.response(); // null when the browser refused the answer (CORS)
      const body = answer ? await answer.text().catch(() => null) : null;
      // Let the SDK finish reading the answer (and the console its complaints) before the tab closes.
      await new Promise((r) => setTimeout(r, 300));
      await tab.close();
      return {
        url: request.url(),
        status: answer?.status() ?? null,
        headers: answer?.headers() ?? {},
        body,
        failure: request.failure()?.errorText ?? null,
        sent: request.postData() ?? '',
        console,
        pageErrors,
      };
    };

    const { console, pageErrors, ...answer } = await buyAt(shopOrigin);
    t.match(answer.url, /\/api\/\d+\/envelope\/\?/, 'the SDK posts an envelope to its DSN');
    t.equal(answer.status, 200, answer.body ?? '');
    const sentId = (JSON.parse(answer.sent.split('\n')[0]) as { event_id: string }).event_id;
    t.match(JSON.parse(answer.body ?? 'null'), { id: sentId }, 'the answer names the event the SDK sent');
    t.equal(answer.headers['access-control-allow-origin'], shopOrigin, 'CORS allows the workspace’s origin');
    t.match(
      answer.headers['access-control-expose-headers'] ?? '',
      /x-sentry-rate-limits/i,
      'the SDK may read the rate-limit headers',
    );
    t.same(pageErrors, ['No item at position 3'], 'the SDK reports the error and lets it reach the page');
    t.notOk(
      console.some((m) => /CORS|Access-Control/i.test(m)),
      `no CORS error in the console: ${console.join(' | ')}`,
    );

    // The ingest queue writes in batches: wait for the group.
    let groupId: string | undefined;
    for (let i = 0; i < 50 && !groupId; i++) {
      const groups = await call(app, owner, 'GET', `/v1/error-groups?workspace_id=${workspaceId}`);
      groupId = groups.body.items?.[0]?.id;
      if (!groupId) await new Promise((r) => setTimeout(r, 200));
    }
    t.ok(groupId, 'the error formed a group');
    const res = await call(app, owner, 'GET', `/v1/error-groups/${groupId}`);
    t.equal(res.status, 200, res.payload);
    const detail = res.body;
    t.equal(detail.symbolicated, true, 'symbolicated by the debug id');
    t.ok(detail.frames.length, 'the group has frames');
    const top = detail.frames[0];
    t.match(top.file, /(^|\/)src\/cart\.ts$/, 'the original file of the throw');
    t.equal(top.line, THROW_LINE, 'the line of the throw');
    t.equal(top.in_app, true);
    t.equal(top.generated?.file, `${shopOrigin}/static/js/app.min.js`, 'where it was in the bundle');
    t.match(detail.group, { type: 'TypeError', title: /No item at position 3/, event_count: 1 });
    t.equal(detail.events.length, 1, 'one event');
    t.match(detail.events[0], { source: 'endpoint', type: 'TypeError', release: RELEASE, symbolicated: true });
    t.equal(detail.events[0].external_id, sentId, 'stored under the SDK’s event id');
    t.same(
      detail.events[0].context?.debug_ids,
      { [`${shopOrigin}/static/js/app.min.js`]: built.debugId },
      'the bundle’s debug id, as the SDK reported it',
    );

    // The same shop at an origin the workspace does not allow: the browser gets no CORS grant and nothing is stored.
    const otherOrigin = shopOrigin.replace('localhost', '127.0.0.1');
    const refused = await buyAt(otherOrigin);
    t.equal(refused.status, null, 'the browser refuses the answer');
    t.ok(
      refused.console.some((m) => m.includes('blocked by CORS policy')),
      'and says why',
    );
    await new Promise((r) => setTimeout(r, 1500));
    const after = await call(app, owner, 'GET', `/v1/error-groups?workspace_id=${workspaceId}`);
    t.same(
      after.body.items.map((g) => g.event_count),
      [1],
      'the other origin’s event was not stored',
    );
  });
}
