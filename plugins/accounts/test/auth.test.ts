import t from 'tap';
import {
  assertNoSecretsLeaked,
  cookieHeader,
  expectStatus,
  harness,
  refusalErrors,
  sessionFrom,
  sessionSetCookie,
  type AccountsHarness,
  type EmailTokenRow,
  type SessionRow,
} from './helpers.js';

const PASSWORD = 'a long enough password';
const NEW_PASSWORD = 'a brand new password';

// One service for the whole file (starting one takes seconds); each scenario uses its own addresses.
const h = await harness(t, { plugins: { accounts: { options: { staffEmails: ['ops@example.test'] } } } });

async function signup(h: AccountsHarness, email: string, extra: Record<string, unknown> = {}) {
  return h.call(null, 'POST', '/v1/auth/signup', {
    name: 'Ada Lovelace',
    email,
    password: PASSWORD,
    organization_name: 'Analytical Engines',
    accept_terms: true,
    ...extra,
  });
}

t.test('a new customer signs up, confirms the address from the mailed link, signs out and back in', async (t) => {
  const res = await signup(h, 'Ada@Example.test', {
    organization_type: 'agency',
    locale: 'it',
    referral_code: 'friend42',
  });
  expectStatus(t, res, 201, 'signed up');
  const body = res.body;
  t.equal(body.email_verification_required, true);
  t.match(body.user, {
    email: 'ada@example.test',
    name: 'Ada Lovelace',
    role: 'owner',
    locale: 'it',
    email_verified_at: null,
    workspace_ids: [],
    code_host_login: null,
    disabled_at: null,
  });
  t.match(body.organization, {
    name: 'Analytical Engines',
    slug: 'analytical-engines',
    type: 'agency',
    plan: 'none',
    subscription_status: 'none',
    trial_ends_at: null,
    billing_email: 'ada@example.test',
    signup_source: 'referral',
    locale: 'it',
    sso_enforced: false,
    spend_cap_usd: null,
  });
  t.equal(body.user.org_id, body.organization.id);
  t.match(body.organization.referral_code, /^[a-z2-9]{8}$/, 'the organization gets its own referral code');
  t.same(body.workspaces, []);
  t.equal(body.session.sso, false);
  t.equal(body.staff, false);
  t.match(body.plan, { id: 'none', name: 'No plan', limits: { tickets_per_month: Number } });
  const expires = Date.parse(body.session.expires_at);
  t.ok(
    expires > Date.now() + 6.9 * 86_400_000 && expires < Date.now() + 7.1 * 86_400_000,
    'the session idles out in 7 days',
  );

  const setCookie = sessionSetCookie(res)!;
  t.match(setCookie, /^pw_session=pws_[A-Za-z0-9_-]{43};/, 'an opaque 256-bit session token');
  t.match(setCookie, /HttpOnly/);
  t.match(setCookie, /SameSite=Lax/);
  t.match(setCookie, /Path=\//);
  t.notMatch(setCookie, /Secure/, 'not Secure on http');
  const owner = cookieHeader(sessionFrom(res)!);

  const [mail] = await h.mails('ada@example.test', 'accounts.verify_email');
  t.ok(mail, 'a verification email is sent');
  t.equal(mail.locale, 'it', "in the user's language");
  t.match(mail.text, /http:\/\/localhost:3000\/verify-email\?token=pwv_/);
  t.equal(mail.org_id, body.organization.id);

  const me = await h.call(owner, 'GET', '/v1/auth/me');
  t.equal(me.status, 200);
  t.equal(me.body.user.id, body.user.id);

  const token = await h.tokenFromMail('ada@example.test', 'accounts.verify_email');
  const verified = await h.call(owner, 'POST', '/v1/auth/verify-email', { token });
  expectStatus(t, verified, 200, 'the address is confirmed');
  t.ok(verified.body.user.email_verified_at, 'the address is verified');
  t.equal(sessionSetCookie(verified), null, 'the same user keeps the current session');
  const again = await h.call(owner, 'POST', '/v1/auth/verify-email', { token });
  t.equal(again.status, 400);
  t.match(again.body, { code: 'invalid_token', details: { reason: 'used' } }, 'a link works once');

  const taken = await signup(h, 'ADA@example.test');
  t.equal(taken.status, 409);
  t.equal(taken.body.code, 'email_taken');

  const out = await h.call(owner, 'POST', '/v1/auth/logout');
  t.equal(out.status, 200);
  t.same(out.body, { ok: true });
  t.match(sessionSetCookie(out), /^pw_session=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/, 'the cookie is cleared');
  t.equal((await h.call(owner, 'GET', '/v1/auth/me')).status, 401, 'the session is closed');

  const anonymousOut = await h.call(null, 'POST', '/v1/auth/logout');
  t.equal(anonymousOut.status, 200, 'logout succeeds without a session');
  t.ok(sessionSetCookie(anonymousOut), 'and still clears the cookie');

  const wrong = await h.call(null, 'POST', '/v1/auth/login', {
    email: 'ada@example.test',
    password: 'not the password',
  });
  const unknown = await h.login('nobody@example.test', PASSWORD);
  t.equal(wrong.status, 401);
  t.equal(unknown.status, 401);
  t.equal(wrong.body.code, 'invalid_credentials');
  t.same(wrong.body, unknown.body, 'a wrong password and an unknown address answer alike');

  const login = await h.login('ADA@example.test', PASSWORD);
  expectStatus(t, login, 200, 'signed in');
  t.ok(login.body.user.last_login_at);
  const first = sessionFrom(login)!;
  const rotated = await h.call(cookieHeader(first), 'POST', '/v1/auth/login', {
    email: 'ada@example.test',
    password: PASSWORD,
  });
  const second = sessionFrom(rotated)!;
  t.not(second, first, 'signing in again gives a new session token');
  t.equal(
    (await h.call(cookieHeader(first), 'GET', '/v1/auth/me')).status,
    401,
    'and closes the one the browser carried',
  );
  t.equal((await h.call(cookieHeader(second), 'GET', '/v1/auth/me')).status, 200);
});

t.test('signup checks its input', async (t) => {
  const noTerms = await signup(h, 'x@example.test', { accept_terms: false });
  t.equal(noTerms.status, 400);
  t.equal(noTerms.body.code, 'invalid_request');
  const short = await signup(h, 'x@example.test', { password: 'short' });
  t.equal(short.status, 400);
  t.match(refusalErrors(short.body), [{ path: 'payload.password' }]);
  const long = await signup(h, 'x@example.test', { password: 'x'.repeat(201) });
  t.equal(long.status, 400);
  const badType = await signup(h, 'x@example.test', { organization_type: 'reseller' });
  t.equal(badType.status, 400);
  t.equal((await h.app.db('users').where({ email: 'x@example.test' })).length, 0, 'bad input stores nothing');
  const sameName = [await signup(h, 'one@example.test'), await signup(h, 'two@example.test')];
  t.not(sameName[0].body.organization.slug, sameName[1].body.organization.slug, 'slugs stay unique');
});

t.test('email verification signs in only when nobody is signed in', async (t) => {
  const a = await signup(h, 'a@example.test');
  const b = await signup(h, 'b@example.test');
  const tokenA = await h.tokenFromMail('a@example.test', 'accounts.verify_email');

  const asOther = await h.call(cookieHeader(sessionFrom(b)!), 'POST', '/v1/auth/verify-email', { token: tokenA });
  t.equal(asOther.status, 409);
  t.equal(asOther.body.code, 'signed_in_as_other_user');

  const anonymous = await h.call(null, 'POST', '/v1/auth/verify-email', { token: tokenA });
  t.equal(anonymous.status, 200, 'the link still works after the refusal');
  t.equal(anonymous.body.user.id, a.body.user.id);
  t.ok(anonymous.body.user.email_verified_at);
  const opened = sessionFrom(anonymous);
  t.ok(opened, 'a session is opened');
  t.equal((await h.call(cookieHeader(opened!), 'GET', '/v1/auth/me')).status, 200);

  // Resend: a new link while unverified, nothing once verified.
  const bCookie = cookieHeader(sessionFrom(b)!);
  const resend = await h.call(bCookie, 'POST', '/v1/auth/verify-email/resend');
  t.same([resend.status, resend.body], [200, { sent: true }]);
  t.equal((await h.mails('b@example.test', 'accounts.verify_email')).length, 2);
  const resendVerified = await h.call(cookieHeader(opened!), 'POST', '/v1/auth/verify-email/resend');
  t.same([resendVerified.status, resendVerified.body], [200, { sent: true }]);
  t.equal((await h.mails('a@example.test', 'accounts.verify_email')).length, 1, 'no mail for a verified address');
  t.equal((await h.call(null, 'POST', '/v1/auth/verify-email/resend')).status, 401, 'resend needs a session');

  // An expired link.
  const tokenB = await h.tokenFromMail('b@example.test', 'accounts.verify_email');
  await h.app
    .db('email_tokens')
    .where({ purpose: 'verify_email', email: 'b@example.test' })
    .update({ expires_at: new Date(Date.now() - 1000) });
  const expired = await h.call(null, 'POST', '/v1/auth/verify-email', { token: tokenB });
  t.equal(expired.status, 400);
  t.match(expired.body, { code: 'invalid_token', details: { reason: 'expired' } });
  const garbage = await h.call(null, 'POST', '/v1/auth/verify-email', { token: 'pwv_nope' });
  t.match(garbage.body, { code: 'invalid_token', details: { reason: 'unknown' } });
});

t.test('magic link: same answer for unknown addresses, single use, short lived', async (t) => {
  await signup(h, 'magic@example.test');
  const t0 = Date.now();
  const known = await h.call(null, 'POST', '/v1/auth/magic-link', {
    email: 'magic@example.test',
    redirect_to: '/tickets?x=1',
  });
  const t1 = Date.now();
  const unknown = await h.call(null, 'POST', '/v1/auth/magic-link', { email: 'ghost@example.test' });
  const t2 = Date.now();
  t.same([known.status, known.body], [200, { sent: true }]);
  t.same([unknown.status, unknown.body], [200, { sent: true }]);
  t.ok(t1 - t0 >= 240 && t2 - t1 >= 240, 'both take at least the uniform answer time');
  t.equal((await h.mails('ghost@example.test')).length, 0, 'nothing is sent to an unknown address');
  const [mail] = await h.mails('magic@example.test', 'accounts.magic_link');
  t.match(mail.text, /http:\/\/localhost:3000\/magic-link\?token=pwm_[A-Za-z0-9_-]+&redirect_to=%2Ftickets%3Fx%3D1/);

  const openRedirect = await h.call(null, 'POST', '/v1/auth/magic-link', {
    email: 'magic@example.test',
    redirect_to: 'https://evil.example/',
  });
  t.equal(openRedirect.status, 400, 'no redirects to other sites');
  const protocolRelative = await h.call(null, 'POST', '/v1/auth/magic-link', {
    email: 'magic@example.test',
    redirect_to: '//evil.example/',
  });
  t.equal(protocolRelative.status, 400);

  const token = await h.tokenFromMail('magic@example.test', 'accounts.magic_link');
  const signedIn = await h.call(null, 'POST', '/v1/auth/magic-link/verify', { token });
  expectStatus(t, signedIn, 200, 'signed in by the link');
  t.equal(signedIn.body.user.email, 'magic@example.test');
  t.ok(signedIn.body.user.email_verified_at, 'the link proves the address');
  t.ok(sessionFrom(signedIn));
  const reuse = await h.call(null, 'POST', '/v1/auth/magic-link/verify', { token });
  t.match([reuse.status, reuse.body], [400, { code: 'invalid_token', details: { reason: 'used' } }]);

  await h.call(null, 'POST', '/v1/auth/magic-link', { email: 'magic@example.test' });
  const late = await h.tokenFromMail('magic@example.test', 'accounts.magic_link');
  const row = await h.app
    .db<EmailTokenRow>('email_tokens')
    .where({ purpose: 'magic_link', email: 'magic@example.test' })
    .whereNull('used_at')
    .first();
  if (!row) throw new Error('the link is stored');
  t.ok(row.expires_at.getTime() - row.created_at.getTime() <= 15 * 60_000 + 1000, 'valid 15 minutes');
  await h.app
    .db<EmailTokenRow>('email_tokens')
    .where({ id: row.id })
    .update({ expires_at: new Date(Date.now() - 1) });
  const expired = await h.call(null, 'POST', '/v1/auth/magic-link/verify', { token: late });
  t.match([expired.status, expired.body], [400, { code: 'invalid_token', details: { reason: 'expired' } }]);
  const wrongKind = await h.call(null, 'POST', '/v1/auth/magic-link/verify', {
    token: await h.tokenFromMail('magic@example.test', 'accounts.verify_email'),
  });
  t.equal(wrongKind.status, 400, 'a verification token is no sign-in token');
});

t.test('a password reset closes every other session and opens a new one', async (t) => {
  await signup(h, 'reset@example.test');
  const login = () => h.login('reset@example.test', PASSWORD);
  const laptop = cookieHeader(sessionFrom(await login())!);
  const phone = cookieHeader(sessionFrom(await login())!);

  const unknown = await h.call(null, 'POST', '/v1/auth/password-reset', { email: 'ghost@example.test' });
  t.same([unknown.status, unknown.body], [200, { sent: true }]);
  const asked = await h.call(null, 'POST', '/v1/auth/password-reset', { email: 'reset@example.test' });
  t.same([asked.status, asked.body], [200, { sent: true }]);
  const [mail] = await h.mails('reset@example.test', 'accounts.password_reset');
  t.match(mail.text, /http:\/\/localhost:3000\/reset-password\?token=pwr_/);
  const token = await h.tokenFromMail('reset@example.test', 'accounts.password_reset');

  const tooShort = await h.call(null, 'POST', '/v1/auth/password-reset/confirm', { token, password: 'short' });
  t.equal(tooShort.status, 400);
  const confirmed = await h.call(null, 'POST', '/v1/auth/password-reset/confirm', { token, password: NEW_PASSWORD });
  expectStatus(t, confirmed, 200, 'new password set');
  t.equal(confirmed.body.user.email, 'reset@example.test');
  const fresh = cookieHeader(sessionFrom(confirmed)!);
  t.equal((await h.call(laptop, 'GET', '/v1/auth/me')).status, 401, 'the laptop session is closed');
  t.equal((await h.call(phone, 'GET', '/v1/auth/me')).status, 401, 'the phone session is closed');
  t.equal((await h.call(fresh, 'GET', '/v1/auth/me')).status, 200, 'the new session works');
  t.equal((await login()).status, 401, 'the old password no longer works');
  t.equal((await h.login('reset@example.test', NEW_PASSWORD)).status, 200);
  const reuse = await h.call(null, 'POST', '/v1/auth/password-reset/confirm', {
    token,
    password: 'yet another password',
  });
  t.match([reuse.status, reuse.body], [400, { code: 'invalid_token' }]);

  await h.call(null, 'POST', '/v1/auth/password-reset', { email: 'reset@example.test' });
  const late = await h.tokenFromMail('reset@example.test', 'accounts.password_reset');
  await h.app
    .db('email_tokens')
    .where({ purpose: 'password_reset', email: 'reset@example.test' })
    .whereNull('used_at')
    .update({ expires_at: new Date(Date.now() - 1) });
  const expired = await h.call(null, 'POST', '/v1/auth/password-reset/confirm', {
    token: late,
    password: 'yet another password',
  });
  t.match([expired.status, expired.body], [400, { code: 'invalid_token', details: { reason: 'expired' } }]);
  const audit = await h.app.db('audit_entries').where({ action: 'user.password_reset' });
  t.equal(audit.length, 1, 'the reset is audited');
});

t.test('sessions: idle and absolute lifetimes, sliding touch', async (t) => {
  const res = await signup(h, 'life@example.test');
  const cookie = cookieHeader(sessionFrom(res)!);
  const sessions = () => h.app.db<SessionRow>('sessions').where({ user_id: res.body.user.id });
  const row = await sessions().first();
  if (!row) throw new Error('the session is stored');
  t.ok(
    row.absolute_expires_at.getTime() - row.created_at.getTime() >= 30 * 86_400_000 - 1000,
    'absolute lifetime 30 days',
  );

  // Touched at most once a minute: a request within the minute writes nothing.
  await h.call(cookie, 'GET', '/v1/auth/me');
  t.equal((await sessions().first())?.last_seen_at.getTime(), row.last_seen_at.getTime());
  const twoMinutesAgo = new Date(Date.now() - 120_000);
  await sessions().update({ last_seen_at: twoMinutesAgo, idle_expires_at: new Date(Date.now() + 60_000) });
  await h.call(cookie, 'GET', '/v1/auth/me');
  const touched = await sessions().first();
  t.ok(touched && touched.idle_expires_at.getTime() > Date.now() + 6.9 * 86_400_000, 'the idle expiry slides');

  await sessions().update({ idle_expires_at: new Date(Date.now() - 1000) });
  t.equal((await h.call(cookie, 'GET', '/v1/auth/me')).status, 401, 'an idle session ends');
  await sessions().update({
    idle_expires_at: new Date(Date.now() + 86_400_000),
    absolute_expires_at: new Date(Date.now() - 1000),
  });
  t.equal((await h.call(cookie, 'GET', '/v1/auth/me')).status, 401, 'so does one past its absolute lifetime');
  t.equal((await h.call(cookieHeader('pws_forged'), 'GET', '/v1/auth/me')).status, 401);
  t.equal((await h.call(null, 'GET', '/v1/auth/me')).status, 401);
});

t.test('staff comes from config', async (t) => {
  const staff = await signup(h, 'ops@example.test');
  t.equal(staff.body.staff, true, 'a configured address is staff');
  t.equal((await signup(h, 'notops@example.test')).body.staff, false);
});

t.test('the OpenAPI document lists the 24 operations under their sections', async (t) => {
  const res = await h.call(null, 'GET', '/v1/openapi.json');
  expectStatus(t, res, 200, 'the document builds');
  // The document declares its paths' values and `components` loosely: read what this test needs.
  const doc = {
    paths: res.body.paths as Record<
      string,
      Record<string, { operationId: string; tags: string[]; security?: unknown[] }>
    >,
    components: res.body.components as { schemas: Record<string, unknown> },
  };
  const mine = new Set([
    'signup',
    'login',
    'logout',
    'requestMagicLink',
    'verifyMagicLink',
    'getMe',
    'requestPasswordReset',
    'confirmPasswordReset',
    'verifyEmail',
    'resendVerificationEmail',
    'updateMe',
    'getCurrentOrganization',
    'updateCurrentOrganization',
    'listMembers',
    'updateMember',
    'removeMember',
    'listInvitations',
    'createInvitation',
    'revokeInvitation',
    'acceptInvitation',
    'previewInvitation',
    'listTokens',
    'createToken',
    'revokeToken',
  ]);
  const ops: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods))
      if (mine.has(op.operationId)) ops.push(`${op.tags[0]} ${method.toUpperCase()} ${path}`);
  }
  t.equal(ops.length, 24, 'every operation is documented');
  t.same(
    new Set(ops.map((o) => o.split(' ')[0])),
    new Set(['auth', 'me', 'orgs', 'members', 'invitations', 'tokens']),
    'under the spec section names',
  );
  t.ok(
    ops.includes('auth POST /v1/auth/verify-email/resend') &&
      ops.includes('invitations POST /v1/invitations/preview') &&
      ops.includes('tokens DELETE /v1/tokens/{id}'),
  );
  for (const name of [
    'AuthContext',
    'SignupAuthContext',
    'User',
    'Organization',
    'WorkspaceSummary',
    'Plan',
    'Invitation',
    'ApiToken',
    'ApiTokenCreated',
  ]) {
    t.ok(doc.components.schemas[name], `component ${name}`);
  }
  t.same(doc.paths['/v1/auth/login'].post.security, [], 'login is public');
});

t.test('no answer ever carries a password, a password hash or a token hash', async (t) => {
  await assertNoSecretsLeaked(t, h, [PASSWORD, NEW_PASSWORD]);
});
