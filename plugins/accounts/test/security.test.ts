import t from 'tap';
import { signUp, TEST_PASSWORD } from '../../../test/helpers/accounts.js';
import { assertNoSecretsLeaked, bearer, expectStatus, harness } from './helpers.js';

// Behind a trusted proxy, so each scenario can speak from its own client address.
const h = await harness(t, { server: { trustProxy: true, dashboardOrigins: ['https://dash.example.test'] } });
const from = (ip: string) => ({ 'x-forwarded-for': `${ip}, 10.0.0.1` });

t.test('sign-in is throttled per address and client: 10 failures from one client, then 429 there only', async (t) => {
  const victim = await signUp(h.app, { email: 'victim@example.test' });
  const attempt = (password: string, ip: string) =>
    h.call(null, 'POST', '/v1/auth/login', { email: victim.email, password }, from(ip));
  for (let i = 0; i < 10; i++) {
    const res = await attempt(`wrong password ${i}`, '198.51.100.1');
    if (res.status !== 401) t.fail(`attempt ${i + 1} answered ${res.status}`);
  }
  const locked = await attempt('wrong password again', '198.51.100.1');
  expectStatus(t, locked, 429, 'the 11th attempt from that client is refused');
  t.equal(locked.body.code, 'rate_limited');
  const retry = Number(locked.headers['retry-after']);
  t.ok(retry > 0 && retry <= 900, `Retry-After is within the 15-minute window (${retry})`);
  expectStatus(
    t,
    await attempt(TEST_PASSWORD, '198.51.100.1'),
    429,
    'even the right password waits out the window there',
  );
  expectStatus(t, await attempt(TEST_PASSWORD, '192.0.2.50'), 200, 'the owner signs in from another client meanwhile');

  await h.app
    .db('rate_limits')
    .where('key', 'like', 'login:addr-ip:%')
    .update({ window_start: new Date(Date.now() - 16 * 60_000) });
  expectStatus(t, await attempt(TEST_PASSWORD, '198.51.100.1'), 200, 'after the window the first client may try again');
});

t.test('sign-in is throttled per client address: 50 failures in 15 minutes', async (t) => {
  const ip = '203.0.113.7';
  for (let i = 0; i < 50; i++) {
    const res = await h.call(
      null,
      'POST',
      '/v1/auth/login',
      { email: `guess-${i}@example.test`, password: 'whatever it is' },
      from(ip),
    );
    if (res.status !== 401) t.fail(`attempt ${i + 1} answered ${res.status}`);
  }
  const blocked = await h.call(
    null,
    'POST',
    '/v1/auth/login',
    { email: 'guess-x@example.test', password: 'whatever it is' },
    from(ip),
  );
  expectStatus(t, blocked, 429, 'the 51st attempt from one client is refused');
  t.ok(Number(blocked.headers['retry-after']) > 0, 'with Retry-After');
  const other = await h.call(
    null,
    'POST',
    '/v1/auth/login',
    { email: 'guess-x@example.test', password: 'whatever it is' },
    from('203.0.113.8'),
  );
  expectStatus(t, other, 401, 'another client is not affected');
});

t.test('emailed links are throttled per address, with the same answer until then', async (t) => {
  await signUp(h.app, { email: 'often@example.test' });
  for (let i = 0; i < 5; i++) {
    const res = await h.call(
      null,
      'POST',
      '/v1/auth/password-reset',
      { email: 'often@example.test' },
      from(`192.0.2.${i + 1}`),
    );
    if (res.status !== 200) t.fail(`request ${i + 1} answered ${res.status}`);
  }
  const sixth = await h.call(null, 'POST', '/v1/auth/magic-link', { email: 'often@example.test' }, from('192.0.2.50'));
  expectStatus(t, sixth, 429, 'the sixth request for one address is refused');
  t.ok(sixth.headers['retry-after']);
  t.equal((await h.mails('often@example.test', 'accounts.password_reset')).length, 5, 'five reset mails were sent');
});

t.test('CSRF: a cookie-authenticated unsafe request from a foreign Origin is refused', async (t) => {
  const owner = await signUp(h.app);
  const create = (origin?: string) =>
    h.call(owner, 'POST', '/v1/tokens', { name: 'ci', role: 'admin' }, origin ? { origin } : {});
  const foreign = await create('https://evil.example');
  expectStatus(t, foreign, 403, 'a foreign Origin is refused');
  t.equal(foreign.body.code, 'forbidden');
  expectStatus(t, await create('null'), 403, 'an opaque Origin is refused');
  expectStatus(t, await create('http://localhost:3000'), 201, 'the public base URL passes');
  expectStatus(t, await create('https://dash.example.test'), 201, 'a dashboard origin passes');
  expectStatus(t, await create(), 201, 'no Origin (not a browser form) passes');
  const tokens = await h.app.db('api_tokens').where({ org_id: owner.organization.id });
  t.equal(tokens.length, 3, 'the refused requests created nothing');

  const logout = await h.call(owner, 'POST', '/v1/auth/logout', undefined, { origin: 'https://evil.example' });
  expectStatus(t, logout, 403, 'a foreign page cannot sign you out either');
  expectStatus(
    t,
    await h.call(owner, 'GET', '/v1/auth/me', undefined, { origin: 'https://evil.example' }),
    200,
    'safe methods are not affected',
  );

  const created = await create();
  const bot = bearer(created.body.token);
  expectStatus(
    t,
    await h.call(
      bot,
      'POST',
      '/v1/tokens',
      { name: 'from a script', role: 'reviewer' },
      { origin: 'https://evil.example' },
    ),
    201,
    'a Bearer token (no cookie) is not subject to the Origin check',
  );
});

t.test('no answer ever carries a password, a password hash or a token hash', async (t) => {
  await assertNoSecretsLeaked(t, h, [TEST_PASSWORD]);
});
