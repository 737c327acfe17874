import t from 'tap';
import { signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27, the agency section: an agency on the Agency plan sees its clients with their workspaces
// and numbers, prepares a client's monthly report, reads its preview (figures and the weekly chart)
// and sends it; sets a resale price (collecting it is refused in words until the payout account is
// ready), onboards the payout account through the provider's page and comes back, then collects the
// price from the client; and asks for partner certification. A direct organization has no agency page.
if (browserAvailable(t)) {
  const h = await startConsole(t);

  async function post<T = { id: string }>(who: SignedUp, url: string, payload: Record<string, unknown>): Promise<T> {
    const res = await h.app.server.inject({ method: 'POST', url, payload, ...who.auth });
    if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.payload}`);
    return JSON.parse(res.payload) as T;
  }

  /** The Agency plan, paid on payment-local's checkout page (a subscription the provider knows, for add-ons). */
  async function subscribe(who: SignedUp): Promise<void> {
    const { url } = await post<{ url: string }>(who, '/v1/billing/checkout', { plan: 'agency' });
    const form = { method: 'POST' as const, url: new URL(url).pathname, payload: 'card=4242+4242+4242+4242' };
    const res = await h.app.server.inject({
      ...form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    if (res.statusCode !== 303) throw new Error(`checkout page: ${res.statusCode} ${res.payload}`);
  }

  /** A ticket of the client's workspace on a day of October 2026, answered (and resolved) after some minutes. */
  async function ticket(
    orgId: string,
    workspaceId: string,
    day: number,
    answerMin: number,
    resolveMin?: number,
  ): Promise<void> {
    const tickets = h.app.container.resolve<{
      createTicket: (trx: unknown, input: Record<string, unknown>) => Promise<{ id: string }>;
    }>('ticketService');
    const input = { orgId, workspaceId, origin: 'email', subject: 'Help', customerEmail: 'jane@example.com' };
    const tk = await h.app.db.transaction((trx) => tickets.createTicket(trx, input));
    const at = (min: number) => new Date(Date.UTC(2026, 9, day, 10, 0, 0) + min * 60_000);
    const patch: Record<string, unknown> = { created_at: at(0), first_response_at: at(answerMin), state: 'answered' };
    if (resolveMin !== undefined) Object.assign(patch, { state: 'closed', closed_at: at(resolveMin) });
    await h.app.db('tickets').where({ id: tk.id }).update(patch);
  }

  t.test(
    'an agency reads its clients, sends a monthly report, sets up resale and payouts, and its partner profile',
    async (t) => {
      const owner = await signUp(h.app, { orgName: 'Pixel Agency', name: 'Ada Agent', organizationType: 'agency' });
      await subscribe(owner);
      const shop = await post(owner, '/v1/workspaces', { name: 'Client shop', client_name: 'Client Co' });
      await post(owner, '/v1/workspaces', { name: 'Negozio', client_name: 'Bottega Srl' });
      await ticket(owner.organization.id, shop.id, 5, 10, 60);
      await ticket(owner.organization.id, shop.id, 6, 30, 600);
      await ticket(owner.organization.id, shop.id, 20, 20);

      const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
      await page.goto('/tickets');
      await page.getByRole('link', { name: 'Agency', exact: true }).click();
      await page.getByRole('heading', { name: 'Agency', exact: true }).waitFor();
      const clients = page.getByRole('region', { name: 'Clients' });
      await clients.getByRole('link', { name: 'Client Co' }).waitFor();
      await clients.getByText('Workspace Negozio').waitFor();
      await page.getByText('0 of 2 clients are ready to go out under their own brand.').waitFor();
      await expectAccessible(t, page, 'agency overview');
      await screenshot(page, 'agency-overview-en');

      // A client's report of last month: prepared, previewed with its figures, then sent.
      await clients.getByRole('link', { name: 'Client Co' }).click();
      await page.getByRole('heading', { name: 'Client Co', exact: true }).waitFor();
      await page.getByText('No reports yet').waitFor();
      t.equal(
        await page.getByLabel('Month of the report').inputValue(),
        '2026-10',
        'the last complete month is proposed',
      );
      await page.getByRole('button', { name: 'Prepare the report' }).click();
      await page.getByRole('heading', { name: 'Client Co: report of 2026-10' }).waitFor();
      const preview = page.getByRole('region', { name: 'Preview' });
      t.equal(await preview.getByRole('definition').first().textContent(), '3', 'three tickets opened in October');
      await preview.getByText('Show as a table').click();
      const weekly = preview.getByRole('table', { name: 'Tickets per week' });
      await weekly.getByRole('row', { name: /Oct 5, 2026 2 2 0/ }).waitFor();
      await expectAccessible(t, page, 'report preview');
      await screenshot(page, 'agency-report-en');
      await page.getByLabel('Recipients').fill('boss@client.example');
      await page.getByRole('button', { name: 'Send the report' }).click();
      await page.getByText(/^Sent .+ to boss@client\.example\.$/).waitFor();
      const mail = await h.outbox.waitFor((m) => m.to.includes('boss@client.example'), 10_000);
      t.ok(mail, 'the client received the report');

      // Resale: collecting needs a ready payout account (the 409 in words), then the provider's onboarding.
      await page.getByRole('link', { name: 'Resale and payouts' }).click();
      await page.getByRole('heading', { name: 'Resale and payouts', exact: true }).waitFor();
      await page.getByText('Not set up: clients cannot pay you through the service yet.').waitFor();
      await page.getByRole('button', { name: 'Set the price of Client Co' }).click();
      const edit = page.getByRole('dialog', { name: 'Resale price of Client Co' });
      await edit.getByLabel('Monthly price in USD').fill('49');
      await edit.getByLabel('Collect it from the client through the payout account').check();
      await edit.getByLabel("Client's billing email").fill('billing@client.example');
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.getByText(/The payout account is not ready/).waitFor();
      await expectAccessible(t, page, 'resale refused');
      await edit.getByRole('button', { name: 'Cancel' }).click();

      await page.getByRole('button', { name: 'Set up payouts' }).click();
      await page.getByRole('heading', { name: 'Payout account onboarding' }).waitFor();
      await page.getByLabel('Business name').fill('Pixel Agency Srl');
      await page.getByRole('button', { name: 'Submit details' }).click();
      await page.getByText('Welcome back: the payout account details were sent.').waitFor();
      await page.getByRole('link', { name: 'Back to resale and payouts' }).click();
      await page.getByText('Ready: charges and payouts are enabled.').waitFor();

      await page.getByRole('button', { name: 'Set the price of Client Co' }).click();
      await edit.getByLabel('Monthly price in USD').fill('49');
      await edit.getByLabel('Collect it from the client through the payout account').check();
      await edit.getByLabel("Client's billing email").fill('billing@client.example');
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.waitFor({ state: 'detached' });
      const row = page.getByRole('row', { name: /^Client Co \$49\.00/ });
      await row.getByText('Waiting for the client to pay').waitFor();
      await h.outbox.waitFor((m) => m.to.includes('billing@client.example'), 10_000);

      // The managed add-on of the other client, billed on the agency's subscription.
      await page.getByRole('checkbox', { name: 'Managed add-on for Bottega Srl' }).click();
      await page.getByRole('checkbox', { name: 'Managed add-on for Bottega Srl', checked: true }).waitFor();
      const billing = JSON.parse(
        (await h.app.server.inject({ method: 'GET', url: '/v1/billing', ...owner.auth })).payload,
      ) as {
        agency: { workspaces: { client_name: string; managed_addon: boolean }[] };
        summary: { addons: { managed_workspaces: number } };
      };
      t.same(
        billing.agency.workspaces.filter((w) => w.managed_addon).map((w) => w.client_name),
        ['Bottega Srl'],
        'the add-on is on that client only',
      );
      t.equal(billing.summary.addons.managed_workspaces, 1, 'and billed once');
      await expectAccessible(t, page, 'resale and payouts');
      await screenshot(page, 'agency-resale-en');

      // The partner profile: saved, and certification asked of staff.
      await page.getByRole('link', { name: 'Partner profile' }).click();
      await page.getByRole('heading', { name: 'Partner profile', exact: true }).waitFor();
      await page.getByLabel('Website').fill('https://pixel.example');
      await page.getByLabel('Countries').fill('IT, CH');
      await page.getByLabel('Italian').check();
      await page.getByLabel('Managed support').check();
      await page.getByLabel('Ask for certification').check();
      await page.getByRole('button', { name: 'Save the profile' }).click();
      await page.getByText(/^Certification requested on /).waitFor();
      const stored = (await h.app
        .db('agency_partner_profiles')
        .where({ org_id: owner.organization.id })
        .first()) as Record<string, unknown>;
      t.equal(stored.website_url, 'https://pixel.example', 'the profile is stored');
      await expectAccessible(t, page, 'partner profile');
    },
  );

  t.test('a direct organization is offered no agency page', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Direct Shop' });
    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Billing', exact: true }).waitFor();
    t.equal(await page.getByRole('link', { name: 'Agency', exact: true }).count(), 0, 'no Agency in the nav');
  });
}
