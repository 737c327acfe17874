/**
 * Browser tests of the console: a real service on the embedded defaults, listening on a port of
 * its own (its public base URL is that address, so emailed links open here and the Origin
 * check accepts the pages' requests), Debian's Chromium driven by playwright-core, axe-core.
 * Find things by role and label; wait on what a person waits on.
 */
import { existsSync } from 'node:fs';
import { CHROMIUM, launchChromium } from '../../../test/helpers/browser.js';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import AxeBuilder from '@axe-core/playwright';
import type { App } from '../../../core/kernel/app.js';
import { projectRoot } from '../../../core/kernel/config.js';
import { startTestApp } from '../../../test/helpers/app.js';
import type { OutboxChannelAdapter } from '../../../adapters/mail-outbox/index.js';
import { buildBundle } from '../build.js';

export { CHROMIUM };
export const ARTIFACTS = join(projectRoot, 'test-artifacts', 'console');

/**
 * Whether this file can run: without Chromium it skips on a developer's machine and FAILS in CI
 * (CI=true), where .ci/run installs it.
 */
export function browserAvailable(t: Test): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) t.fail(`chromium is not installed at ${CHROMIUM}; CI must run the console's browser tests`);
  else t.skip('the console in a browser', { skip: `chromium is not installed at ${CHROMIUM}` }, async () => {});
  return false;
}

/** A TCP port nothing listens on now (the service, or a bench's, listens on it next). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ConsoleHarness {
  app: App;
  base: string;
  browser: Browser;
  outbox: OutboxChannelAdapter;
  /** A new browser window: `width` 375 or 1440, a language and a color scheme. */
  open(opts?: {
    width?: number;
    locale?: 'en' | 'it';
    colorScheme?: 'light' | 'dark';
  }): Promise<{ context: BrowserContext; page: Page }>;
  /** The `path` link of the latest email to `to` whose subject matches (waits for one). */
  link(to: string, subject: RegExp, path: string): Promise<string>;
}

/** A listening service with the current bundle, and one Chromium for the whole file. */
export async function startConsole(t: Test, overrides: Record<string, unknown> = {}): Promise<ConsoleHarness> {
  await buildBundle();
  const port = await freePort();
  // A host name, not an address: the inbound domain is derived from it (inbound.<host>).
  const base = `http://localhost:${port}`;
  const app = await startTestApp(t, {
    ...overrides,
    server: { host: '127.0.0.1', port, publicBaseUrl: base, validateResponses: true },
  });
  await app.server.start();
  const browser = await launchChromium(t);
  const outbox = app.container.resolve('channelAdapter') as OutboxChannelAdapter;
  await mkdir(ARTIFACTS, { recursive: true });
  return {
    app,
    base,
    browser,
    outbox,
    async open({ width = 1440, locale = 'en', colorScheme = 'light' } = {}) {
      const context = await browser.newContext({
        baseURL: base,
        viewport: { width, height: width < 500 ? 812 : 900 },
        locale,
        colorScheme,
      });
      const page = await context.newPage();
      // What the person saw when a step failed: the page's text and a screenshot.
      t.teardown(async () => {
        if (!t.passing()) {
          t.comment(
            `page at failure: ${page.url()}\n${await page
              .locator('body')
              .innerText()
              .catch(() => '')}`,
          );
          await page.screenshot({ path: join(ARTIFACTS, `failure-${Date.now()}.png`) }).catch(() => {});
        }
        await context.close();
      });
      // A page that throws or logs an error is a failure a person would see as a broken page.
      page.on('pageerror', (err) => t.fail(`page error: ${err.message}`));
      return { context, page };
    },
    async link(to, subject, path) {
      const linkIn = (m: { links: string[] }) => m.links.find((l) => new URL(l).pathname === path);
      const wanted = (m: { to: string[]; subject: string; links: string[] }) =>
        m.to.includes(to) && subject.test(m.subject) && !!linkIn(m);
      const latest = [...outbox.messages].reverse().find(wanted) ?? (await outbox.waitFor(wanted, 10_000));
      return linkIn(latest)!;
    },
  };
}

/** axe-core on the page as it is now: no serious or critical violation. */
export async function expectAccessible(t: Test, page: Page, label: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  t.same(
    bad.map(
      (v) =>
        `${v.id}: ${v.help} (${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join('; ')})`,
    ),
    [],
    `${label}: no serious or critical accessibility violation`,
  );
}

/** A full-page screenshot under test-artifacts/console/. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * A secret shown once (`SecretOnce`): reads it from the dialog, copies it with the dialog's button and checks
 * the clipboard holds it (the page needs clipboard permissions). Answers the secret; the dialog stays open.
 */
export async function copyShownSecret(
  t: Test,
  dialog: Locator,
  texts: { copy: string; copied: string; prefix: RegExp },
): Promise<string> {
  await dialog.waitFor();
  const page = dialog.page();
  const secret = (await dialog.locator('code').textContent())!;
  t.match(secret, texts.prefix, 'the whole secret is shown');
  await dialog.getByRole('button', { name: texts.copy }).click();
  await page.getByText(texts.copied).waitFor();
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), secret, 'the copy button copies it');
  return secret;
}
