import type { OutgoingHttpHeaders } from 'node:http';
import t from 'tap';
import { OFFLINE_ADAPTERS, startSecurityApp } from './helpers.js';

/**
 * Every HTML page the service serves has a Content-Security-Policy (the docs, the local code
 * host's and the local payment provider's pages, as the status page has), and
 * Strict-Transport-Security is sent only when the public base URL is https.
 */

const app = await startSecurityApp(t, OFFLINE_ADAPTERS);

const csp = (res: { headers: OutgoingHttpHeaders }) => String(res.headers['content-security-policy'] ?? '');

t.test('the docs page runs its own scripts only', async (t) => {
  const res = await app.server.inject({ url: '/docs' });
  t.equal(res.statusCode, 200);
  t.match(csp(res), /default-src 'none'/);
  t.match(csp(res), /script-src 'self'(;|$)/, 'no inline or foreign script');
  t.match(csp(res), /connect-src 'self'/);
  t.match(csp(res), /frame-ancestors 'none'/);
  const asset = await app.server.inject({ url: '/docs/assets/index.html' });
  if (asset.statusCode === 200) t.match(csp(asset), /script-src 'self'/, "the dist's own pages too");
});

t.test("the local code host's pages have a policy without script", async (t) => {
  const query = new URLSearchParams({
    client_id: 'patchwell',
    redirect_uri: 'http://localhost:3000/v1/auth/codehost/callback',
    state: 's',
    code_challenge: 'a'.repeat(43),
    code_challenge_method: 'S256',
  });
  const page = await app.server.inject({ url: `/codehost/local/login/oauth/authorize?${query.toString()}` });
  t.equal(page.statusCode, 200, page.payload.slice(0, 200));
  t.match(page.headers['content-type'], /text\/html/);
  t.match(csp(page), /default-src 'none'/);
  t.notMatch(csp(page), /script-src/, 'no script source at all');
  t.match(csp(page), /form-action 'self'/);
  const missing = await app.server.inject({ url: '/codehost/local/install?state=unknown' });
  t.equal(missing.statusCode, 404);
  t.match(csp(missing), /default-src 'none'/, 'error pages too');
});

t.test("the local payment provider's pages have a policy", async (t) => {
  const res = await app.server.inject({ url: '/pay/local/checkout/cs_unknown' });
  t.match(res.headers['content-type'], /text\/html/);
  t.match(csp(res), /default-src 'none'/);
  t.match(csp(res), /frame-ancestors 'none'/);
});

t.test('no Strict-Transport-Security over a plain http base URL', async (t) => {
  for (const url of ['/v1/auth/me', '/docs', '/v1/openapi.json']) {
    const res = await app.server.inject({ url });
    t.notOk(res.headers['strict-transport-security'], url);
  }
});

t.test('Strict-Transport-Security when the public base URL is https', async (t) => {
  const secure = await startSecurityApp(t, { server: { publicBaseUrl: 'https://patchwell.example.test' } });
  const res = await secure.server.inject({ url: '/v1/auth/me' });
  t.match(String(res.headers['strict-transport-security']), /^max-age=\d{7,}/);
});
