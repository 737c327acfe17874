// The console's first load (issue 26): a service started as `npm start` starts it (its own
// process, embedded defaults, a fresh data directory), Debian's Chromium, and two pages opened
// in a new browser context each time (cold cache) and again in the same context (warm cache):
// the sign-in page, and the inbox of a signed-in owner with one workspace.
//
//   npx tsx bench/console-first-load.ts
//
// Prints, per page and cache state: the time from navigation to the page's heading being visible
// (what a person waits for), DOMContentLoaded, and the JavaScript bytes transferred (compressed)
// and decoded. BENCH_CONSOLE_ROUNDS (default 20) sets the rounds; results in bench/results/.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildBundle } from '../plugins/console/build.js';
import { freePort } from '../plugins/console/test/browser.js';
import { startService } from './service.js';

const ROUNDS = Number(process.env.BENCH_CONSOLE_ROUNDS ?? 20);
const CHROMIUM = '/usr/bin/chromium';

interface Sample {
  visibleMs: number;
  domContentLoadedMs: number;
  jsTransferred: number;
  jsDecoded: number;
}

/** One navigation: time to the heading, and what the page's scripts cost on the wire. */
async function load(page: Page, path: string, heading: string): Promise<Sample> {
  const t0 = performance.now();
  await page.goto(path, { waitUntil: 'commit' });
  await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
  const visibleMs = performance.now() - t0;
  await page.waitForLoadState('load');
  return page
    .evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const scripts = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter(
        (r) => r.initiatorType === 'script' || r.name.endsWith('.js'),
      );
      return {
        visibleMs: 0,
        domContentLoadedMs: nav.domContentLoadedEventEnd,
        jsTransferred: scripts.reduce((n, r) => n + r.transferSize, 0),
        jsDecoded: scripts.reduce((n, r) => n + r.decodedBodySize, 0),
      };
    })
    .then((s) => ({ ...s, visibleMs }));
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

function report(label: string, samples: Sample[]): void {
  const v = samples.map((s) => s.visibleMs);
  const d = samples.map((s) => s.domContentLoadedMs);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const last = samples[samples.length - 1];
  console.log(
    `${label.padEnd(30)} visible p50 ${pct(v, 50).toFixed(0)} ms, p95 ${pct(v, 95).toFixed(0)} ms; DOMContentLoaded p50 ${pct(d, 50).toFixed(0)} ms; JS ${kb(last.jsTransferred)} transferred, ${kb(last.jsDecoded)} decoded`,
  );
}

async function signUpOwner(base: string): Promise<string> {
  const res = await fetch(`${base}/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({
      name: 'Bench Owner',
      email: `bench-${Date.now()}@example.test`,
      password: 'correct horse battery staple 42',
      organization_name: 'Bench',
      organization_type: 'direct',
      locale: 'en',
      accept_terms: true,
    }),
  });
  if (res.status !== 201) throw new Error(`signup: ${res.status} ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('pw_session='));
  if (!cookie) throw new Error('signup set no session cookie');
  const ws = await fetch(`${base}/v1/workspaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, cookie },
    body: JSON.stringify({ name: 'Storefront' }),
  });
  if (ws.status !== 201) throw new Error(`workspace: ${ws.status} ${await ws.text()}`);
  return cookie.slice('pw_session='.length);
}

async function main(): Promise<void> {
  const build = await buildBundle();
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'patchwell-bench-console-'));
  const { stop } = await startService(port, dataDir);
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--headless',
      ],
    });
    const session = await signUpOwner(base);
    console.log(`console first load: ${ROUNDS} rounds per row; bundle ${build.hash}`);
    console.log(
      `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}; Chromium ${browser.version()}`,
    );
    const pages: { label: string; path: string; heading: string; signedIn: boolean }[] = [
      { label: 'sign-in page', path: '/login', heading: 'Sign in to Patchwell', signedIn: false },
      { label: 'inbox, signed in', path: '/tickets', heading: 'Tickets', signedIn: true },
    ];
    for (const p of pages) {
      const cold: Sample[] = [];
      const warm: Sample[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const context: BrowserContext = await browser.newContext({
          baseURL: base,
          viewport: { width: 1440, height: 900 },
        });
        if (p.signedIn) await context.addCookies([{ name: 'pw_session', value: session, url: base }]);
        const page = await context.newPage();
        cold.push(await load(page, p.path, p.heading));
        warm.push(await load(page, p.path, p.heading));
        await context.close();
      }
      report(`${p.label}, cold cache`, cold);
      report(`${p.label}, warm cache`, warm);
    }
  } finally {
    await browser?.close();
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
