import t from 'tap';
import { TEST_PASSWORD, sessionFrom, signUp } from '../helpers/accounts.js';
import { startOidcProvider } from '../../plugins/sso/test/helpers/oidc-idp.js';
import { cookieFrom, setPlan, verifiedDomain } from '../../plugins/sso/test/helpers/fixtures.js';
import { call, startSecurityApp, uid } from './helpers.js';

/**
 * Nobody can lock someone else out by guessing their password (OWASP authentication cheat
 * sheet): failures count per address and client, per client, and per address over all clients,
 * where the last, once reached, still lets the account's known networks in. Emailed links and
 * single sign-on count nothing of this and keep working.
 */

const CALLBACK = 'http://localhost:3000/v1/auth/sso/oidc/callback';
// Behind a trusted proxy, so each client speaks from its own address. A low all-clients limit, so
// a spread attack is quick to stage; a real scrypt cost, so answer times mean something.
const app = await startSecurityApp(t, {
  server: { trustProxy: true },
  security: { allowLoopbackFetch: true, passwordHashCost: 13 },
  plugins: { accounts: { options: { throttle: { loginPerAddress: 20 } } } },
});
const from = (ip: string) => ({ 'x-forwarded-for': `${ip}, 10.0.0.1` });
const login = (email: string, password: string, ip: string) =>
  app.server.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password }, headers: from(ip) });

t.test('an owner locked out by 50 wrong passwords from another client still signs in from their own', async (t) => {
  const owner = await signUp(app, { email: `owner-${uid()}@acme.test` });
  const answers: number[] = [];
  for (let i = 0; i < 50; i++) answers.push((await login(owner.email, `guess ${i}`, '203.0.113.5')).statusCode);
  t.same([...new Set(answers.slice(0, 10))], [401], 'the first ten guesses are checked');
  t.same([...new Set(answers.slice(10))], [429], 'then that client is refused');
  t.equal(
    (await login(owner.email, TEST_PASSWORD, '203.0.113.5')).statusCode,
    429,
    'even with the right password, there',
  );
  const home = await login(owner.email, TEST_PASSWORD, '192.0.2.10');
  t.equal(home.statusCode, 200, 'the owner signs in from their own network');
  t.ok(sessionFrom(home), 'with a session');
});

t.test('guesses spread over many clients: past the account limit only known networks may try', async (t) => {
  const owner = await signUp(app, { email: `owner-${uid()}@acme.test` });
  // The owner signed in from home before: that network is known.
  t.equal((await login(owner.email, TEST_PASSWORD, '198.51.100.20')).statusCode, 200);
  for (let i = 0; i < 20; i++) {
    const res = await login(owner.email, `spread guess ${i}`, `100.64.${i}.7`);
    if (res.statusCode !== 401) t.fail(`guess ${i} answered ${res.statusCode}`);
  }
  const stranger = await login(owner.email, TEST_PASSWORD, '100.64.99.7');
  t.equal(stranger.statusCode, 429, 'a new client is refused, even with the right password');
  t.ok(Number(stranger.headers['retry-after']) > 0, 'with Retry-After');
  t.equal((await login(owner.email, TEST_PASSWORD, '198.51.100.20')).statusCode, 200, 'the known address signs in');
  t.equal(
    (await login(owner.email, TEST_PASSWORD, '198.51.100.99')).statusCode,
    200,
    'so does another address of the same network',
  );
  t.equal(
    (await login(owner.email, 'still guessing', '198.51.100.99')).statusCode,
    401,
    'a known network is still throttled per client',
  );

  // An emailed link works meanwhile.
  t.equal(
    (await call(app, null, 'POST', '/v1/auth/magic-link', { email: owner.email }, from('100.64.99.7'))).status,
    200,
  );
  const mail = (await app
    .db('mail_messages')
    .where({ to_address: owner.email, template: 'accounts.magic_link' })
    .first()) as { text: string };
  const token = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
  const link = await call(app, null, 'POST', '/v1/auth/magic-link/verify', { token }, from('100.64.99.7'));
  t.equal(link.status, 200, 'the emailed link signs the owner in from the new client');
});

t.test('single sign-on keeps working while the password is throttled', async (t) => {
  const idp = await startOidcProvider(CALLBACK);
  t.teardown(() => idp.close());
  const domain = `sso-${uid()}.test`;
  const owner = await signUp(app, { email: `owner@${domain}` });
  idp.account.email = owner.email;
  await setPlan(app, owner.organization.id);
  await verifiedDomain(app, owner.organization.id, domain);
  const conn = await call(app, owner, 'POST', '/v1/security/sso/connections', {
    protocol: 'oidc',
    name: 'IdP',
    issuer: idp.issuer,
    client_id: idp.clientId,
    client_secret: idp.clientSecret,
    domains: [domain],
    jit_enabled: false,
    default_role: 'reviewer',
  });
  t.equal(conn.status, 201, conn.payload);
  for (let i = 0; i < 20; i++) await login(owner.email, `guess ${i}`, `100.65.${i}.1`);
  t.equal(
    (await login(owner.email, TEST_PASSWORD, '100.65.200.1')).statusCode,
    429,
    'the password is throttled for new clients',
  );

  const start = await call(app, null, 'POST', '/v1/auth/sso/start', { email: owner.email }, from('100.65.200.1'));
  t.equal(start.status, 200, start.payload);
  const back = await idp.authorize(start.body.redirect_url);
  const done = await app.server.inject({
    method: 'GET',
    url: back.slice('http://localhost:3000'.length),
    headers: { cookie: `pw_sso=${cookieFrom(start, 'pw_sso')!}`, ...from('100.65.200.1') },
  });
  t.equal(done.statusCode, 302, done.payload);
  t.ok(cookieFrom(done, 'pw_session'), 'signed in with single sign-on');
});

t.test('a wrong password costs the same work whether the address exists or not', async (t) => {
  const owner = await signUp(app, { email: `timing-${uid()}@acme.test` });
  // The same queries and one password hash either way: what timing could tell apart, counted.
  let queries = 0;
  // The sign-in's tables only: the relay and the consumers poll theirs meanwhile.
  const count = (q: { sql?: string }) =>
    void (/\b(users|sessions|rate_limits|organizations)\b/.test(q.sql ?? '') && queries++);
  app.db.on('query', count);
  t.teardown(() => void app.db.off('query', count));
  const passwords = app.container.resolve('passwords') as { verify: (p: string, h: string | null) => Promise<boolean> };
  const verify = passwords.verify.bind(passwords);
  let hashed = 0;
  passwords.verify = async (p, h) => (hashed++, verify(p, h));
  t.teardown(() => void (passwords.verify = verify));
  const attempt = async (email: string, ip: string) => {
    [queries, hashed] = [0, 0];
    const started = process.hrtime.bigint();
    const res = await login(email, 'a wrong password', ip);
    t.equal(res.statusCode, 401);
    return { queries, hashed, ms: Number(process.hrtime.bigint() - started) / 1e6 };
  };
  const times: [number, number][] = [];
  for (let i = 0; i < 3; i++) {
    const known = await attempt(owner.email, `100.66.${i}.1`);
    const unknown = await attempt(`nobody-${uid()}@acme.test`, `100.66.${i}.2`);
    t.same(
      [unknown.queries, unknown.hashed],
      [known.queries, known.hashed],
      `the same ${known.queries} queries and ${known.hashed} password check`,
    );
    times.push([known.ms, unknown.ms]);
  }
  t.comment(
    `answer times (account, no account): ${times.map(([a, b]) => `${a.toFixed(0)}/${b.toFixed(0)} ms`).join(', ')}`,
  );
});

t.test('the break-glass sign-in counts with the password sign-in, per address and client', async (t) => {
  const owner = await signUp(app, { email: `glass-${uid()}@acme.test` });
  const recover = (ip: string, password: string) =>
    call(
      app,
      null,
      'POST',
      '/v1/auth/sso/recovery',
      { email: owner.email, password, code: 'AAAA-BBBB-CCCC' },
      from(ip),
    );
  const answers: number[] = [];
  for (let i = 0; i < 12; i++) answers.push((await recover('203.0.113.77', `guess ${i}`)).status);
  t.ok(
    answers.slice(10).every((s) => s === 429),
    `the attacker's client is stopped (${answers.join(',')})`,
  );
  const own = await recover('192.0.2.200', TEST_PASSWORD);
  t.not(
    own.status,
    429,
    `the owner's own client is not locked out (${own.status}: ${JSON.stringify(own.body).slice(0, 120)})`,
  );
});
