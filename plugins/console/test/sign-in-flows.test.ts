import t from 'tap';
import type { BrowserContext } from 'playwright-core';
import { signUp } from '../../../test/helpers/accounts.js';
import { makeKeyPair } from '../../sso/test/helpers/certs.js';
import { setPlan, verifiedDomain } from '../../sso/test/helpers/fixtures.js';
import { startOidcProvider } from '../../sso/test/helpers/oidc-idp.js';
import { IDP_ENTITY_ID, readAuthnRequest, signedResponse } from '../../sso/test/helpers/saml-idp.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';

// The sign-in flows that leave the console and come back: the code host's sign-in page, single
// sign-on by the address's domain (OIDC, a real oidc-provider), an identity provider's app tile
// through the confirmation page and the SAML completion step; and signing out from the shell.
if (browserAvailable(t)) {
  // The local code host's sign-in page knows only the accounts its options list (none by default).
  const LINUS = { login: 'linus', email: 'linus@kernel.example', password: 'penguins-1991' };
  const h = await startConsole(t, {
    adapters: { options: { 'codehost-local': { users: [LINUS] } } },
    // The OIDC provider of the test listens on 127.0.0.1, which discovery refuses otherwise.
    security: { allowLoopbackFetch: true },
  });
  const json = (res: { payload: string }) => JSON.parse(res.payload) as Record<string, unknown> & { id: string };
  interface Me {
    user: { email: string; role: string; org_id: string };
    session: { sso: boolean };
  }
  /** GET /v1/auth/me with the browser's cookies (in process: no socket to race a keep-alive close). */
  const whoIs = async (context: BrowserContext): Promise<{ status: number; me: Me | null }> => {
    const cookie = (await context.cookies(h.base)).map((c) => `${c.name}=${c.value}`).join('; ');
    const res = await h.app.server.inject({ url: '/v1/auth/me', headers: { cookie } });
    return { status: res.statusCode, me: res.statusCode === 200 ? (JSON.parse(res.payload) as Me) : null };
  };

  t.test('the code host signs in the account whose verified address it knows; sign out and back', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Kernel', name: 'Linus Torvalds', email: LINUS.email });
    const { context, page } = await h.open({ width: 1440, locale: 'en', colorScheme: 'light' });

    await page.goto('/login');
    await page.getByRole('link', { name: 'Continue with the code host' }).click();
    await page.getByRole('heading', { name: 'Sign in to the local code host' }).waitFor();
    await expectAccessible(t, page, 'local code host: sign in');
    await screenshot(page, 'codehost-sign-in-en-light');
    await page.getByLabel('Login').fill(LINUS.login);
    await page.getByLabel('Password').fill(LINUS.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Not linked yet, and the address is not confirmed: nothing links it.
    await page.getByRole('heading', { name: 'Sign in to Patchwell' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'No account is linked to this code host login' }).waitFor();
    t.match(page.url(), /\/login\?error=codehost_account_not_linked$/, 'the failure code stays in the address');
    await expectAccessible(t, page, 'sign in: code host refused');

    // The emailed confirmation link signs the person in; then out again from the user menu.
    await page.goto(await h.link(LINUS.email, /./, '/verify-email'));
    await page.getByText(`${LINUS.email} is confirmed.`).waitFor();
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Your first workspace' }).waitFor();
    await page.getByRole('button', { name: 'Account: Linus Torvalds' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Patchwell' }).waitFor();
    t.equal((await whoIs(context)).status, 401, 'the session is closed on the service, not only forgotten by the page');

    // A page behind the session: sign-in, then the code host, then back to that page.
    await page.goto('/settings/profile');
    await page.getByRole('heading', { name: 'Sign in to Patchwell' }).waitFor();
    t.match(page.url(), /\/login\?redirect_to=%2Fsettings%2Fprofile$/, 'the page asked for is kept');
    await page.getByRole('link', { name: 'Continue with the code host' }).click();
    await page.getByLabel('Login').fill(LINUS.login);
    await page.getByLabel('Password').fill(LINUS.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    t.match(new URL(page.url()).pathname, '/settings/profile', 'back on the page asked for');
    await page.getByText(`Linked to ${LINUS.login}.`).waitFor();
    await page.getByRole('link', { name: 'Link again' }).waitFor();
    await page.getByRole('button', { name: 'Account: Linus Torvalds' }).waitFor();
    await expectAccessible(t, page, 'profile after code host sign-in');
    await screenshot(page, 'profile-codehost-linked-en-light');
    const user = await h.app.db('users').where({ id: owner.user.id }).first<{ code_host_login: string | null }>();
    t.equal(user.code_host_login, LINUS.login, 'the login is linked to the existing account');
  });

  t.test('single sign-on by the address’s domain: OIDC, a new member provisioned on the way', async (t) => {
    const idp = await startOidcProvider(`${h.base}/v1/auth/sso/oidc/callback`);
    t.teardown(() => idp.close());
    const owner = await signUp(h.app, { orgName: 'Acme', email: 'owner@acme.test' });
    await setPlan(h.app, owner.organization.id);
    const created = await h.app.server.inject({
      method: 'POST',
      url: '/v1/security/sso/connections',
      ...owner.auth,
      payload: {
        protocol: 'oidc',
        name: 'Acme IdP',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        domains: ['acme.test'],
        jit_enabled: true,
        default_role: 'reviewer',
      },
    });
    t.equal(created.statusCode, 201, created.statusCode === 201 ? 'the connection is set up' : created.payload);
    await verifiedDomain(h.app, owner.organization.id, 'acme.test');

    const { context, page } = await h.open({ width: 375, locale: 'en', colorScheme: 'light' });
    await page.goto('/login');
    await page.getByLabel('Email').fill('ada@acme.test');
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
    // The provider signs Ada in without a form (test/helpers/oidc-idp.ts) and sends her back.
    await page.getByRole('button', { name: 'Account: Ada Lovelace' }).waitFor();
    t.equal(new URL(page.url()).origin, h.base, 'back on the console');
    await expectAccessible(t, page, 'signed in by single sign-on (375 px)');
    await screenshot(page, 'sso-signed-in-en-light-375');
    t.match(
      (await whoIs(context)).me,
      { user: { email: 'ada@acme.test', role: 'reviewer', org_id: owner.organization.id }, session: { sso: true } },
      'a member of Acme, in a single sign-on session',
    );
  });

  t.test(
    'an app tile opens the confirmation page; confirming signs in through SAML and its completion step',
    async (t) => {
      const keys = makeKeyPair('idp.globex.test');
      const owner = await signUp(h.app, { orgName: 'Globex', email: 'owner@globex.test' });
      await setPlan(h.app, owner.organization.id);
      await verifiedDomain(h.app, owner.organization.id, 'globex.test');
      const created = await h.app.server.inject({
        method: 'POST',
        url: '/v1/security/sso/connections',
        ...owner.auth,
        payload: {
          protocol: 'saml',
          name: 'Globex SAML',
          entity_id: IDP_ENTITY_ID,
          sso_url: 'http://idp.globex.test/sso',
          certificate: keys.cert,
          domains: ['globex.test'],
          jit_enabled: true,
          default_role: 'admin',
        },
      });
      t.equal(created.statusCode, 201, created.statusCode === 201 ? 'the connection is set up' : created.payload);
      const conn = json(created) as { id: string; service_provider: { entity_id: string; acs_url: string } };

      const { context, page } = await h.open({ width: 1440, locale: 'en', colorScheme: 'light' });
      // The identity provider's page: the person is signed in there and posts the answer (HTTP-POST binding).
      await context.route('http://idp.globex.test/**', async (route) => {
        const req = readAuthnRequest(route.request().url());
        const assertion = {
          inResponseTo: req.id,
          audience: conn.service_provider.entity_id,
          recipient: req.acs!,
          email: 'sam@globex.test',
          name: 'Sam Saml',
        };
        const response = signedResponse(assertion, keys);
        const hidden = (name: string, value: string) =>
          `<input type="hidden" name="${name}" value="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;
        await route.fulfill({
          contentType: 'text/html; charset=utf-8',
          body: `<!doctype html><html lang="en"><head><title>Globex sign-in</title></head><body><main><h1>Globex identity provider</h1>
<form method="post" action="${req.acs}">${hidden('SAMLResponse', response)}${hidden('RelayState', req.relayState)}
<button type="submit">Continue to Patchwell</button></form></main></body></html>`,
        });
      });
      const visited: string[] = [];
      page.on('request', (r) => visited.push(new URL(r.url()).pathname));

      await page.goto(
        `/v1/auth/sso/login?connection=${conn.id}&redirect_to=${encodeURIComponent('/settings/profile')}`,
      );
      await page.getByRole('heading', { name: 'Sign in to Globex' }).waitFor();
      t.match(new URL(page.url()).pathname, '/sso/confirm', 'the tile lands on the confirmation page');
      await page
        .getByText('You will sign in with Globex SAML (SAML). Continue only if you started this sign-in.')
        .waitFor();
      t.equal((await whoIs(context)).status, 401, 'nothing is signed in before the person confirms');
      await expectAccessible(t, page, 'single sign-on: confirm');
      await screenshot(page, 'sso-confirm-en-light');

      await page.getByRole('button', { name: 'Continue to sign in' }).click();
      await page.getByRole('heading', { name: 'Globex identity provider' }).waitFor();
      await page.getByRole('button', { name: 'Continue to Patchwell' }).click();
      await page.getByRole('heading', { name: 'Your profile' }).waitFor();
      t.ok(
        visited.includes('/v1/auth/sso/complete'),
        'the session opened at the completion step, in the browser that started',
      );
      t.match(new URL(page.url()).pathname, '/settings/profile', 'on the page the tile named');
      await page.getByRole('button', { name: 'Account: Sam Saml' }).waitFor();
      await expectAccessible(t, page, 'profile after single sign-on');
      t.match(
        (await whoIs(context)).me,
        { user: { email: 'sam@globex.test', role: 'admin' }, session: { sso: true } },
        'a new admin of Globex, in a single sign-on session',
      );
    },
  );

  t.test('an app tile of an unknown connection ends on sign-in with the reason', async (t) => {
    const { page } = await h.open({ width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/v1/auth/sso/login?connection=ssoc_unknown');
    await page.getByRole('heading', { name: 'Sign in to Patchwell' }).waitFor();
    t.match(page.url(), /\/login\?sso_error=connection_not_found$/, 'the failure code stays in the address');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    t.notMatch(
      await alert.textContent(),
      /^The sign-in did not complete/,
      'the reason in words, not the generic failure',
    );
    await expectAccessible(t, page, 'sign in: unknown connection');
  });
}
