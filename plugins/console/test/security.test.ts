import { readFile } from 'node:fs/promises';
import t from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { addMember, onPlan, signUp } from '../../../test/helpers/accounts.js';
import { startDns } from '../../../test/helpers/dns-server.js';
import { makeKeyPair } from '../../sso/test/helpers/certs.js';
import { setPlan } from '../../sso/test/helpers/fixtures.js';
import { startOidcProvider } from '../../sso/test/helpers/oidc-idp.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

/** An organization as stored (organizations), the columns this test reads. */
interface OrganizationRow {
  id: string;
  name: string;
  slug: string;
  retention_days: number;
  sso_enforced: boolean;
  approval_min_approvers: number;
  approval_roles: string[];
}

/** The stored row of an organization. */
async function storedOrganization(app: App, id: string): Promise<OrganizationRow> {
  const row = await app.db<OrganizationRow>('organizations').where({ id }).first();
  if (!row) throw new Error(`organization ${id} is not stored`);
  return row;
}

// Issue 27, the security section: an owner on Enterprise connects the company's identity provider
// (a real oidc-provider), copies the redirect URI it needs and tests it; a SAML connection with an
// expired certificate is explained in words; the email domain is proven by a TXT record on a DNS
// server the test runs; requiring single sign-on is refused with its blockers listed, then granted,
// and the recovery codes are shown once, copied and downloaded; approvals need two people. The
// organization's own settings; the section in Italian; a plan without single sign-on is told why.
if (browserAvailable(t)) {
  const dns = await startDns();
  t.teardown(() => dns.close());
  const h = await startConsole(t, {
    // The OIDC provider of the test listens on 127.0.0.1, which discovery refuses otherwise.
    security: { allowLoopbackFetch: true },
    plugins: { sso: { options: { dnsServers: [dns.server], dnsTimeoutMs: 1000 } } },
  });
  const idp = await startOidcProvider(`${h.base}/v1/auth/sso/oidc/callback`);
  t.teardown(() => idp.close());

  t.test('an owner sets up single sign-on, requires it and keeps the recovery codes', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Umbrella', name: 'Olga Owner', email: 'olga@umbrella.test' });
    await setPlan(h.app, owner.organization.id);
    const stray = await addMember(h.app, owner, {
      role: 'reviewer',
      email: 'contractor@gmail.test',
      name: 'Carl Contractor',
    });
    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.base });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('heading', { name: 'Security', exact: true }).waitFor();
    await page.getByText('No connection yet').waitFor();

    // The company's OIDC provider; the redirect URI it needs, copied.
    await page.getByRole('button', { name: 'Add a connection' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Umbrella IdP');
    await page.getByLabel('Email domains').fill('umbrella.test');
    await page.getByLabel('Issuer URL').fill(idp.issuer);
    await page.getByLabel('Client ID').fill(idp.clientId);
    await page.getByLabel('Client secret').fill(idp.clientSecret);
    await page.getByRole('button', { name: 'Create the connection' }).click();
    const oidc = page.getByRole('article', { name: 'Umbrella IdP' });
    await oidc.waitFor();
    await oidc.getByRole('button', { name: 'Copy the redirect URI' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    t.equal(
      await page.evaluate(() => navigator.clipboard.readText()),
      `${h.base}/v1/auth/sso/oidc/callback`,
      'the redirect URI the IdP needs is copied',
    );
    await oidc.getByRole('button', { name: 'Test the connection' }).click();
    await oidc.getByText("The connection works: the provider's discovery document was read").waitFor();
    await oidc.getByText(`${idp.issuer}/token`, { exact: false }).first().waitFor();

    // A SAML connection whose certificate has expired: what failed and what to do.
    await page.getByRole('button', { name: 'Add a connection' }).click();
    await page.getByLabel('Protocol').selectOption('saml');
    await page.getByLabel('Name', { exact: true }).fill('Old SAML');
    await page.getByLabel('Identity provider entity ID').fill('https://old-idp.umbrella.test/entity');
    await page.getByLabel('Identity provider sign-in URL').fill('https://old-idp.umbrella.test/sso');
    await page.getByLabel('Signing certificate (PEM)').fill(makeKeyPair('old-idp', { expired: true }).cert);
    await page.getByRole('button', { name: 'Create the connection' }).click();
    const saml = page.getByRole('article', { name: 'Old SAML' });
    await saml.getByLabel('assertion consumer service URL', { exact: true }).waitFor();
    const acs = await saml.getByLabel('assertion consumer service URL', { exact: true }).textContent();
    t.match(acs, /\/v1\/auth\/sso\/saml\/ssoc?_?[\w-]+\/acs$/, 'the ACS URL the IdP needs');
    await saml.getByRole('button', { name: 'Test the connection' }).click();
    await saml.getByText('The signing certificate has expired.').waitFor();
    await saml.getByText('Download the new signing certificate from your identity provider').waitFor();

    // The domain: the TXT record to publish, checked before and after it is published.
    const domain = page.getByRole('article', { name: 'umbrella.test' });
    await domain.getByText('Waiting for verification').waitFor();
    const txtName = (await domain.getByLabel('TXT record name', { exact: true }).textContent())!;
    const txtValue = (await domain.getByLabel('TXT record value', { exact: true }).textContent())!;
    t.equal(txtName, '_patchwell-challenge.umbrella.test');
    await domain.getByRole('button', { name: 'Verify now' }).click();
    await domain.getByText('The TXT record is not there yet').waitFor();
    await domain.getByRole('button', { name: 'Copy the TXT record value' }).click();
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), txtValue, 'the value is copied');
    dns.txt.set(txtName, [txtValue]);
    await domain.getByRole('button', { name: 'Verify now' }).click();
    await domain.getByText('Verified', { exact: true }).waitFor();
    await domain.getByText(/^Verified on /).waitFor();

    // Requiring single sign-on: refused, with what blocks it and who.
    const enforcement = page.getByRole('region', { name: 'Require single sign-on' });
    await enforcement.getByRole('button', { name: 'Require single sign-on' }).click();
    const refused = enforcement.getByRole('alert');
    await refused.getByText('Single sign-on was not required, because:').waitFor();
    await refused.getByText('1 member has an address outside your verified domains.').waitFor();
    await refused.getByText('Carl Contractor <contractor@gmail.test>', { exact: false }).waitFor();
    await refused.getByText('You are not signed in through single sign-on.').waitFor();
    await expectAccessible(t, page, 'security: connections, domain, enforcement refused');
    await screenshot(page, 'security-en');

    // The contractor leaves and the owner signs in through the IdP (the sign-in itself: sign-in-flows.test.ts).
    t.equal(
      (await h.app.server.inject({ method: 'DELETE', url: `/v1/members/${stray.user.id}`, ...owner.auth })).statusCode,
      204,
    );
    await h.app.db('sessions').where({ user_id: owner.user.id }).update({ sso: true });
    await page.reload();
    await enforcement.getByText('Not required').waitFor();
    t.equal(await enforcement.getByText('It cannot be required yet:').count(), 0, 'nothing blocks it any more');
    await enforcement.getByRole('button', { name: 'Require single sign-on' }).click();
    const shown = page.getByRole('dialog', { name: 'Your recovery codes' });
    await shown.waitFor();
    const codes = (await shown.getByLabel('Recovery codes').textContent())!.split('\n').filter(Boolean);
    t.equal(codes.length, 10, 'ten recovery codes, shown once');
    t.match(codes[0], /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/i);
    await shown.getByRole('button', { name: 'Copy the codes' }).click();
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), codes.join('\n'), 'copied, one a line');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      shown.getByRole('button', { name: 'Download as a file' }).click(),
    ]);
    t.equal((await readFile(await download.path(), 'utf8')).trim(), codes.join('\n'), 'and kept as a file');
    await expectAccessible(t, page, 'recovery codes shown once');
    await shown.getByRole('button', { name: 'I have kept them' }).click();
    await enforcement.getByText('Required', { exact: true }).waitFor();
    await enforcement.getByText(/^10 codes left/).waitFor();
    t.notMatch(await page.locator('body').innerText(), codes[0], 'the codes are gone from the page');
    t.equal((await storedOrganization(h.app, owner.organization.id)).sso_enforced, true, 'single sign-on is required');

    // Approvals: two people, reviewers too.
    const approvals = page.getByRole('form', { name: 'Approvals' });
    await approvals.getByLabel('Approvals needed').fill('2');
    await approvals.getByLabel('Reviewer').check();
    await approvals.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Approval settings saved').waitFor();
    const org = await storedOrganization(h.app, owner.organization.id);
    t.same(
      [org.approval_min_approvers, [...org.approval_roles].sort()],
      [2, ['admin', 'owner', 'reviewer']],
      'the governance is stored',
    );

    // The organization's own settings; a short name in use is refused at its field.
    const other = await signUp(h.app, { orgName: 'Taken Co' });
    await page.getByRole('link', { name: 'Organization', exact: true }).click();
    await page.getByRole('heading', { name: 'Organization', exact: true }).waitFor();
    await page.getByLabel('Short name').fill(other.organization.slug);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Another organization uses this short name.').waitFor();
    t.equal(await page.getByLabel('Short name').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Short name').fill('umbrella-corp');
    await page.getByLabel('Name', { exact: true }).fill('Umbrella Corporation');
    await page.getByLabel('Keep data for (days)').fill('30');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Organization saved').waitFor();
    await page.getByText('Single sign-on required').waitFor();
    const saved = await storedOrganization(h.app, owner.organization.id);
    t.same([saved.name, saved.slug, saved.retention_days], ['Umbrella Corporation', 'umbrella-corp', 30]);
    await expectAccessible(t, page, 'organization settings');
    await screenshot(page, 'organization-en');
  });

  t.test('in Italian: the security section of an Enterprise organization', async (t) => {
    const owner = await signUp(h.app, {
      orgName: 'Ombrello',
      name: 'Olivia Titolare',
      email: 'olivia@ombrello.test',
      locale: 'it',
    });
    await setPlan(h.app, owner.organization.id);
    const res = await h.app.server.inject({
      method: 'POST',
      url: '/v1/security/sso/connections',
      ...owner.auth,
      payload: {
        protocol: 'oidc',
        name: 'Ombrello IdP',
        domains: ['ombrello.test'],
        issuer: 'https://10.0.0.9',
        client_id: 'c',
        client_secret: 'a-secret-value',
      },
    });
    t.equal(res.statusCode, 201, res.payload);
    const page = await signedInPage(h, owner, { width: 375, locale: 'it', colorScheme: 'dark' });
    await page.goto('/tickets');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Sicurezza', exact: true }).click();
    await page.getByRole('heading', { name: 'Sicurezza', exact: true }).waitFor();
    const conn = page.getByRole('article', { name: 'Ombrello IdP' });
    await conn.getByRole('button', { name: "Copia l'URI di reindirizzamento" }).waitFor();
    await conn.getByRole('button', { name: 'Prova la connessione' }).click();
    await conn.getByText("L'indirizzo dell'issuer è in una rete privata o riservata").waitFor();
    await conn.getByText("Usa l'indirizzo pubblico del provider").waitFor();
    await page.getByRole('article', { name: 'ombrello.test' }).getByText('In attesa di verifica').waitFor();
    await page
      .getByRole('region', { name: 'Richiedi il single sign-on' })
      .getByText('Nessuna connessione indica un dominio verificato.')
      .waitFor();
    await expectAccessible(t, page, 'sicurezza');
    await screenshot(page, 'security-it-375-dark');
  });

  t.test('a plan without single sign-on says why the section is locked', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Initech' });
    await onPlan(h.app, owner.organization.id, 'startup');
    const admin = await addMember(h.app, owner, { role: 'admin', name: 'Adam Admin' });
    const page = await signedInPage(h, admin, { width: 1440 });
    await page.goto('/security');
    const sso = page.getByRole('region', { name: 'Single sign-on' });
    await sso.getByText('Your plan does not include this').waitFor();
    await sso.getByText('Your organization is on Startup.', { exact: false }).waitFor();
    t.equal(await page.getByRole('button', { name: 'Add a connection' }).count(), 0, 'nothing offered that would fail');
    await page.getByRole('region', { name: 'Approvals' }).getByText('Not in your plan').waitFor();
    await expectAccessible(t, page, 'security locked by the plan');
  });
}
