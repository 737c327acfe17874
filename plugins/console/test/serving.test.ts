import t from 'tap';
import type { ApiError } from '../../../test/helpers/api-types.js';
import { startTestApp } from '../../../test/helpers/app.js';

// One service with the console on (the default) and one with it off.
const app = await startTestApp(t);

t.test("the console answers every page path with its index.html, never the API's paths", async (t) => {
  for (const url of [
    '/',
    '/login',
    '/verify-email?token=pwv_x',
    '/tickets/tkt_123',
    '/settings/code-host/installed?installation_id=1&state=s',
  ]) {
    const res = await app.server.inject(url);
    t.equal(res.statusCode, 200, `${url} is a page`);
    t.match(res.headers['content-type'], /^text\/html/);
    t.match(res.payload, /<div id="root"><\/div>/);
    t.equal(res.headers['cache-control'], 'no-cache', 'index.html is revalidated on every load');
    const csp = String(res.headers['content-security-policy']);
    t.match(csp, /default-src 'self'/);
    t.match(csp, /script-src 'self';/, 'no inline or foreign scripts');
    t.match(csp, /connect-src 'self' http:\/\/localhost:3000/, 'calls go to this origin (and the public base URL)');
    t.match(csp, /frame-ancestors 'none'/);
  }

  const api = await app.server.inject('/v1/no-such-operation');
  t.equal(api.statusCode, 404, "an unknown API path stays the API's 404");
  t.equal((JSON.parse(api.payload) as ApiError).code, 'not_found');
  t.equal((await app.server.inject('/docs/no-such-page')).statusCode, 404, 'so does one under /docs');
  t.match((await app.server.inject('/docs')).payload, /swagger/i, 'the API docs keep their page');
  t.equal(
    (await app.server.inject('/widget.js')).headers['content-type'],
    'application/javascript; charset=utf-8',
    'the widget keeps its script',
  );
  t.equal((await app.server.inject({ method: 'POST', url: '/login' })).statusCode, 404, 'pages answer GET only');
  t.equal((await app.server.inject('/robots.txt')).statusCode, 404, 'a file the bundle does not have is not a page');
});

t.test("the bundle's assets are served with a year of cache under hashed names", async (t) => {
  const html = (await app.server.inject('/')).payload;
  const scripts = [...html.matchAll(/src="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  t.ok(scripts.length >= 1, 'index.html loads its entry script');
  const res = await app.server.inject({ url: scripts[0], headers: { 'accept-encoding': 'gzip' } });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /javascript/);
  t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.equal(res.headers['content-encoding'], 'gzip', 'compressed on the way');
  t.equal((await app.server.inject('/assets/index-nothere.js')).statusCode, 404);
  t.equal((await app.server.inject('/assets/..%2Fpackage.json')).statusCode, 404, 'nothing outside the bundle');
});

t.test('an operator who turns the console off gets the 404 of before', async (t) => {
  const off = await startTestApp(t, { plugins: { console: { enabled: false } } });
  t.notOk(off.plugins.includes('console'));
  const res = await off.server.inject('/');
  t.equal(res.statusCode, 404);
  t.equal((JSON.parse(res.payload) as ApiError).code, 'not_found');
  t.equal((await off.server.inject('/login')).statusCode, 404);
});
