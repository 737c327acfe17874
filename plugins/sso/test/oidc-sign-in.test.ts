import t from 'tap';
import { startTestApp } from '../../../test/helpers/app.js';
import { signUp } from '../../../test/helpers/accounts.js';
import { startOidcProvider } from './helpers/oidc-idp.js';
import { cookieFrom, json, sessionCount, setPlan, ssoConnection, verifiedDomain } from './helpers/fixtures.js';

const CALLBACK = 'http://localhost:3000/v1/auth/sso/oidc/callback';

t.test('an organization signs its people in with OIDC against a real identity provider', async (t) => {
  const app = await startTestApp(t, { security: { allowLoopbackFetch: true } });
  const idp = await startOidcProvider(CALLBACK);
  t.teardown(() => idp.close());
  const owner = await signUp(app, { email: 'owner@acme.test' });
  await setPlan(app, owner.organization.id);

  const created = await app.server.inject({
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
  t.equal(created.statusCode, 201, created.payload);
  const conn = json<{ id: string; has_client_secret: boolean; service_provider: { redirect_uri: string } }>(created);
  const connection = ssoConnection(app, owner, conn.id);
  t.equal(conn.has_client_secret, true, 'has_client_secret');
  t.notOk(created.payload.includes(idp.clientSecret), 'the secret never leaves');
  t.equal(conn.service_provider.redirect_uri, CALLBACK);
  const sealed = await app
    .db<{ id: string; client_secret_sealed: string | null }>('sso_connections')
    .where({ id: conn.id })
    .first();
  t.notOk(String(sealed?.client_secret_sealed).includes(idp.clientSecret), 'the secret is sealed at rest');

  const test = await connection.test();
  t.same(test, { ok: true, protocol: 'oidc', details: test.details, error: null }, 'discovery works');

  const notYet = await app.server.inject({
    method: 'POST',
    url: '/v1/auth/sso/start',
    payload: { email: 'ada@acme.test' },
  });
  t.equal(notYet.statusCode, 404, 'no sign-on before the domain is verified');
  await verifiedDomain(app, owner.organization.id, 'acme.test');

  const signInOnce = async (redirectTo?: string) => {
    const start = await app.server.inject({
      method: 'POST',
      url: '/v1/auth/sso/start',
      payload: { email: 'Ada@Acme.test', ...(redirectTo ? { redirect_to: redirectTo } : {}) },
    });
    t.equal(start.statusCode, 200, start.payload);
    const browser = cookieFrom(start, 'pw_sso');
    t.ok(browser, 'the start binds the browser');
    const { redirect_url } = json<{ redirect_url: string }>(start);
    const params = new URL(redirect_url).searchParams;
    t.equal(params.get('code_challenge_method'), 'S256', 'PKCE');
    t.ok(params.get('nonce') && params.get('state'), 'nonce and state');
    const back = await idp.authorize(redirect_url);
    t.ok(back.startsWith(CALLBACK), `the IdP returns to our callback: ${back}`);
    return { back: back.slice('http://localhost:3000'.length), browser: browser! };
  };

  await t.test('JIT: a new person signs in and becomes a reviewer; the session is an SSO one', async (t) => {
    const { back, browser } = await signInOnce('/tickets');
    const res = await app.server.inject({ method: 'GET', url: back, headers: { cookie: `pw_sso=${browser}` } });
    t.equal(res.statusCode, 302, res.payload);
    t.equal(res.headers.location, 'http://localhost:3000/tickets');
    const session = cookieFrom(res, 'pw_session');
    t.ok(session, 'signed in');
    const me = json<{ user: { email: string; role: string }; session: { sso: boolean } }>(
      await app.server.inject({ method: 'GET', url: '/v1/auth/me', headers: { cookie: `pw_session=${session}` } }),
    );
    t.equal(me.user.email, 'ada@acme.test');
    t.equal(me.user.role, 'reviewer', 'default_role');
    t.equal(me.session.sso, true, 'AuthContext.session.sso');
    // Provisioned through the accounts service: its audit entry and its event, plus this plugin's own event.
    const ada = (await app.db('users').where({ email: 'ada@acme.test' }).first()) as { id: string; org_id: string };
    t.match(
      await app.db('audit_entries').where({ action: 'member.provisioned', target_id: ada.id }),
      [{ actor_type: 'system', org_id: owner.organization.id }],
      'member.provisioned audited',
    );
    const events = await app
      .db('outbox')
      .whereIn('type', ['accounts.member_joined', 'sso.member_provisioned'])
      .select<Array<{ type: string; payload: unknown }>>('type', 'payload');
    const about = events
      .map((e) => ({
        type: e.type,
        payload: (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload) as Record<string, unknown>,
      }))
      .filter((e) => e.payload.user_id === ada.id);
    t.match(
      about.sort((x, y) => x.type.localeCompare(y.type)),
      [
        { type: 'accounts.member_joined', payload: { via: 'sso', role: 'reviewer' } },
        { type: 'sso.member_provisioned', payload: { connection_id: conn.id } },
      ],
      'accounts.member_joined and sso.member_provisioned',
    );

    const before = await sessionCount(app);
    const again = await app.server.inject({ method: 'GET', url: back, headers: { cookie: `pw_sso=${browser}` } });
    t.equal(again.headers.location, 'http://localhost:3000/login?sso_error=state_mismatch', 'a callback works once');
    t.equal(await sessionCount(app), before, 'no session opened');

    const overview = json<{ sso: { connections: Array<{ linked_accounts: number; last_login_at: string | null }> } }>(
      await app.server.inject({ method: 'GET', url: '/v1/security', ...owner.auth }),
    );
    t.equal(overview.sso.connections[0].linked_accounts, 1, 'linked_accounts');
    t.ok(overview.sso.connections[0].last_login_at, 'last_login_at');
  });

  await t.test('a callback in another browser is refused', async (t) => {
    const { back } = await signInOnce();
    const before = await sessionCount(app);
    const res = await app.server.inject({ method: 'GET', url: back, headers: { cookie: 'pw_sso=pwb_someone-else' } });
    t.equal(res.headers.location, 'http://localhost:3000/login?sso_error=state_mismatch');
    t.equal(await sessionCount(app), before);
  });

  await t.test('unlinking makes the next sign-in link again by verified email', async (t) => {
    const res = await app.server.inject({
      method: 'POST',
      url: `/v1/security/sso/connections/${conn.id}/unlink`,
      ...owner.auth,
      payload: { email: 'ada@acme.test' },
    });
    t.equal(res.statusCode, 200, res.payload);
    t.equal(json<{ linked_accounts: number }>(res).linked_accounts, 0);
    idp.account.sub = 'sub-ada-2';
    const { back, browser } = await signInOnce();
    const cb = await app.server.inject({ method: 'GET', url: back, headers: { cookie: `pw_sso=${browser}` } });
    t.ok(cookieFrom(cb, 'pw_session'), 'signed in');
    const users = await app.db('users').where({ email: 'ada@acme.test' });
    t.equal(users.length, 1, 'the same account, linked again');
    const links = await app.db('sso_identities').where({ connection_id: conn.id });
    t.same(
      links.map((l: { subject: string }) => l.subject),
      ['sub-ada-2'],
    );
    const missing = await app.server.inject({
      method: 'POST',
      url: `/v1/security/sso/connections/${conn.id}/unlink`,
      ...owner.auth,
      payload: { email: 'nobody@acme.test' },
    });
    t.equal(missing.statusCode, 404);
  });

  await t.test('without JIT, an unknown person is refused', async (t) => {
    await connection.update({ jit_enabled: false });
    idp.account.sub = 'sub-bob';
    idp.account.email = 'bob@acme.test';
    const { back, browser } = await signInOnce();
    const before = await sessionCount(app);
    const res = await app.server.inject({ method: 'GET', url: back, headers: { cookie: `pw_sso=${browser}` } });
    t.equal(res.headers.location, 'http://localhost:3000/login?sso_error=not_provisioned');
    t.equal(await sessionCount(app), before);
  });

  await t.test('an unverified address at the IdP does not link an existing member', async (t) => {
    await connection.update({ jit_enabled: true });
    idp.account.sub = 'sub-owner';
    idp.account.email = 'owner@acme.test';
    idp.account.email_verified = false;
    const { back, browser } = await signInOnce();
    const res = await app.server.inject({ method: 'GET', url: back, headers: { cookie: `pw_sso=${browser}` } });
    t.equal(res.headers.location, 'http://localhost:3000/login?sso_error=email_not_verified');
    idp.account.email_verified = true;
  });

  await t.test('an issuer that differs from the discovered one by a slash is refused', async (t) => {
    const res = await connection.update({ issuer: `${idp.issuer}/` });
    t.equal(res.statusCode, 200);
    const test = await connection.test();
    t.same([test.ok, test.error], [false, 'issuer_mismatch']);
  });

  await t.test('discovery refuses private and metadata addresses', async (t) => {
    for (const [issuer, error] of [
      ['https://169.254.169.254', 'blocked_address'],
      ['http://10.0.0.1', 'blocked_address'],
      ['https://[fd00:ec2::254]', 'blocked_address'],
    ] as const) {
      await connection.update({ issuer });
      const test = await connection.test();
      t.same([test.ok, test.error], [false, error], issuer);
    }
  });
});
