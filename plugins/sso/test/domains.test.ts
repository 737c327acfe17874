import t from 'tap';
import { startTestApp } from '../../../test/helpers/app.js';
import { signUp, TEST_PASSWORD } from '../../../test/helpers/accounts.js';
import { startDns } from '../../../test/helpers/dns-server.js';
import { json, setPlan } from './helpers/fixtures.js';

interface Domain {
  domain: string;
  status: string;
  last_error: string | null;
  txt: { name: string; value: string };
  verified_at: string | null;
  connection_ids: string[];
}

t.test('claimed domains are verified through a TXT record on a local DNS server', async (t) => {
  const dns = await startDns();
  t.teardown(() => dns.close());
  const app = await startTestApp(t, {
    plugins: { sso: { options: { dnsServers: [dns.server], dnsTimeoutMs: 1000 } } },
  });
  const owner = await signUp(app, { email: 'owner@initech.test' });
  const rival = await signUp(app, { email: 'owner@rival.test' });
  await setPlan(app, owner.organization.id);
  await setPlan(app, rival.organization.id);
  /** The status code of a call as `who`. */
  const statusOf = async (who: typeof owner, method: string, url: string, payload?: object) =>
    (await app.server.inject({ method, url, ...who.auth, payload })).statusCode;
  const claim = (who: typeof owner, domain: string) =>
    app.server.inject({ method: 'POST', url: '/v1/security/sso/domains', ...who.auth, payload: { domain } });
  const verify = (who: typeof owner, domain: string) =>
    app.server.inject({ method: 'POST', url: `/v1/security/sso/domains/${domain}/verify`, ...who.auth });

  const claimed = await claim(owner, 'Initech.test');
  t.equal(claimed.statusCode, 201, claimed.payload);
  const d = json<Domain>(claimed);
  t.same([d.domain, d.status, d.txt.name], ['initech.test', 'pending', '_patchwell-challenge.initech.test']);
  t.match(d.txt.value, /^patchwell-verification=[A-Za-z0-9_-]{20,}$/);
  t.equal(await statusOf(owner, 'POST', '/v1/security/sso/domains', { domain: 'initech.test' }), 409, 'claimed once');
  const race = await Promise.all([claim(owner, 'race.initech.test'), claim(owner, 'race.initech.test')]);
  t.same(
    race.map((r) => r.statusCode).sort(),
    [201, 409],
    'two claims at once: one is made, the other answers that it exists (not a 500)',
  );

  t.same(json<Domain>(await verify(owner, 'initech.test')).last_error, 'txt_missing', 'no record yet');
  dns.txt.set(d.txt.name, ['patchwell-verification=something-else']);
  t.same(json<Domain>(await verify(owner, 'initech.test')).last_error, 'txt_mismatch');
  dns.failing.add(d.txt.name);
  t.same(json<Domain>(await verify(owner, 'initech.test')).last_error, 'dns_error');
  dns.failing.delete(d.txt.name);
  dns.txt.set(d.txt.name, ['v=spf1 -all', d.txt.value]);
  const ok = json<Domain>(await verify(owner, 'initech.test'));
  t.same([ok.status, ok.last_error], ['verified', null]);
  t.ok(ok.verified_at);

  await t.test('another organization cannot verify a verified domain', async (t) => {
    const c = json<Domain>(await claim(rival, 'initech.test'));
    dns.txt.set(c.txt.name, [c.txt.value]);
    const r = json<Domain>(await verify(rival, 'initech.test'));
    t.same([r.status, r.last_error], ['pending', 'domain_taken']);
  });

  await t.test('an address of a verified domain is released from another organization', async (t) => {
    const stray = await signUp(app, { email: 'milton@initech.test' });
    const apiToken = json<{ token: string }>(
      await app.server.inject({
        method: 'POST',
        url: '/v1/tokens',
        ...stray.auth,
        payload: { name: 'stapler bot', role: 'admin' },
      }),
    ).token;
    t.equal(
      (
        await app.server.inject({
          method: 'POST',
          url: '/v1/auth/password-reset',
          payload: { email: 'milton@initech.test' },
        })
      ).statusCode,
      200,
    );
    const openLinks = () => app.db('email_tokens').where({ user_id: stray.user.id }).whereNull('used_at');
    t.same(
      (await openLinks()).map((l: { purpose: string }) => l.purpose).sort(),
      ['password_reset', 'verify_email'],
      'emailed links are out',
    );
    const res = await app.server.inject({
      method: 'POST',
      url: '/v1/security/sso/released-addresses',
      ...owner.auth,
      payload: { email: 'milton@initech.test' },
    });
    t.equal(res.statusCode, 200, res.payload);
    t.same(json(res), { released: true, was_verified: false });
    const me = await app.server.inject({ method: 'GET', url: '/v1/auth/me', ...stray.auth });
    t.equal(me.statusCode, 401, 'the closed account is signed out');
    const login = await app.server.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: 'milton@initech.test', password: TEST_PASSWORD },
    });
    t.equal(login.statusCode, 401, 'and cannot sign in');
    const byToken = await app.server.inject({
      method: 'GET',
      url: '/v1/auth/me',
      headers: { authorization: `Bearer ${apiToken}` },
    });
    t.equal(byToken.statusCode, 401, 'its API token ends');
    t.equal((await openLinks()).length, 0, 'its emailed links end');
    const closed = await app
      .db<{ id: string; removed_at: Date | null; disabled_at: Date | null }>('users')
      .where({ id: stray.user.id })
      .first();
    t.ok(closed?.removed_at && closed.disabled_at, 'the account is removed and disabled; its row stays');
    const audit = await app
      .db('audit_entries')
      .where({ org_id: stray.organization.id, action: 'user.closed_by_domain_owner' });
    t.equal(audit.length, 1, 'audited in the other organization');
    t.equal(
      await statusOf(owner, 'POST', '/v1/security/sso/released-addresses', { email: 'milton@initech.test' }),
      404,
      'nothing left to release',
    );
    t.equal(
      await statusOf(owner, 'POST', '/v1/security/sso/released-addresses', { email: 'someone@rival.test' }),
      422,
      'not our domain',
    );
  });

  await t.test("owners only; another organization's domain is not found", async (t) => {
    const admin = await signUp(app, { role: 'admin' });
    t.equal(await statusOf(admin, 'POST', '/v1/security/sso/domains', { domain: 'x.test' }), 403);
    t.equal(await statusOf(owner, 'DELETE', '/v1/security/sso/domains/rival-only.test'), 404);
    t.equal(
      await statusOf(rival, 'DELETE', '/v1/security/sso/domains/initech.test'),
      200,
      'the rival removes its own pending claim',
    );
    t.equal((await verify(rival, 'initech.test')).statusCode, 404);
  });
});
