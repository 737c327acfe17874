import t from 'tap';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SourceMapGenerator } from 'source-map';
import { onPlan, signUp } from '../../../test/helpers/accounts.js';
import type { Schema } from '../../../test/helpers/api-types.js';
import { createWorkspace } from '../../codehost/test/helpers.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27, the proactive section: an owner adds a generic endpoint connector (its token shown once),
// uploads the release's source map by file picker, and the shop's backend pushes crashes to the real
// ingest address with that token; paused, the connector refuses them, and a rotated token replaces the
// old one at once. The error group's page shows the hourly chart and the frames mapped back to
// src/cart.ts. Opening a ticket is refused (no repository, then the plan: said in words, the group
// held), then opens one; the group is resolved in a release. The fixed ticket teaches a pattern, which
// the match tester finds for a new ticket of the same error. The widget's origins and capture are saved
// and its preview drawn from the configuration; a test report files a ticket.
const CDN = 'https://cdn.example.com/static/js/app.3f9a1c2b.js';
const LAYOUT = { cart: 10, checkout: 60 };

/** A real map of the minified bundle (as plugins/proactive/test/sourcemaps.test.ts builds it). */
function bundleMap(): string {
  const g = new SourceMapGenerator({ file: 'app.js' });
  g.addMapping({
    generated: { line: 1, column: LAYOUT.cart },
    original: { line: 42, column: 4 },
    source: 'webpack:///src/cart.ts',
    name: 'addToCart',
  });
  g.addMapping({
    generated: { line: 1, column: LAYOUT.cart + 20 },
    original: { line: 44, column: 10 },
    source: 'webpack:///src/cart.ts',
    name: 'addToCart',
  });
  g.addMapping({
    generated: { line: 1, column: LAYOUT.checkout },
    original: { line: 7, column: 2 },
    source: 'webpack:///src/checkout.ts',
    name: 'checkout',
  });
  return g.toString();
}

/** A crash in addToCart (called from checkout), with the bundle's minified frames, for one user. */
const crash = (user: string) => ({
  type: 'TypeError',
  message: "Cannot read properties of undefined (reading 'price')",
  release: 'shop@1.0.0',
  environment: 'production',
  url: 'https://shop.example.com/checkout',
  user: { id: user, email: `${user}@customer.example` },
  frames: [
    { file: CDN, function: 'a', line: 1, column: LAYOUT.cart + 22 },
    { file: CDN, function: 'b', line: 1, column: LAYOUT.checkout + 4 },
  ],
});

/** The shop's backend pushing one crash to the connector's ingest address. */
const push = (url: string, token: string, user: string) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(crash(user)),
  });

if (browserAvailable(t)) {
  // The fixes plugin serves the releases (off by default under the test helpers).
  const h = await startConsole(t, { plugins: { fixes: { enabled: true } } });

  t.test(
    'an owner connects errors, follows a group to a ticket, learns a pattern and sets up the widget',
    async (t) => {
      const owner = await signUp(h.app, { orgName: 'Initech', name: 'Olivia Owner' });
      const ws = await createWorkspace(h.app, owner, 'Shop');
      const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
      page.setDefaultTimeout(20_000);
      await page.goto('/tickets');
      await page.getByRole('link', { name: 'Proactive', exact: true }).click();
      await page.getByRole('heading', { name: 'Connectors', exact: true }).waitFor();

      // A generic endpoint: its token is shown once, then only its id.
      await page.getByLabel('Name', { exact: true }).fill('Shop backend');
      await page.getByRole('button', { name: 'Add the connector' }).click();
      const tokenDialog = page.getByRole('dialog', { name: "The connector's token" });
      const token = (await tokenDialog.getByLabel('Token', { exact: true }).textContent())!;
      t.match(token, /^pwi_/, 'the push token is shown');
      await tokenDialog.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('heading', { name: /Shop backend/ }).waitFor();
      t.equal(await page.getByText(token).count(), 0, 'the token is not on the page any more');
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      await page.getByText('Nothing has been delivered yet: push an event to its address.').waitFor();
      const ingestUrl = (await page.getByLabel('Ingest address', { exact: true }).textContent())!;
      const dsn = await page
        .getByLabel('DSN for the Sentry SDKs (Sentry.init({ dsn }))', { exact: true })
        .textContent();
      t.match(dsn, /^http:\/\/[0-9a-f]{32}@localhost:\d+\/\d+$/, 'the DSN for the Sentry SDKs is shown, to copy');
      await expectAccessible(t, page, 'connectors');
      await screenshot(page, 'proactive-connectors-en');

      // The release's source map, by file picker.
      await page.getByRole('link', { name: 'Source maps', exact: true }).click();
      await page.getByRole('heading', { name: 'Upload source maps' }).waitFor();
      await page.getByText('Up to 200 files at once, each map at most 20 MB').waitFor();
      const dir = await mkdtemp(join(tmpdir(), 'pw-maps-'));
      await writeFile(join(dir, 'app.3f9a1c2b.js.map'), bundleMap());
      await page.getByLabel('Release', { exact: true }).fill('shop@1.0.0');
      await page.getByLabel('Source map files').setInputFiles(join(dir, 'app.3f9a1c2b.js.map'));
      const bundle = await page.getByLabel('Bundle address of app.3f9a1c2b.js.map').inputValue();
      t.equal(bundle, '/static/js/app.3f9a1c2b.js', 'the bundle address follows the file name');
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByText('1 source map stored for shop@1.0.0').waitFor();
      await page
        .getByRole('region', { name: 'Releases with source maps' })
        .getByRole('cell', { name: 'shop@1.0.0', exact: true })
        .waitFor();
      await expectAccessible(t, page, 'source maps');

      // The shop's backend pushes to the real ingest address with the token.
      for (const user of ['u1', 'u1', 'u2'])
        t.equal((await push(ingestUrl, token, user)).status, 202, 'the ingest endpoint accepts the event');
      await page.getByRole('link', { name: 'Connectors', exact: true }).click();
      await page.getByRole('button', { name: 'Test', exact: true }).click();
      await page.getByText('Events are arriving.').waitFor();
      // Paused, pushes are refused; a rotated token is shown once and the old one stops at once.
      await page.getByRole('button', { name: 'Pause', exact: true }).click();
      await page.getByText('Paused: pushes are refused and polling stops').waitFor();
      t.equal((await push(ingestUrl, token, 'u3')).status, 409, 'a paused connector refuses pushes');
      await page.getByRole('button', { name: 'Resume', exact: true }).click();
      await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Rotate the token…' }).click();
      await page
        .getByRole('dialog', { name: 'Rotate the token?' })
        .getByRole('button', { name: 'Rotate', exact: true })
        .click();
      const rotated = (await page
        .getByRole('dialog', { name: "The connector's token" })
        .getByLabel('Token', { exact: true })
        .textContent())!;
      await page.getByRole('dialog', { name: "The connector's token" }).getByRole('button', { name: 'Done' }).click();
      t.equal((await push(ingestUrl, token, 'u3')).status, 401, 'the old token stops working');
      t.equal((await push(ingestUrl, rotated, 'u2')).status, 202, 'the new token works');

      // The group, its chart and its frames mapped to the source.
      await page.getByRole('link', { name: 'Error groups', exact: true }).click();
      await page.getByRole('heading', { name: 'Error groups', exact: true }).waitFor();
      const groupLink = page.getByRole('link', { name: /Cannot read properties of undefined/ });
      await groupLink.waitFor();
      await expectAccessible(t, page, 'error groups');
      await groupLink.click();
      await page.getByRole('heading', { name: 'Stack' }).waitFor();
      await page.getByRole('figure', { name: 'Events per hour, last 24 hours' }).waitFor();
      await page.getByText('Mapped to your source with a source map').waitFor();
      await page.getByText('webpack:///src/cart.ts:44:11').waitFor();
      await page.getByText(`In the bundle: a at ${CDN}:1:${LAYOUT.cart + 22}`).waitFor();
      await page.getByText('2 in all, 2 in the last 24 hours').waitFor();
      await page.getByText('4 in all, 4 in the last 24 hours').waitFor();
      const samples = page.getByRole('region', { name: 'Latest events' });
      await samples.locator('summary').first().click();
      await samples.getByText('https://shop.example.com/checkout').first().waitFor();
      t.equal(await samples.getByText('u1@customer.example').count(), 0, 'sample events show no email address');
      await expectAccessible(t, page, 'error group');
      await screenshot(page, 'proactive-error-group-en');

      // A ticket: refused without a repository (in words), then opened.
      await page.getByRole('button', { name: 'Open a ticket' }).click();
      await page.getByText('Connect a repository to this workspace first').waitFor();
      await repository(owner.organization.id, ws.id);
      // Without a plan: 402, the reason in words, and the group is held.
      await page.getByRole('button', { name: 'Open a ticket' }).click();
      await page.getByText('Your plan does not include proactive tickets.', { exact: true }).first().waitFor();
      await page.getByText('Held', { exact: true }).first().waitFor();
      await onPlan(h.app, owner.organization.id, 'startup');
      await page.getByRole('button', { name: 'Open a ticket' }).click();
      await page.getByText('A ticket was opened').waitFor();
      await page.getByText('Ticket open', { exact: true }).first().waitFor();
      const ticketHref = (await page.getByRole('link', { name: /Cannot read properties/ }).getAttribute('href'))!;
      const ticketId = ticketHref.split('/').pop()!;
      t.equal(
        await page.getByRole('button', { name: 'Ignore' }).count(),
        0,
        'an open ticket follows the group: no ignore',
      );

      // The fix shipped: the ticket is closed as resolved and the group resolved in the release.
      const closed = await h.app.server.inject({
        method: 'POST',
        url: `/v1/tickets/${ticketId}/close`,
        payload: { reason: 'resolved' },
        ...owner.auth,
      });
      t.equal(closed.statusCode, 200, closed.payload);
      await page.reload();
      await page.getByLabel('Resolved in release (optional)').fill('shop@1.0.1');
      await page.getByRole('button', { name: 'Mark resolved' }).click();
      await page.getByText('The group is resolved').waitFor();
      await page.getByText(/· shop@1\.0\.1$/).waitFor();
      await page.getByRole('button', { name: 'Watch again' }).waitFor();

      // A pattern from the fixed ticket; a new ticket of the same error matches it.
      await page.getByRole('link', { name: 'Proactive', exact: true }).click();
      await page.getByRole('link', { name: 'Patterns', exact: true }).click();
      await page.getByRole('heading', { name: 'Learn from a resolved ticket' }).waitFor();
      await page.getByLabel('Ticket', { exact: true }).fill(`${h.base}/tickets/${ticketId}`);
      await page.getByRole('button', { name: 'Learn the pattern' }).click();
      await page.getByText(/^Pattern learned:/).waitFor();
      const again = await secondTicket(owner.organization.id, ws.id, ticketId);
      await page.getByLabel('Ticket to match').fill(again);
      await page.getByRole('button', { name: 'Match', exact: true }).click();
      await page.getByText(/^Because of: .*the same error group/).waitFor();
      await expectAccessible(t, page, 'patterns');
      await screenshot(page, 'proactive-patterns-en');

      // The widget: origins and capture saved, the preview from its configuration, a test report.
      await page.getByRole('link', { name: 'Widget', exact: true }).click();
      await page.getByRole('heading', { name: 'Preview' }).waitFor();
      const widget = async () =>
        JSON.parse(
          (await h.app.server.inject({ method: 'GET', url: `/v1/workspaces/${ws.id}/widget`, ...owner.auth })).payload,
        ) as Schema<'WidgetSettings'>;
      const settings = await widget();
      const preview = page.getByRole('group', { name: 'Widget preview' });
      await preview.getByRole('button', { name: settings.preview.texts.button }).waitFor();
      await preview.getByText(settings.preview.texts.title).waitFor();
      await page.getByLabel('Allowed sites').fill('https://shop.example.com');
      await page.getByLabel('A screenshot (the user chooses)').setChecked(!settings.capture.screenshot);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Widget settings saved').waitFor();
      const saved = await widget();
      t.same(saved.allowed_origins, ['https://shop.example.com'], 'the origin is stored');
      t.equal(saved.capture.screenshot, !settings.capture.screenshot, 'the screenshot capture changed');
      t.equal(
        await preview.getByText(settings.preview.texts.screenshot_button).count(),
        saved.capture.screenshot ? 1 : 0,
        'the preview follows the capture',
      );
      await page.getByRole('button', { name: 'Send a test report' }).click();
      await page.getByRole('link', { name: 'Open the test ticket' }).waitFor();
      await expectAccessible(t, page, 'widget');
      await screenshot(page, 'proactive-widget-en');

      // Releases: none yet for this workspace.
      await page.getByRole('link', { name: 'Releases', exact: true }).click();
      await page.getByRole('heading', { name: 'No releases yet' }).waitFor();
      await expectAccessible(t, page, 'releases');
    },
  );

  /** A repository row for the workspace (connecting one is the code area's flow; the group needs only the row). */
  async function repository(orgId: string, workspaceId: string): Promise<void> {
    const inst = `chi_${randomBytes(6).toString('hex')}`;
    await h.app.db('codehost_installations').insert({
      id: inst,
      org_id: orgId,
      host: 'local',
      external_id: inst,
      account_login: 'initech',
      account_type: 'Organization',
      repository_selection: 'all',
    });
    await h.app.db('repositories').insert({
      id: `repo_${randomBytes(6).toString('hex')}`,
      org_id: orgId,
      workspace_id: workspaceId,
      installation_id: inst,
      host: 'local',
      external_id: inst,
      full_name: 'initech/shop',
      html_url: 'http://localhost/initech/shop',
      clone_url: 'http://localhost/initech/shop.git',
      default_branch: 'main',
      is_public: false,
    });
  }

  /** Another ticket following the same error group (as a customer's email about it would be linked). */
  async function secondTicket(orgId: string, workspaceId: string, firstTicketId: string): Promise<string> {
    const first = await h.app.db('tickets').where({ id: firstTicketId }).first<{
      error_group_id: string;
    }>('error_group_id');
    const tickets = h.app.container.resolve<{
      createTicket(trx: unknown, input: Record<string, unknown>): Promise<{ id: string }>;
    }>('ticketService');
    const ticket = await h.app.db.transaction((trx) =>
      tickets.createTicket(trx, {
        orgId,
        workspaceId,
        origin: 'email',
        subject: 'Checkout breaks again',
        errorGroupId: first.error_group_id,
        category: 'bug',
      }),
    );
    return ticket.id;
  }
}
