import t from 'tap';
import { addMember, onPlan, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27, the analytics section: an owner reads the support metrics of the last 30 days as charts
// whose tables hold exactly the numbers the API answers (tickets by day, by origin), narrows them to a
// workspace; a reviewer reads only their workspace. A staff member also reviews open-source
// sponsorship requests there and approves one (sponsored credits for the project's organization).
/** What the test reads of GET /v1/analytics. */
type AnalyticsJson = {
  volume: { total: number; by_origin: { email: number; widget: number; codehost: number; proactive: number } };
  series: { tickets: number; resolved: number; fixed: number }[];
};

if (browserAvailable(t)) {
  const h = await startConsole(t);

  /** The parsed answer, of the shape `T` the test reads of it. */
  async function call<T = unknown>(
    who: SignedUp | null,
    method: 'GET' | 'POST',
    url: string,
    payload?: Record<string, unknown>,
  ): Promise<T> {
    const res = await h.app.server.inject({
      method,
      url,
      payload,
      remoteAddress: '192.0.2.80',
      ...(who ? who.auth : {}),
    });
    if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.payload}`);
    return JSON.parse(res.payload) as T;
  }

  /** A ticket opened `daysAgo` days ago through the tickets service, answered after some minutes, maybe closed. */
  async function ticket(
    orgId: string,
    workspaceId: string,
    origin: string,
    daysAgo: number,
    answerMin: number,
    closeMin?: number,
  ): Promise<void> {
    const tickets = h.app.container.resolve<{
      createTicket: (trx: unknown, input: Record<string, unknown>) => Promise<{ id: string }>;
    }>('ticketService');
    const input = { orgId, workspaceId, origin, subject: 'Help', customerEmail: 'jo@example.com' };
    const tk = await h.app.db.transaction((trx) => tickets.createTicket(trx, input));
    const start = Date.now() - daysAgo * 86_400_000;
    const at = (min: number) => new Date(start + min * 60_000);
    const patch: Record<string, unknown> = { created_at: at(0), first_response_at: at(answerMin), state: 'answered' };
    if (closeMin !== undefined) Object.assign(patch, { state: 'closed', closed_at: at(closeMin) });
    await h.app.db('tickets').where({ id: tk.id }).update(patch);
  }

  /** The rows of a chart's table as text cells (after opening "Show as a table"). */
  async function tableOf(page: import('playwright-core').Page, title: string): Promise<string[][]> {
    const figure = page.getByRole('figure', { name: title });
    await figure.getByText('Show as a table').click();
    const rows = figure.getByRole('table', { name: title }).getByRole('row');
    const out: string[][] = [];
    for (const row of await rows.all()) out.push((await row.locator('th, td').allInnerTexts()).map((s) => s.trim()));
    return out.slice(1);
  }

  t.test("an owner reads the metrics as charts with the API's numbers; a reviewer reads their workspace", async (t) => {
    const owner = await signUp(h.app, { orgName: 'Metrics Co', name: 'Mia Owner' });
    await onPlan(h.app, owner.organization.id, 'growth');
    const shop = await call<{ id: string }>(owner, 'POST', '/v1/workspaces', { name: 'Shop' });
    const blog = await call<{ id: string }>(owner, 'POST', '/v1/workspaces', { name: 'Blog' });
    await ticket(owner.organization.id, shop.id, 'email', 2, 15, 120);
    await ticket(owner.organization.id, shop.id, 'widget', 2, 45);
    await ticket(owner.organization.id, shop.id, 'email', 5, 30, 300);
    await ticket(owner.organization.id, blog.id, 'email', 9, 60);

    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Analytics', exact: true }).click();
    await page.getByRole('heading', { name: 'Analytics', exact: true }).waitFor();
    await page.getByRole('figure', { name: 'Tickets opened, resolved and fixed' }).waitFor();

    // The page asks for the last 30 days up to tomorrow's start (UTC); the API's answer for that range.
    const now = new Date();
    const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    const from = new Date(to.getTime() - 30 * 86_400_000);
    const api = await call<AnalyticsJson>(
      owner,
      'GET',
      `/v1/analytics?from=${from.toISOString()}&to=${to.toISOString()}`,
    );
    t.equal(api.volume.total, 4);
    const figures = page.getByRole('region', { name: 'In this range' });
    await figures.getByText('Tickets opened').waitFor();
    t.equal(await figures.getByRole('definition').first().textContent(), '4', 'four tickets in the figures');

    const volume = await tableOf(page, 'Tickets opened, resolved and fixed');
    t.equal(volume.length, api.series.length, 'a row per bucket of the API');
    const series = api.series.map((s) => [s.tickets, s.resolved, s.fixed]);
    t.same(
      volume.map((r) => r.slice(1).map(Number)),
      series,
      "the table holds the API's series",
    );
    const byOrigin = await tableOf(page, 'Tickets by origin');
    t.same(
      byOrigin,
      [
        ['Email', '3'],
        ['Widget', '1'],
        ['Code host', '0'],
        ['Proactive', '0'],
      ],
      'tickets by origin as the API counts them',
    );
    const origins = api.volume.by_origin;
    t.same(
      byOrigin.map((r) => Number(r[1])),
      [origins.email, origins.widget, origins.codehost, origins.proactive],
    );
    t.equal(
      await page.getByRole('heading', { name: 'Open-source sponsorship requests' }).count(),
      0,
      'no staff section for an owner',
    );
    await expectAccessible(t, page, 'analytics of the organization');
    await screenshot(page, 'analytics-organization-en');

    // One workspace: the Blog's single ticket.
    await page.getByLabel('Show', { exact: true }).selectOption({ label: 'Blog' });
    await figures.getByRole('definition').first().filter({ hasText: /^1$/ }).waitFor();

    // A reviewer of the shop reads the shop only.
    const reviewer = await addMember(h.app, owner, { role: 'reviewer', workspaceIds: [shop.id] });
    const rpage = await signedInPage(h, reviewer, { width: 375, locale: 'en', colorScheme: 'dark' });
    await rpage.goto('/analytics');
    await rpage.getByRole('heading', { name: 'Analytics', exact: true }).waitFor();
    t.same(
      await rpage.getByLabel('Show', { exact: true }).locator('option').allInnerTexts(),
      ['Shop'],
      'only the workspace they can open',
    );
    await rpage
      .getByRole('region', { name: 'In this range' })
      .getByRole('definition')
      .first()
      .filter({ hasText: /^3$/ })
      .waitFor();
    await expectAccessible(t, rpage, 'analytics of a workspace on a phone');
    await screenshot(rpage, 'analytics-reviewer-375-dark');
  });

  t.test('a staff member approves an open-source sponsorship request', async (t) => {
    const staff = await signUp(h.app, { orgName: 'Patchwell staff', name: 'Sam Staff' });
    await h.app.db('users').where({ id: staff.user.id }).update({ staff: true });
    const project = await signUp(h.app, { orgName: 'Gadget OSS' });
    const request = {
      repository_url: 'https://github.com/gadget/core',
      name: 'Grace',
      email: 'grace@gadget.test',
      monthly_issues: 40,
    };
    await call(null, 'POST', '/v1/public/oss-sponsorship-requests', request);

    const page = await signedInPage(h, staff, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/analytics');
    const section = page.getByRole('region', { name: 'Open-source sponsorship requests' });
    await section.getByRole('link', { name: 'github.com/gadget/core' }).waitFor();
    await section.getByRole('button', { name: 'Decide on github.com/gadget/core' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sponsor github.com/gadget/core?' });
    await dialog.getByLabel('Organization id').fill(project.organization.id);
    await dialog.getByLabel('Fixes to grant').fill('15');
    await expectAccessible(t, page, 'sponsorship decision');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await dialog.waitFor({ state: 'detached' });
    await section.getByText('No requests here').waitFor();
    await page.getByLabel('Requests', { exact: true }).selectOption('approved');
    await section.getByText(`Approved by ${staff.user.email} (15 fixes)`).waitFor();
    const balances = h.app.db('credit_balances').where({ org_id: project.organization.id, source: 'sponsored' });
    const balance = (await balances.first()) as { granted_fixes: number } | undefined;
    t.equal(balance?.granted_fixes, 15, "the project's organization has its sponsored fixes");
  });
}
