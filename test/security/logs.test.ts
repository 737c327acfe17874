import { createHmac } from 'node:crypto';
import t from 'tap';
import { signMimeDelivery } from '../../core/contracts/index.js';
import { createLogger, scrubSecrets } from '../../core/kernel/logger.js';
import { TEST_PASSWORD, sessionFrom } from '../helpers/accounts.js';
import type { Answer } from '../helpers/api-types.js';
import { deliverMime, inboundEmail } from '../helpers/mail.js';
import { HOST_SECRET, MAIL_SECRET, OFFLINE_ADAPTERS, call, createWorkspace, startSecurityApp, uid } from './helpers.js';

/**
 * The service's whole log at `trace`, captured through its own logger, while people sign up,
 * sign in, use an API token and an emailed link, webhooks arrive and requests fail: no line holds
 * a session id, a token, a cookie value, a password or a webhook secret or signature. The test is
 * the CI guard (the suite's own tests log at `silent`; docs/security.md).
 */

const lines: string[] = [];
const app = await startSecurityApp(t, OFFLINE_ADAPTERS, lines);
// A route that fails, carrying credentials the way a real request would.
app.server.route({
  method: 'GET',
  path: '/test/fails/{token}',
  options: {
    auth: false,
    handler: () => {
      throw new Error('the handler broke');
    },
  },
});

t.test('a day of traffic leaves no credential in the log', async (t) => {
  const secrets: string[] = [TEST_PASSWORD, MAIL_SECRET, HOST_SECRET];

  const signup = await app.server.inject({
    method: 'POST',
    url: '/v1/auth/signup',
    payload: {
      name: 'Olivia',
      email: `olivia-${uid()}@example.test`,
      password: TEST_PASSWORD,
      organization_name: 'Logs Inc',
      accept_terms: true,
    },
  });
  t.equal(signup.statusCode, 201);
  const signupSession = sessionFrom(signup)!;
  const email = (JSON.parse(signup.payload) as Answer<'POST', '/v1/auth/signup'>).user.email;
  secrets.push(signupSession);

  const login = await app.server.inject({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email, password: TEST_PASSWORD },
  });
  t.equal(login.statusCode, 200);
  const session = sessionFrom(login)!;
  secrets.push(session);
  const owner = { auth: { headers: { cookie: `pw_session=${session}` } } };

  const wrong = await app.server.inject({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email, password: 'not the password at all' },
  });
  t.equal(wrong.statusCode, 401);
  secrets.push('not the password at all');

  const token = await call(app, owner, 'POST', '/v1/tokens', { name: 'ci', role: 'admin' });
  t.equal(token.status, 201);
  secrets.push(token.body.token);
  const bearer = { auth: { headers: { authorization: `Bearer ${token.body.token}` } } };
  t.equal((await call(app, bearer, 'GET', '/v1/workspaces')).status, 200, 'a call with the token');
  t.equal(
    (
      await call(
        app,
        { auth: { headers: { authorization: 'Bearer pwt_not-a-real-token-but-shaped-like-one-0123456789' } } },
        'GET',
        '/v1/workspaces',
      )
    ).status,
    401,
  );
  secrets.push('pwt_not-a-real-token-but-shaped-like-one-0123456789');

  // An emailed link: its token travels in the mail (the outbox adapter logs the links) and in the verify call.
  t.equal((await call(app, null, 'POST', '/v1/auth/magic-link', { email })).status, 200);
  const mail = (await app
    .db('mail_messages')
    .where({ to_address: email, template: 'accounts.magic_link' })
    .first()) as { text: string };
  const linkToken = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
  secrets.push(linkToken);
  t.equal(
    (await call(app, null, 'POST', '/v1/auth/magic-link/verify', { token: linkToken })).status,
    200,
    'the emailed link signs in',
  );

  // Webhooks: an email delivery and a code-host delivery, with their signatures.
  const ws = await createWorkspace(app, owner);
  const raw = inboundEmail({ to: ws.inbound_address as string, subject: 'Hi', body: 'Hello' });
  secrets.push(signMimeDelivery(raw, MAIL_SECRET).replace(/^sha256=/, ''));
  const mime = await deliverMime(app, raw, ws.inbound_address as string, MAIL_SECRET);
  t.equal(mime.status, 200, 'the email delivery is taken');
  const hook = Buffer.from(JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 }));
  const hubSignature = createHmac('sha256', HOST_SECRET).update(hook).digest('hex');
  secrets.push(hubSignature);
  const ping = await app.server.inject({
    method: 'POST',
    url: '/v1/webhooks/codehost',
    payload: hook,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'ping',
      'x-github-delivery': `d-${uid()}`,
      'x-hub-signature-256': `sha256=${hubSignature}`,
    },
  });
  t.ok(ping.statusCode < 300, `the code-host delivery is taken (${ping.statusCode})`);

  // A request that fails inside the service, with a cookie, a bearer token and tokens in its path and query.
  const pathToken = `pwst_${'p'.repeat(20)}Q1${'q'.repeat(20)}`;
  const queryToken = 'pwx_QueryTokenValue0123456789abcdefghijklmnop';
  secrets.push(pathToken, queryToken);
  const failed = await app.server.inject({
    method: 'GET',
    url: `/test/fails/${pathToken}?token=${queryToken}&page=2`,
    headers: { cookie: `pw_session=${session}`, authorization: `Bearer ${token.body.token}` },
  });
  t.equal(failed.statusCode, 500);

  const log = lines.join('\n');
  t.ok(lines.length > 20, `the service logged (${lines.length} lines)`);
  t.match(log, /"cookie":"\[redacted\]"/, 'request headers are logged, the cookie redacted');
  t.match(log, /"authorization":"\[redacted\]"/, 'the Authorization header redacted');
  t.match(log, /"set-cookie":"\[redacted\]"/, 'Set-Cookie of answers redacted');
  t.match(log, /the handler broke/, 'the failure is logged');
  t.match(log, /\/test\/fails\/\[redacted\]/, 'the path token is masked');
  t.match(log, /"page":"2"/, 'an ordinary query parameter stays readable');
  const leaked = secrets.filter((s) => log.includes(s));
  t.same(
    leaked.map((s) => `${s.slice(0, 6)}…`),
    [],
    'no secret in any line',
  );
  t.notMatch(log, /pw_session=(?!\[redacted\])/, 'no cookie value');
  t.notMatch(log, /Bearer (?!\[redacted\])[A-Za-z0-9]/, 'no bearer credential');
});

t.test('children of the service logger (plugins, bus, jobs) redact as it does', (t) => {
  const out: string[] = [];
  const log = createLogger('info', { write: (s: string) => void out.push(s) });
  const job = log.child({ plugin: 'fixes' }).child({ job: 'j1' });
  job.info(
    {
      headers: {
        authorization: 'Bearer pwt_childToken0123456789ABCDEFGHIJKLMNOP',
        'x-hub-signature-256': 'sha256=abc123abc123',
      },
      token: 'plain-token-value',
    },
    'job started',
  );
  job.warn(
    { url: 'https://example.test/cb?code=oauth-code-value&state=xyz-state-value' },
    'callback with https://example.test/x?token=pwx_LinkToken0123456789ABCDEFGHIJKLMN',
  );
  const text = out.join('');
  for (const s of [
    'pwt_childToken',
    'sha256=abc123',
    'plain-token-value',
    'oauth-code-value',
    'xyz-state-value',
    'pwx_LinkToken',
  ])
    t.notOk(text.includes(s), `${s} is not logged`);
  t.match(text, /job started/);
  t.end();
});

t.test('the line scrub masks what looks like our credentials and leaves ids alone', (t) => {
  t.equal(scrubSecrets('session pws_AbCdEf0123456789AbCdEf0123456789AbCdEf01234 ok'), 'session pws_[redacted] ok');
  t.equal(
    scrubSecrets('ws_01m8dz5jre1h0b6qxvp96apvnk and tkt_01m8e00ghh299b4bh4jfwvf2a4'),
    'ws_01m8dz5jre1h0b6qxvp96apvnk and tkt_01m8e00ghh299b4bh4jfwvf2a4',
  );
  t.equal(scrubSecrets('Cookie: pw_session=abc.def; other=1'), 'Cookie: pw_session=[redacted]; other=1');
  t.equal(scrubSecrets('/magic-link?token=whatever&redirect_to=/x'), '/magic-link?token=[redacted]&redirect_to=/x');
  t.equal(
    scrubSecrets('account_member_joined_and_more_words_here_too'),
    'account_member_joined_and_more_words_here_too',
  );
  t.end();
});
