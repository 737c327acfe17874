// The status-page domain against a local DNS server (dns2): the records to publish, each
// failure reported by last_error (missing, mismatch, DNS failure, taken), verification,
// failing_since and the grace period of a verified domain, and removal.
import t from 'tap';
import { signUp } from '../../../test/helpers/accounts.js';
import type { BrandService } from '../services/profiles.js';
import { startDns } from '../../../test/helpers/dns-server.js';
import { createTicket } from '../../../test/helpers/tickets.js';
import type { Schema } from '../../../test/helpers/api-types.js';
import { call, image, newProfile, setOrg, startBrand, uid } from './helpers.js';

const dns = await startDns();
t.teardown(() => dns.close());
const app = await startBrand(t, dns.server, { statusGraceHours: 1 });
const owner = await signUp(app, { orgName: 'Acme' });
const profile = await newProfile(app, owner, { name: 'Acme' });
const domain = `status.acme-${uid()}.test`;
const verify = async (who = owner, id = profile.id) => {
  const res = await call(app, who, 'POST', `/v1/brand/profiles/${id}/status-domain/verify`);
  if (!res.body.profile) throw new Error(`verify: ${res.status} ${res.payload}`);
  return res.body.profile;
};
const put = (d: string, who = owner, id = profile.id) =>
  call(app, who, 'PUT', `/v1/brand/profiles/${id}/status-domain`, { domain: d });

t.test('plans without custom domains answer 402; bad names 422', async (t) => {
  const res = await put(domain);
  t.equal(res.status, 402);
  t.match(res.body, { code: 'plan_limit_reached', details: { reason: 'custom_domain_in_plan' } });
  await setOrg(app, owner, { plan: 'agency' });
  for (const bad of ['acme.test', 'not a domain', 'status.localhost.', 'x.status.patchwell.test']) {
    const r = await put(bad);
    t.equal(r.status, 422, bad);
    t.equal(r.body.code, 'domain_not_allowed');
  }
  t.equal(
    (await call(app, owner, 'POST', `/v1/brand/profiles/${profile.id}/status-domain/verify`)).body.code,
    'no_status_domain',
  );
});

let state: NonNullable<Schema<'BrandProfile'>['status_domain_state']>;
t.test('PUT answers the CNAME and TXT records to publish', async (t) => {
  const res = await put(domain.toUpperCase());
  t.equal(res.status, 200);
  state = res.body.status_domain_state!;
  t.match(res.body, { status_domain: domain, status_domain_verified_at: null });
  t.match(state, {
    domain,
    verified: false,
    verified_at: null,
    cname_ok: false,
    txt_ok: false,
    last_checked_at: null,
    last_error: null,
    failing_since: null,
    cname: { type: 'CNAME', name: domain, value: 'status.patchwell.test' },
    txt: { type: 'TXT', name: `_patchwell-status.${domain}`, value: /^patchwell-status-verification=[0-9a-f]{32}$/ },
  });
  t.same(
    res.body.domain_dns_records.map((r) => [r.purpose, r.type, r.name, r.status]),
    [
      ['status_page', 'CNAME', domain, 'pending'],
      ['status_page', 'TXT', `_patchwell-status.${domain}`, 'pending'],
    ],
  );
  t.ok(
    await app.db('audit_entries').where({ action: 'brand.status_domain_set', target_id: profile.id }).first(),
    'audited',
  );
});

t.test('verify reports what is wrong, then verifies', async (t) => {
  let p = await verify();
  t.match(p.status_domain_state, {
    verified: false,
    cname_ok: false,
    txt_ok: false,
    last_error: 'cname_missing',
    last_checked_at: /Z$/,
    failing_since: /Z$/,
  });
  const since = p.status_domain_state?.failing_since;
  dns.cname.set(domain, 'elsewhere.example.net');
  p = await verify();
  t.match(
    p.status_domain_state,
    { last_error: 'cname_mismatch', failing_since: since },
    'failing_since keeps the first failure',
  );
  dns.cname.set(domain, 'status.patchwell.test.');
  p = await verify();
  t.match(p.status_domain_state, { cname_ok: true, txt_ok: false, last_error: 'txt_missing' });
  dns.txt.set(state.txt.name, ['patchwell-status-verification=wrong']);
  p = await verify();
  t.match(p.status_domain_state, { last_error: 'txt_mismatch' });
  dns.failing.add(state.txt.name);
  p = await verify();
  t.match(p.status_domain_state, { last_error: 'dns_error' });
  t.equal(p.domain_dns_records[1].status, 'temporary_failure');
  dns.failing.delete(state.txt.name);
  dns.txt.set(state.txt.name, ['v=spf1 -all', state.txt.value]);
  p = await verify();
  t.match(p.status_domain_state, {
    verified: true,
    verified_at: /Z$/,
    cname_ok: true,
    txt_ok: true,
    last_error: null,
    failing_since: null,
  });
  t.equal(p.status_domain_verified_at, p.status_domain_state?.verified_at);
  t.same(
    p.domain_dns_records.map((r) => r.status),
    ['verified', 'verified'],
  );
  t.ok(
    await app.db('audit_entries').where({ action: 'brand.status_domain_verified', target_id: profile.id }).first(),
    'audited',
  );
  t.ok(await app.db('outbox').where({ type: 'brand.status_domain_verified' }).first(), 'event');
  const ws = (await call(app, owner, 'POST', '/v1/workspaces', { name: 'Shop' })).body;
  const brand = (await call(app, owner, 'GET', '/v1/brand')).body.workspaces.find((w) => w.id === ws.id);
  t.equal(brand?.status_base_url, `https://${domain}/status`, 'status pages move to the verified domain');
});

t.test('a verified domain that starts failing keeps serving through the grace period', async (t) => {
  dns.cname.delete(domain);
  let p = await verify();
  t.match(
    p.status_domain_state,
    { verified: true, last_error: 'cname_missing', failing_since: /Z$/ },
    'still verified within the grace',
  );
  await app
    .db('brand_profiles')
    .where({ id: profile.id })
    .update({ status_failing_since: new Date(Date.now() - 2 * 3600_000) });
  p = await verify();
  t.match(
    p.status_domain_state,
    { verified: false, verified_at: null, last_error: 'cname_missing' },
    'unverified after the grace',
  );
  t.ok(
    await app.db('audit_entries').where({ action: 'brand.status_domain_unverified', target_id: profile.id }).first(),
  );
  dns.cname.set(domain, 'status.patchwell.test');
  p = await verify();
  t.match(p.status_domain_state, { verified: true, failing_since: null });
});

t.test('the scheduled recheck looks at domains not checked lately', async (t) => {
  await app
    .db('brand_profiles')
    .where({ id: profile.id })
    .update({ status_last_checked_at: new Date(Date.now() - 3 * 3600_000) });
  dns.txt.delete(state.txt.name);
  const n = await app.container.resolve<BrandService>('brandService').recheckDue();
  t.ok(n >= 1);
  const p = (await call(app, owner, 'GET', `/v1/brand/profiles/${profile.id}`)).body;
  t.match(p.status_domain_state, { verified: true, last_error: 'txt_missing', failing_since: /Z$/ });
  dns.txt.set(state.txt.name, [state.txt.value]);
  t.match((await verify()).status_domain_state, { verified: true, last_error: null });
});

t.test('a domain verified by one brand is taken for everyone else', async (t) => {
  const other = await signUp(app, { orgName: 'Other' });
  await setOrg(app, other, { plan: 'agency' });
  const theirs = await newProfile(app, other, { name: 'Other' });
  const res = await put(domain, other, theirs.id);
  t.equal(res.status, 409);
  t.match(res.body, { code: 'domain_taken', details: { domain } });
  // Same name set before the first brand verified it: the second verification reports domain_taken.
  const second = `status.shared-${uid()}.test`;
  const mine = await newProfile(app, owner, { name: 'Second' });
  t.equal((await put(second, owner, mine.id)).status, 200);
  t.equal((await put(second, other, theirs.id)).status, 200, 'nobody has verified it yet');
  const mineState = (await call(app, owner, 'GET', `/v1/brand/profiles/${mine.id}`)).body.status_domain_state;
  const theirState = (await call(app, other, 'GET', `/v1/brand/profiles/${theirs.id}`)).body.status_domain_state;
  if (!mineState || !theirState) throw new Error('both profiles have the status domain');
  dns.cname.set(second, 'status.patchwell.test');
  dns.txt.set(mineState.txt.name, [mineState.txt.value, theirState.txt.value]);
  t.match((await verify(owner, mine.id)).status_domain_state, { verified: true });
  t.match((await verify(other, theirs.id)).status_domain_state, { verified: false, last_error: 'domain_taken' });
});

t.test('the status page served under the verified domain shows the brand', async (t) => {
  const ws = (await call(app, owner, 'GET', '/v1/workspaces')).body.items.find((w) => w.name === 'Shop');
  if (!ws) throw new Error('the workspace Shop');
  await call(app, owner, 'PATCH', `/v1/brand/profiles/${profile.id}`, { name: 'Acme Care', primary_color: '#ffcc00' });
  await call(app, owner, 'PUT', `/v1/brand/profiles/${profile.id}/logo`, {
    content_type: 'image/png',
    data_base64: image('python.png').toString('base64'),
  });
  const tk = await createTicket(app, { orgId: owner.organization.id, workspaceId: ws.id, subject: 'Broken' });
  const url = new URL((await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body.public_status_url);
  const p = (await call(app, owner, 'GET', `/v1/brand/profiles/${profile.id}`)).body;
  if (!p.logo_url) throw new Error(`no logo: ${JSON.stringify(p)}`);
  const logoPath = new URL(p.logo_url).pathname;

  const page = await app.server.inject({ method: 'GET', url: url.pathname, headers: { host: domain } });
  t.equal(page.statusCode, 200);
  t.match(page.payload, 'data-testid="brand-header"');
  t.match(page.payload, `background:${p.primary_color_effective}`, 'the accessible brand color');
  t.match(page.payload, `src="${logoPath}"`, 'the logo, served by this host too');
  t.match(page.payload, 'data-testid="engine-badge"', 'the badge shows without the add-on');
  const logo = await app.server.inject({ method: 'GET', url: logoPath, headers: { host: domain } });
  t.equal(logo.statusCode, 200);

  await setOrg(app, owner, { badge_removal_addon: true });
  await call(app, owner, 'PATCH', `/v1/brand/profiles/${profile.id}`, { show_badge: false });
  const clean = await app.server.inject({ method: 'GET', url: url.pathname, headers: { host: domain } });
  t.notMatch(clean.payload, 'engine-badge', 'the add-on removes the badge');
  t.notMatch(clean.payload, /Patchwell/i, 'no trace of the engine');

  const pub = await call(app, null, 'GET', '/v1/public/brand', undefined, { host: domain });
  t.equal(pub.status, 200);
  t.same(
    pub.body,
    {
      host: domain,
      brand: {
        name: 'Acme Care',
        logo_url: `https://${domain}${logoPath}`,
        primary_color: p.primary_color_effective,
        font_family: 'Inter',
        theme: 'light',
        locale: 'en',
        website_url: null,
        show_badge: false,
        widget_texts: {},
      },
    },
    'GET /v1/public/brand on the verified host',
  );
  t.same(
    (await call(app, null, 'GET', '/v1/public/brand', undefined, { host: 'elsewhere.example.org' })).body,
    { host: 'elsewhere.example.org', brand: null },
    'null for other hosts',
  );
  const second = (await call(app, owner, 'GET', '/v1/brand')).body.profiles.find((x) => x.name === 'Second');
  if (!second?.status_domain) throw new Error('the profile Second has a status domain');
  const elsewhere = await app.server.inject({
    method: 'GET',
    url: url.pathname,
    headers: { host: second.status_domain },
  });
  t.equal(elsewhere.statusCode, 404, "another brand's domain does not serve this ticket");
  t.equal(
    (await app.server.inject({ method: 'GET', url: url.pathname, headers: { host: 'localhost:3000' } })).statusCode,
    200,
    'the default host still serves it',
  );
});

t.test('DELETE returns status pages to the default host', async (t) => {
  const res = await call(app, owner, 'DELETE', `/v1/brand/profiles/${profile.id}/status-domain`);
  t.match(res.body, {
    status_domain: null,
    status_domain_state: null,
    status_domain_verified_at: null,
    domain_dns_records: [],
  });
  t.ok(await app.db('audit_entries').where({ action: 'brand.status_domain_removed', target_id: profile.id }).first());
  const again = await put(domain);
  t.equal(again.status, 200, 'the freed domain can be set again');
  t.not(again.body.status_domain_state!.txt.value, state.txt.value, 'with a new challenge');
});
