import { existsSync } from 'node:fs';
import { CHROMIUM, launchChromium } from '../../../test/helpers/browser.js';
import t from 'tap';
import { call, openTicket, world } from './helpers.js';

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed (apt-get install -y chromium); the status page is checked in a real browser only`;

t.test('the public status page in headless Chromium', { skip }, async (t) => {
  const { app, owner, workspace } = await world(
    t,
    { server: { port: 0, host: '127.0.0.1' } },
    { name: 'Negozio', client_name: 'Negozio Srl', locale: 'it' },
  );
  await app.server.start();
  const base = `http://127.0.0.1:${app.server.info.port}`;
  const orgId = owner.organization.id;

  const browser = await launchChromium(t);
  const page = await browser.newPage();
  const open = async (statusUrl: string) => page.goto(`${base}${new URL(statusUrl).pathname}`);

  await t.test('an Italian ticket: state and approved summary in Italian, nothing private', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id, {
      subject: 'Pagamento rifiutato per mario.rossi@example.it',
      customerEmail: 'mario.rossi@example.it',
      customerName: 'Mario Rossi',
      language: 'it',
    });
    await call(app, owner, 'POST', `/v1/tickets/${tk.id}/notes`, {
      body_md: 'NOTA INTERNA: cliente VIP, rimborso possibile',
    });
    const draft = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, {
      kind: 'needs_info',
      body_md: 'Quale carta usi?',
    });
    const sent = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${draft.body.id}/send`, {
      public_summary: 'Il pagamento viene rifiutato al checkout; scrivici a mario.rossi@example.it',
    });
    t.equal(sent.status, 200, sent.payload);

    const res = await open(sent.body.public_status_url);
    t.equal(res?.status(), 200);
    t.equal(await page.evaluate(() => document.documentElement.lang), 'it');
    t.equal(await page.title(), 'Stato della richiesta · Negozio Srl');
    t.equal(
      (await page.textContent('[data-testid="public-state"]'))?.trim(),
      'In attesa di una tua risposta',
      'public_state needs_reply in Italian',
    );
    t.match(
      await page.textContent('[data-testid="summary"]'),
      /^Il pagamento viene rifiutato al checkout; scrivici a m\*\*\*@e\*\*\*\.it$/,
      'the approved summary, with addresses masked',
    );
    const text = (await page.textContent('body')) ?? '';
    t.notMatch(text, /mario\.rossi@example\.it/, 'no customer address');
    t.notMatch(text, /Mario Rossi/, 'no customer name');
    t.notMatch(text, /NOTA INTERNA|rimborso/, 'no internal note');
    t.notMatch(text, /Quale carta usi/, 'no message of the conversation');
    t.notMatch(text, /Pagamento rifiutato per/, 'not the subject');
    t.equal(await page.locator('[data-testid="release"]').count(), 0, 'no release yet');
    t.equal(await page.locator('script').count(), 0, 'no script on the page');
    const headers = res!.headers();
    t.match(headers['content-security-policy'], /default-src 'none'/);
    t.equal(headers['x-robots-tag'], 'noindex, nofollow');
    t.equal(headers['cache-control'], 'no-store');
  });

  await t.test(
    'an English ticket after its release shows the version; a summary never approved stays hidden',
    async (t) => {
      const tk = await openTicket(app, orgId, workspace.id, { language: 'en', subject: 'Export crashes' });
      await app
        .db('tickets')
        .where({ id: tk.id })
        .update({
          state: 'customer_notified',
          resolved_version: '2.3.1',
          released_at: new Date('2026-03-05T10:00:00Z'),
          public_summary: 'Draft summary nobody approved',
        });
      const url = (await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body.public_status_url;
      const res = await open(url);
      t.equal(res?.status(), 200);
      t.equal(await page.evaluate(() => document.documentElement.lang), 'en');
      t.equal((await page.textContent('[data-testid="public-state"]'))?.trim(), 'Resolved');
      t.equal(
        (await page.textContent('[data-testid="release"]'))?.trim(),
        'The fix was released in version 2.3.1 on 5 March 2026.',
      );
      t.notMatch((await page.textContent('body')) ?? '', /Draft summary nobody approved/);
      t.match(await page.textContent('[data-testid="summary"]'), /We will add a summary here/);
    },
  );

  await t.test('revoked and rotated links answer 404', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id, { language: 'it' });
    const first = (await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body.public_status_url;
    t.equal((await open(first))?.status(), 200);

    await call(app, owner, 'POST', `/v1/tickets/${tk.id}/status-link`, { action: 'revoke' });
    const revoked = await open(first);
    t.equal(revoked?.status(), 404);
    t.match(await page.textContent('h1'), /Page not found|Pagina non trovata/);

    const rotated = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/status-link`, { action: 'rotate' });
    t.equal((await open(rotated.body.public_status_url))?.status(), 200);
    t.equal((await open(first))?.status(), 404, 'the old link stays dead after a rotate');
    t.equal((await page.goto(`${base}/status/st_${'x'.repeat(43)}`))?.status(), 404, 'an unknown token');
    t.equal((await page.goto(`${base}/status/nonsense`))?.status(), 404, 'a malformed token');
  });
});
