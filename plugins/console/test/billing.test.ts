import t from 'tap';
import { addMember, onPlan, signUp } from '../../../test/helpers/accounts.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27, the billing section: an owner without a plan sees the plans, checks out Startup through
// the local payment provider's pages (a trial: the card is kept) and comes back on the new plan with
// its trial days; switches to Growth after reading what changes; buys a top-up (its fixes in the
// credits by source and the ledger, its invoice downloadable); sets a spend cap with its alert
// threshold; and a second claim of the same kind is refused in words. A reviewer reads it in Italian
// on a phone, with nothing to change and no invoices.
if (browserAvailable(t)) {
  const h = await startConsole(t);

  t.test('an owner checks out a plan, switches it, tops up, caps the spend and reads the invoices', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Acme Billing', name: 'Bea Owner' });
    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Billing', exact: true }).click();
    await page.getByRole('heading', { name: 'Billing', exact: true }).waitFor();
    const plan = page.getByRole('region', { name: 'Your plan' });
    await plan.getByText('No plan', { exact: true }).first().waitFor();
    t.equal(await page.getByRole('row', { name: /Current/ }).count(), 0, 'no plan in the table is marked current');
    await expectAccessible(t, page, 'billing without a plan');
    await screenshot(page, 'billing-no-plan-en');

    // Checkout: what changes first, then the provider's page, then back here on the new plan.
    await page.getByRole('button', { name: 'Start a trial of the Startup plan' }).click();
    const dialog = page.getByRole('dialog', { name: 'Check out the Startup plan' });
    await dialog.getByRole('table', { name: 'What changes' }).waitFor();
    await dialog.getByText('It starts with a 14-day free trial with 10 fixes').waitFor();
    await expectAccessible(t, page, 'checkout dialog');
    await dialog.getByRole('button', { name: 'Go to the payment page' }).click();
    await page.getByRole('heading', { name: 'Checkout' }).waitFor();
    t.match(new URL(page.url()).pathname, /^\/pay\/local\/checkout\//, "the payment provider's page");
    await page.getByRole('button', { name: 'Start trial' }).click();
    await page.getByText('Welcome back: the payment page is done').waitFor();
    t.equal(new URL(page.url()).pathname, '/billing', 'back on the billing page');
    await plan.getByText('Startup', { exact: true }).first().waitFor();
    await plan.getByText(/14 days left \(until .+\), 10 trial fixes/).waitFor();
    t.equal(
      await page.getByRole('row', { name: /^Startup Current/ }).count(),
      1,
      'Startup is marked as the current plan',
    );

    // A switch says what changes and that it is prorated.
    await page.getByRole('button', { name: 'Switch to Growth' }).click();
    const change = page.getByRole('dialog', { name: 'Switch to Growth?' });
    await change.getByRole('row', { name: /Fixes a month 60 200/ }).waitFor();
    await change.getByText(/prorated/).waitFor();
    await change.getByRole('button', { name: 'Switch the plan' }).click();
    await change.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /^Growth Current/ }).waitFor();

    // A top-up: the provider's page, back, and its fixes in the credits.
    await page.getByRole('button', { name: 'Buy 10 fixes' }).click();
    await page.getByRole('heading', { name: 'Checkout' }).waitFor();
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByText('Welcome back: the top-up is paid').waitFor();
    const bySource = page.getByRole('table', { name: 'Credits by source' });
    await bySource.getByRole('row', { name: /^Top-up 10/ }).waitFor();
    const ledger = page.getByRole('table', { name: 'Credit ledger' });
    await ledger.getByRole('row', { name: /Granted Top-up \+10/ }).waitFor();
    t.ok(
      (await ledger.getByRole('row', { name: /Granted Plan/ }).count()) >= 1,
      "the plan's grants are in the ledger too",
    );

    // The spend cap and its alert threshold.
    await page.getByLabel('Monthly cap in USD').fill('150');
    await page.getByRole('button', { name: 'Save the cap' }).click();
    await page.getByText('Monthly cap $150.00; an email alert at 80% ($120.00).').waitFor();
    const org = (await h.app.db('organizations').where({ id: owner.organization.id }).first()) as {
      spend_cap_usd: string | number;
    };
    t.equal(Number(org.spend_cap_usd), 150, 'the cap is stored');

    // Invoices: the top-up's, with the provider's page to download it.
    const invoices = page.getByRole('region', { name: 'Invoices' });
    const link = invoices.getByRole('link', { name: /^Download / }).first();
    await link.waitFor();
    await invoices.getByRole('row', { name: /Top-up \$30\.00 Paid/ }).waitFor();
    const res = await page.request.get(
      (await invoices
        .getByRole('row', { name: /Top-up/ })
        .getByRole('link')
        .getAttribute('href'))!,
    );
    t.equal(res.status(), 200, "the invoice link opens the provider's invoice");

    // A second review claim: the API's 409, in words.
    const claims = page.getByRole('region', { name: 'Fixes for a review or case study' });
    await claims.getByLabel('Address of the publication').fill('https://reviews.example/acme');
    await claims.getByRole('button', { name: 'Send the claim' }).click();
    await claims.getByRole('cell', { name: 'Waiting for review' }).waitFor();
    await claims.getByLabel('Address of the publication').fill('https://reviews.example/acme-again');
    await claims.getByRole('button', { name: 'Send the claim' }).click();
    await claims.getByText('A claim of this kind is already waiting or approved.').waitFor();
    await expectAccessible(t, page, 'billing on a plan');
    await screenshot(page, 'billing-growth-en');
  });

  t.test('a reviewer reads billing in Italian on a phone, with nothing to change', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Bottega Billing' });
    await onPlan(h.app, owner.organization.id, 'growth');
    const reviewer = await addMember(h.app, owner, { role: 'reviewer' });
    await h.app.server.inject({ method: 'PATCH', url: '/v1/me', payload: { locale: 'it' }, ...reviewer.auth });
    const page = await signedInPage(h, reviewer, { width: 375, locale: 'it', colorScheme: 'dark' });
    await page.goto('/tickets');
    // Reviewers find Billing in their own group of the menu (the settings group is the admins').
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Fatturazione', exact: true }).click();
    await page.getByRole('heading', { name: 'Fatturazione', exact: true }).waitFor();
    await page.getByRole('row', { name: /^Growth Attuale/ }).waitFor();
    await page.getByRole('region', { name: 'Il tuo piano' }).getByText('Attivo', { exact: true }).waitFor();
    t.equal(await page.getByRole('button', { name: /^Passa a / }).count(), 0, 'no plan switch for a reviewer');
    t.equal(await page.getByRole('button', { name: 'Salva il tetto' }).count(), 0, 'no spend cap form');
    t.equal(await page.getByRole('heading', { name: 'Fatture' }).count(), 0, 'invoices are for owners and admins');
    await expectAccessible(t, page, 'billing for a reviewer in Italian');
    await screenshot(page, 'billing-reviewer-it-375-dark');
  });
}
