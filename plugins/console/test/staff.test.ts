import t from 'tap';
import type { AuditEntry } from '../../../core/audit/audit-writer.js';
import { signUp } from '../../../test/helpers/accounts.js';
import type { Schema } from '../../../test/helpers/api-types.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27, the operator (staff) area of a self-hosted installation: the operator finds an
// organization, puts it on Enterprise (sold by no checkout) with a reason after confirming, and
// approves a credit claim. Owners never see the area, and the page explains why if they open it.
if (browserAvailable(t)) {
  const h = await startConsole(t);

  t.test('an operator grants Enterprise and approves a credit claim; an owner sees no operator area', async (t) => {
    const operator = await signUp(h.app, { orgName: 'Patchwell Ops', name: 'Otto Operator' });
    await h.app.db('users').where({ id: operator.user.id }).update({ staff: true });
    const initech = await signUp(h.app, { orgName: 'Initech', name: 'Ines Initech' });
    const claim = await h.app.server.inject({
      method: 'POST',
      url: '/v1/billing/claims',
      ...initech.auth,
      payload: { kind: 'case_study', url: 'https://blog.initech.example/patchwell' },
    });
    t.equal(claim.statusCode, 201);

    // An owner: no Operator group, and the page says who it is for.
    const owner = await signedInPage(h, initech, { width: 1440, locale: 'en' });
    await owner.goto('/tickets');
    await owner.getByRole('link', { name: 'Tickets', exact: true }).waitFor();
    t.equal(await owner.getByRole('group', { name: 'Operator' }).count(), 0, 'no operator links for an owner');
    await owner.goto('/staff/organizations');
    await owner.getByRole('heading', { name: 'For the operators of this installation' }).waitFor();
    await owner.context().close();

    const page = await signedInPage(h, operator, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/tickets');
    await page.getByRole('group', { name: 'Operator' }).getByRole('link', { name: 'Organizations' }).click();
    await page.getByRole('heading', { name: 'Organizations', exact: true }).waitFor();
    await page.getByLabel('Name, short name or id').fill('initech');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: 'Patchwell Ops' }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Initech' }).waitFor();
    await expectAccessible(t, page, 'staff organizations');
    await screenshot(page, 'staff-organizations-en');
    await page.getByRole('link', { name: 'Initech' }).click();
    await page.getByRole('heading', { name: 'Initech' }).waitFor();
    await page.getByRole('heading', { name: '0 fixes left' }).waitFor();

    // The grant: a reason is required; the dialog says what changes; the page shows the new plan and its fixes.
    await page.getByLabel('Plan', { exact: true }).selectOption('enterprise');
    await page.getByLabel('Reason').fill('Contract 2026-114');
    await page.getByRole('button', { name: 'Put on this plan…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Put Initech on Enterprise?' });
    await dialog.getByText('The plan changes from No plan to Enterprise now, without a payment.').waitFor();
    await dialog.getByRole('button', { name: 'Change the plan' }).click();
    await page.getByText('Initech is on the Enterprise plan.').waitFor();
    await page.getByRole('heading', { name: /^[1-9][\d,]* fixes left$/ }).waitFor();
    await page.getByRole('region', { name: 'Summary' }).getByText('Enterprise', { exact: true }).waitFor();
    await expectAccessible(t, page, 'staff organization');
    await screenshot(page, 'staff-organization-en');
    const org = await h.app
      .db<{ id: string; plan: string | null }>('organizations')
      .where({ id: initech.organization.id })
      .first('plan');
    t.equal(org?.plan, 'enterprise', 'the organization is on Enterprise');
    const audit = await h.app
      .db<AuditEntry>('audit_entries')
      .where({ org_id: initech.organization.id, action: 'billing.plan_granted' });
    t.equal(audit.length, 1, 'audited once in the organization');
    t.equal(audit[0].actor_type, 'staff');

    // The claim: approved after confirming, the credits granted.
    await page.getByRole('group', { name: 'Operator' }).getByRole('link', { name: 'Credit claims' }).click();
    await page.getByRole('heading', { name: 'Credit claims', exact: true }).waitFor();
    await page.getByRole('link', { name: 'https://blog.initech.example/patchwell' }).waitFor();
    await expectAccessible(t, page, 'staff claims');
    await page.getByRole('button', { name: 'Approve the claim of Initech' }).click();
    const approve = page.getByRole('dialog', { name: 'Approve the claim of Initech?' });
    await approve.getByLabel('Note (optional)').fill('Read it, thanks');
    await approve.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.getByText('The claim of Initech is approved.').waitFor();
    await page.getByText('No claims here').waitFor();
    const decided = await h.app
      .db<{ id: string; status: string; decision_note: string | null }>('billing_claims')
      .where({ id: (JSON.parse(claim.payload) as Schema<'Claim'>).id })
      .first('status', 'decision_note');
    t.same(decided, { status: 'approved', decision_note: 'Read it, thanks' });
    await screenshot(page, 'staff-claims-en');

    // Onboarding: the figures of the last 30 days, as the API counts them.
    await page.getByRole('group', { name: 'Operator' }).getByRole('link', { name: 'Onboarding' }).click();
    const figures = page.getByRole('region', { name: 'Figures' });
    await figures.getByText('Sign-ups').waitFor();
    const metrics = JSON.parse(
      (await h.app.server.inject({ method: 'GET', url: '/v1/onboarding/metrics', ...operator.auth })).payload,
    ) as { signups: number };
    t.equal(metrics.signups, 2, 'both organizations signed up in the period');
    t.match(await figures.textContent(), /Sign-ups\s*2(?!\d)/, 'the page shows the same count');
    await expectAccessible(t, page, 'staff onboarding');
  });
}
