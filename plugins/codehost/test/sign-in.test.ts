import t from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { sessionFrom, setCookies, signUp } from '../../../test/helpers/accounts.js';
import type { Answer } from '../../../test/helpers/api-types.js';
import { LOCAL_USER, SECRET, call, startCodehostApp } from './helpers.js';

/** The columns of a users row this test reads. */
interface UserRow {
  code_host_login: string | null;
}

const BOB = { login: 'bob', email: 'bob@nowhere.test', password: 'bob-password-1' };
const CAROL = { login: 'carol', email: 'carol@example.test', password: 'carol-password-1' };

function cookieValue(res: { headers: Record<string, unknown> }, name: string): string | null {
  for (const c of setCookies(res)) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(c);
    if (m) return m[1] || null;
  }
  return null;
}

/** start → the local host's sign-in page → back to the callback. Answers the callback's response. */
async function flow(
  app: App,
  opts: {
    intent: 'signin' | 'link';
    cookie?: string;
    user: { login: string; password: string };
    dropBrowserCookie?: boolean;
    redirectTo?: string;
  },
) {
  const start = await app.server.inject({
    method: 'GET',
    url: `/v1/auth/codehost/start?intent=${opts.intent}${opts.redirectTo ? `&redirect_to=${encodeURIComponent(opts.redirectTo)}` : ''}`,
    headers: opts.cookie ? { cookie: opts.cookie } : {},
  });
  if (start.statusCode !== 302) throw new Error(`start: ${start.statusCode} ${start.payload}`);
  const authorize = new URL(String(start.headers.location));
  const browser = cookieValue(start, 'pw_codehost_oauth');
  if (authorize.pathname !== '/codehost/local/login/oauth/authorize')
    return { start, callback: null, browser, authorize };
  const form = new URLSearchParams({
    ...Object.fromEntries(authorize.searchParams),
    login: opts.user.login,
    password: opts.user.password,
  });
  const approved = await app.server.inject({
    method: 'POST',
    url: authorize.pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
  if (approved.statusCode !== 302) throw new Error(`authorize: ${approved.statusCode}`);
  const back = new URL(String(approved.headers.location));
  const cookies = [opts.cookie, !opts.dropBrowserCookie && browser ? `pw_codehost_oauth=${browser}` : null]
    .filter(Boolean)
    .join('; ');
  const callback = await app.server.inject({
    method: 'GET',
    url: back.pathname + back.search,
    headers: cookies ? { cookie: cookies } : {},
  });
  return { start, callback, browser, authorize, callbackUrl: back.pathname + back.search };
}

t.test('code-host sign-in and linking (OAuth with state and PKCE)', async (t) => {
  const app = await startCodehostApp(t, {
    adapters: {
      codeHost: 'codehost-local',
      options: { 'codehost-local': { webhookSecret: SECRET, users: [LOCAL_USER, BOB, CAROL] } },
    },
  });
  const owner = await signUp(app, { orgName: 'Acme' });

  await t.test('a signed-in user links the code-host login', async (t) => {
    const { start, callback, authorize } = await flow(app, { intent: 'link', cookie: owner.cookie, user: LOCAL_USER });
    t.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    t.match(authorize.searchParams.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/);
    t.match(String(start.headers['set-cookie']), /pw_codehost_oauth=chb_[^;]+;.*HttpOnly/);
    t.equal(callback!.statusCode, 302);
    t.equal(callback!.headers.location, 'http://localhost:3000/?codehost=linked');
    const status = await call(app, owner, 'GET', '/v1/codehost');
    t.match(status.body.link, { linked: true, login: 'ada', token_last4: /^.{4}$/ });
    t.equal((await app.db('users').where({ id: owner.user.id }).first<UserRow>()).code_host_login, 'ada');
    t.equal(
      (await app.db('audit_entries').where({ action: 'user.code_host_linked', target_id: owner.user.id })).length,
      1,
      'audited',
    );
    const stored = await app
      .db('codehost_user_tokens')
      .where({ user_id: owner.user.id })
      .first<{ token_sealed: string }>();
    t.notMatch(stored.token_sealed, /^lut_/, 'the user token is sealed');
  });

  await t.test('the linked login signs in and lands on redirect_to', async (t) => {
    const { callback } = await flow(app, { intent: 'signin', user: LOCAL_USER, redirectTo: '/tickets' });
    t.equal(callback!.statusCode, 302);
    t.equal(callback!.headers.location, 'http://localhost:3000/tickets');
    const session = sessionFrom(callback!);
    t.ok(session, 'a session cookie is set');
    const me = await app.server.inject({
      method: 'GET',
      url: '/v1/auth/me',
      headers: { cookie: `pw_session=${session}` },
    });
    t.equal(me.statusCode, 200);
    t.equal((JSON.parse(me.payload) as Answer<'GET', '/v1/auth/me'>).user.id, owner.user.id);
  });

  await t.test('the state is single use and bound to the browser that started', async (t) => {
    const r = await flow(app, { intent: 'signin', user: LOCAL_USER });
    const replay = await app.server.inject({
      method: 'GET',
      url: r.callbackUrl!,
      headers: { cookie: `pw_codehost_oauth=${r.browser}` },
    });
    t.equal(replay.headers.location, 'http://localhost:3000/login?error=codehost_state_invalid');
    const csrf = await flow(app, { intent: 'signin', user: LOCAL_USER, dropBrowserCookie: true });
    t.equal(
      csrf.callback!.headers.location,
      'http://localhost:3000/login?error=codehost_state_invalid',
      "another browser cannot finish someone's sign-in",
    );
    t.notOk(sessionFrom(csrf.callback!));
    const denied = await app.server.inject({
      method: 'GET',
      url: '/v1/auth/codehost/callback?error=access_denied&state=chl_x',
    });
    t.equal(denied.headers.location, 'http://localhost:3000/login?error=codehost_state_invalid');
  });

  await t.test('a login nobody linked is refused; a verified address links on first sign-in', async (t) => {
    const bob = await flow(app, { intent: 'signin', user: BOB });
    t.equal(bob.callback!.headers.location, 'http://localhost:3000/login?error=codehost_account_not_linked');
    const carol = await signUp(app, { email: CAROL.email, orgName: 'Carol Co' });
    const unverified = await flow(app, { intent: 'signin', user: CAROL });
    t.equal(
      unverified.callback!.headers.location,
      'http://localhost:3000/login?error=codehost_account_not_linked',
      'not before the address is verified',
    );
    await app.db('users').where({ id: carol.user.id }).update({ email_verified_at: new Date() });
    const verified = await flow(app, { intent: 'signin', user: CAROL });
    t.equal(verified.callback!.headers.location, 'http://localhost:3000/');
    t.ok(sessionFrom(verified.callback!));
    t.equal((await app.db('users').where({ id: carol.user.id }).first<UserRow>()).code_host_login, 'carol');
  });

  await t.test('linking needs a signed-in user; foreign redirects are refused', async (t) => {
    const res = await app.server.inject({ method: 'GET', url: '/v1/auth/codehost/start?intent=link' });
    t.equal(res.statusCode, 302);
    t.equal(res.headers.location, 'http://localhost:3000/login?error=sign_in_required');
    const evil = await app.server.inject({
      method: 'GET',
      url: `/v1/auth/codehost/start?redirect_to=${encodeURIComponent('https://evil.example/steal')}`,
    });
    t.equal(evil.statusCode, 400);
  });

  await t.test('an organization that enforces single sign-on refuses code-host sign-in', async (t) => {
    await app.db('organizations').where({ id: owner.organization.id }).update({ sso_enforced: true });
    const r = await flow(app, { intent: 'signin', user: LOCAL_USER });
    t.equal(r.callback!.headers.location, 'http://localhost:3000/login?error=sso_required');
  });
});

t.test('a host without sign-in accounts sends the browser back to sign-in with the reason', async (t) => {
  // The embedded defaults: codehost-local with no users, whose sign-in form could never succeed.
  const app = await startCodehostApp(t, {
    adapters: { codeHost: 'codehost-local', options: { 'codehost-local': { webhookSecret: SECRET, users: [] } } },
  });
  const res = await app.server.inject({ method: 'GET', url: '/v1/auth/codehost/start?redirect_to=%2Ftickets' });
  t.equal(res.statusCode, 302);
  t.equal(res.headers.location, 'http://localhost:3000/login?error=codehost_sign_in_unavailable');
  t.notOk(cookieValue(res, 'pw_codehost_oauth'), 'no sign-in is started');
  const [{ n }] = await app.db('codehost_states').whereIn('purpose', ['signin', 'link']).count<
    Array<{
      n: string | number;
    }>
  >('* as n');
  t.equal(Number(n), 0, 'and no state is kept');
});
