import { createServer, type AddressInfo } from 'node:net';
import type { Test } from 'tap';
import type { Browser } from 'playwright-core';

/** Debian's Chromium, which the browser tests drive with playwright-core (no browser download). */
export const CHROMIUM = '/usr/bin/chromium';

/** Flags for a headless Chromium on a shared CI machine: no sandbox (root in a container), no GPU, no background traffic. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A headless Chromium for one test file, closed at its teardown. */
export async function launchChromium(t: Test): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());
  return browser;
}

/** A loopback TCP port nothing listens on now, so a service's public base URL can name the port it listens on next. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', resolve);
  });
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
