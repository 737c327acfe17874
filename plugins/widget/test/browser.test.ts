import { existsSync } from 'node:fs';
import { CHROMIUM, launchChromium } from '../../../test/helpers/browser.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { signUp } from '../../../test/helpers/accounts.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { json } from './helpers.js';

/** The shop page that embeds the widget: it logs an error and calls a failing API before the person reports. */
function hostPage(scriptUrl: string, key: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>
<body>
  <h1>Checkout</h1>
  <button id="pay" type="button">Pay</button>
  <script>
    document.getElementById('pay').addEventListener('click', async () => {
      console.error('Payment failed for mario.rossi@example.com with token=sk_live_abcdef123456');
      console.warn('Retrying payment');
      try { await fetch('/api/pay?session=s3cr3tsession', { method: 'POST' }); } catch (e) {}
    });
  </script>
  <script src="${scriptUrl}" data-key="${key}" data-release="3.1.4" data-locale="en" async></script>
</body></html>`;
}

if (!existsSync(CHROMIUM)) {
  t.skip(
    'a visitor reports a problem through the embedded widget',
    { skip: `chromium is not installed at ${CHROMIUM}` },
    async () => {},
  );
} else {
  const app = await startTestApp(t, { server: { host: '127.0.0.1', port: 0 } });
  await app.server.start();
  const apiBase = app.server.info.uri.replace('localhost', '127.0.0.1');

  let page = '';
  const shop: Server = createServer((req, res) => {
    if (req.url?.startsWith('/api/pay')) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"card declined"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => shop.close(() => r())));
  // A different origin than the API: another host name for the same loopback address.
  const shopOrigin = `http://localhost:${(shop.address() as AddressInfo).port}`;

  t.test('a visitor reports a problem through the embedded widget', async (t) => {
    const owner = await signUp(app, { orgName: 'Browser Shop' });
    const wsRes = await app.server.inject({
      method: 'POST',
      url: '/v1/workspaces',
      payload: { name: 'Browser Shop' },
      ...owner.auth,
    });
    const ws = json<{ id: string; widget: { public_key: string } }>(wsRes);
    const patch = await app.server.inject({
      method: 'PATCH',
      url: `/v1/workspaces/${ws.id}/widget`,
      payload: { allowed_origins: [shopOrigin] },
      ...owner.auth,
    });
    t.equal(patch.statusCode, 200, patch.payload);
    page = hostPage(`${apiBase}/widget.js`, ws.widget.public_key);

    const browser = await launchChromium(t);
    const tab = await browser.newPage();
    const pageErrors: string[] = [];
    tab.on('pageerror', (e) => pageErrors.push(e.message));
    await tab.goto(`${shopOrigin}/checkout`);
    await tab.click('#pay');
    await tab.getByTestId('pw-open').click();
    await tab.getByTestId('pw-message').fill('The payment does not go through.\nI tried twice.');
    await tab.getByTestId('pw-email').fill('mario.rossi@example.com');
    await tab.getByTestId('pw-technical').check();
    await tab.getByTestId('pw-submit').click();
    await tab.getByTestId('pw-confirmation').waitFor({ timeout: 10_000 });
    t.equal(
      await tab.getByTestId('pw-confirmation').textContent(),
      'Thank you! We received your report and will get back to you by email.',
    );
    t.match(await tab.getByTestId('pw-follow').getAttribute('href'), /\/status\/st_/);
    t.same(pageErrors, [], 'no errors on the host page');

    const list = json<{ items: Array<{ id: string; origin: string }> }>(
      await app.server.inject({ method: 'GET', url: `/v1/tickets?workspace_id=${ws.id}`, ...owner.auth }),
    );
    t.equal(list.items.length, 1);
    t.equal(list.items[0].origin, 'widget');
    const ticket = json<{
      customer_email: string;
      messages: Array<{
        widget_context: {
          console: Array<{ level: string; message: string }>;
          network: Array<{ method: string; url: string; status: number }>;
          browser: { name: string; user_agent: string };
          url: string;
          release: string;
        };
      }>;
    }>(await app.server.inject({ method: 'GET', url: `/v1/tickets/${list.items[0].id}`, ...owner.auth }));
    t.equal(ticket.customer_email, 'mario.rossi@example.com');
    const wc = ticket.messages[0].widget_context;
    t.same(
      wc.console.map((c) => [c.level, c.message]),
      [
        ['error', 'Payment failed for [email] with token=[masked]'],
        ['warn', 'Retrying payment'],
      ],
      'the captured console entries, masked',
    );
    t.equal(wc.network.length, 1, 'the host page’s request, not the widget’s own');
    t.match(wc.network[0], { method: 'POST', status: 500 });
    t.match(wc.network[0].url, /\/api\/pay\?session=\[masked\]$/);
    t.match(wc.browser.name, /Chrome/);
    t.equal(wc.url, `${shopOrigin}/checkout`);
    t.equal(wc.release, '3.1.4');

    const s = json<{ install: { status: string; last_seen_origin: string } }>(
      await app.server.inject({ method: 'GET', url: `/v1/workspaces/${ws.id}/widget`, ...owner.auth }),
    );
    t.same(s.install.status, 'active');
    t.equal(s.install.last_seen_origin, shopOrigin);
  });
}
