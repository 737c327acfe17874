// Brand profiles through the API: the write shape and its validation, the effective color,
// the default profile and the fallback when a profile is deleted, plan limits, logo upload
// (sniffed, measured, limited) and deletion, workspace assignment, roles and tenancy.
import { deflateSync } from 'node:zlib';
import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import type { Method } from '../../../test/helpers/api-types.js';
import { call, image, newProfile, newWorkspace, setOrg, startBrand } from './helpers.js';

const app = await startBrand(t);
const owner = await signUp(app, { orgName: 'Acme' });
const ws = await newWorkspace(app, owner, 'Shop');
const b64 = (b: Buffer) => b.toString('base64');

t.test('the first profile is the default; the answer has the whole BrandProfile shape', async (t) => {
  const p = await newProfile(app, owner, {
    name: '  Acme  ',
    primary_color: '#FFCC00',
    font_family: 'Lora',
    locale: 'it',
    theme: 'dark',
    sender_name: 'Acme Support',
    sender_email: 'Help@Acme.test',
    website_url: 'https://acme.test',
    widget_texts: { button: 'Aiuto', title: '' },
  });
  t.match(p, {
    id: /^bp_/,
    org_id: owner.organization.id,
    name: 'Acme',
    is_default: true,
    logo_url: null,
    primary_color: '#ffcc00',
    color_adjusted: true,
    font_family: 'Lora',
    locale: 'it',
    theme: 'dark',
    sender_name: 'Acme Support',
    sender_email: 'help@acme.test',
    custom_domain: null,
    status_domain: null,
    inbound_domain: null,
    show_badge: true,
    widget_texts: { button: 'Aiuto' },
    website_url: 'https://acme.test',
    domain_dns_records: [],
    email_dns_records: [],
    domain_verified_at: null,
    inbound_verified_at: null,
    status_domain_verified_at: null,
    logo: null,
    status_domain_state: null,
  });
  t.not(p.primary_color_effective, '#ffcc00');
  t.notOk('title' in p.widget_texts, 'an empty text falls back to the built-in one');
  const again = await call(app, owner, 'GET', `/v1/brand/profiles/${p.id}`);
  t.same(again.body, p);
  t.ok(await app.db('audit_entries').where({ action: 'brand.profile_created', target_id: p.id }).first(), 'audited');
});

t.test('bad input answers 400 and changes nothing', async (t) => {
  for (const body of [
    {},
    { name: 'X', primary_color: 'red' },
    { name: 'X', font_family: 'Comic Sans MS' },
    { name: 'X', locale: 'fr' },
    { name: 'X', theme: 'blue' },
    { name: 'X', sender_email: 'not-an-email' },
    { name: 'X', website_url: 'javascript:alert(1)' },
    { name: 'X', logo_url: 'http://insecure.test/logo.png' },
    { name: 'X', widget_texts: { unknown_key: 'x' } },
    { name: 'X', extra: true },
  ]) {
    const res = await call(app, owner, 'POST', '/v1/brand/profiles', body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body.code, 'invalid_request');
  }
  t.equal((await app.db('brand_profiles').where({ org_id: owner.organization.id })).length, 1);
});

t.test('plans without brand profiles keep one; the badge needs the add-on', async (t) => {
  const res = await call(app, owner, 'POST', '/v1/brand/profiles', { name: 'Second' });
  t.equal(res.status, 402);
  t.match(res.body, { code: 'plan_limit_reached', details: { reason: 'brand_profiles' } });
  await setOrg(app, owner, { plan: 'growth' });
  const [p] = (await call(app, owner, 'GET', '/v1/brand')).body.profiles;
  const hide = await call(app, owner, 'PATCH', `/v1/brand/profiles/${p.id}`, { show_badge: false });
  t.equal(hide.status, 402);
  t.match(hide.body, { code: 'plan_limit_reached', details: { reason: 'badge_removal_addon' } });
  await setOrg(app, owner, { badge_removal_addon: true });
  t.equal(
    (await call(app, owner, 'PATCH', `/v1/brand/profiles/${p.id}`, { show_badge: false })).body.show_badge,
    false,
  );
  await setOrg(app, owner, { badge_removal_addon: false });
  t.equal(
    (await call(app, owner, 'GET', `/v1/brand/profiles/${p.id}`)).body.show_badge,
    true,
    'without the add-on the badge shows again',
  );
});

t.test('PATCH changes fields, keeps one default, and darkens only what needs it', async (t) => {
  const first = (await call(app, owner, 'GET', '/v1/brand')).body.profiles[0];
  const second = await newProfile(app, owner, { name: 'Client brand', primary_color: '#0000ff' });
  t.match(second, {
    is_default: false,
    primary_color_effective: '#0000ff',
    color_adjusted: false,
    font_family: 'Inter',
    locale: 'en',
    theme: 'light',
  });
  const made = await call(app, owner, 'PATCH', `/v1/brand/profiles/${second.id}`, {
    is_default: true,
    primary_color: '#87CEEB',
    name: 'Client',
  });
  t.match(made.body, { is_default: true, name: 'Client', primary_color: '#87ceeb', color_adjusted: true });
  t.equal(
    (await call(app, owner, 'GET', `/v1/brand/profiles/${first.id}`)).body.is_default,
    false,
    'the old default is not default any more',
  );
  const unset = await call(app, owner, 'PATCH', `/v1/brand/profiles/${second.id}`, { is_default: false });
  t.equal(unset.status, 422);
  t.equal(unset.body.code, 'default_required');
  const audit = (await app
    .db('audit_entries')
    .where({ action: 'brand.profile_updated', target_id: second.id })
    .first()) as { changes: unknown };
  t.match(JSON.parse(typeof audit.changes === 'string' ? audit.changes : JSON.stringify(audit.changes)), {
    primary_color: { before: '#0000ff', after: '#87ceeb' },
  });
  await call(app, owner, 'PATCH', `/v1/brand/profiles/${first.id}`, { is_default: true });
});

t.test('workspaces choose a profile; deleting it falls back to the default', async (t) => {
  const overview = (await call(app, owner, 'GET', '/v1/brand')).body;
  const def = overview.profiles.find((p) => p.is_default)!;
  const other = overview.profiles.find((p) => !p.is_default)!;
  t.match(overview, {
    organization: { name: 'Acme', type: 'direct', plan: 'growth' },
    allowances: { brand_profiles: null, custom_domains: true, white_label: false },
  });
  t.match(
    overview.workspaces.find((w) => w.id === ws.id),
    {
      brand_profile_id: null,
      effective_profile_id: def.id,
      show_badge: true,
      status_base_url: 'http://localhost:3000/status',
      white_label_missing: [],
    },
  );

  const set = await call(app, owner, 'PUT', `/v1/brand/workspaces/${ws.id}`, { brand_profile_id: other.id });
  t.equal(set.status, 200);
  t.same(Object.keys(set.body).sort(), [
    'brand_profile_id',
    'changelog_enabled',
    'client_name',
    'effective_profile_id',
    'id',
    'name',
    'show_badge',
    'slug',
    'status_base_url',
    'white_label_missing',
  ]);
  t.match(set.body, { id: ws.id, brand_profile_id: other.id, effective_profile_id: other.id });
  t.equal((await call(app, owner, 'GET', `/v1/workspaces/${ws.id}`)).body.brand_profile_id, other.id);
  t.ok(
    await app.db('audit_entries').where({ action: 'workspace.updated', target_id: ws.id }).first(),
    'the workspace change is audited',
  );
  t.equal(
    (await call(app, owner, 'PUT', `/v1/brand/workspaces/${ws.id}`, { brand_profile_id: 'bp_missing' })).status,
    404,
  );
  t.equal(
    (await call(app, owner, 'PUT', `/v1/brand/workspaces/${ws.id}`, {})).status,
    400,
    'brand_profile_id is required (null selects the default)',
  );

  const delDefault = await call(app, owner, 'DELETE', `/v1/brand/profiles/${def.id}`);
  t.equal(delDefault.status, 409);
  t.equal(delDefault.body.code, 'default_profile');
  const del = await call(app, owner, 'DELETE', `/v1/brand/profiles/${other.id}`);
  t.same(del.body, { ok: true });
  t.equal((await call(app, owner, 'GET', `/v1/brand/profiles/${other.id}`)).status, 404);
  const after = (await call(app, owner, 'GET', '/v1/brand')).body.workspaces.find((w) => w.id === ws.id);
  t.match(after, { brand_profile_id: null, effective_profile_id: def.id }, 'the workspace falls back to the default');
  t.ok(await app.db('audit_entries').where({ action: 'brand.profile_deleted', target_id: other.id }).first());

  const back = await call(app, owner, 'PUT', `/v1/brand/workspaces/${ws.id}`, { brand_profile_id: null });
  t.match(back.body, { brand_profile_id: null, effective_profile_id: def.id });
});

function bigPng(bytes: number): Buffer {
  const head = Buffer.from(image('python.png').subarray(0, 33)); // signature + IHDR
  const filler = Buffer.alloc(bytes - head.length);
  return Buffer.concat([head, filler]);
}

t.test('logo upload: sniffed, measured, limited; served and deleted', async (t) => {
  const p = (await call(app, owner, 'GET', '/v1/brand')).body.profiles[0];
  const put = (content_type: string, data: string) =>
    call(app, owner, 'PUT', `/v1/brand/profiles/${p.id}/logo`, { content_type, data_base64: data });

  const up = await put('image/webp', b64(image('python.webp')));
  t.equal(up.status, 200);
  t.match(up.body.logo, {
    source: 'upload',
    content_type: 'image/webp',
    width: 16,
    height: 16,
    size_bytes: image('python.webp').length,
    uploaded_at: /Z$/,
    url: /^http:\/\/localhost:3000\/brand-assets\/bp_\w+\/logo-[0-9a-f]{16}\.webp$/,
    preview_url: `http://localhost:3000/brand-assets/${p.id}/preview`,
  });
  const { logo, logo_url: logoUrl } = up.body;
  if (!logo || !logoUrl) throw new Error(`no uploaded logo: ${up.payload}`);
  t.equal(logoUrl, logo.url);
  const asset = await app.server.inject({ method: 'GET', url: new URL(logoUrl).pathname });
  t.equal(asset.statusCode, 200);
  t.equal(asset.headers['content-type'], 'image/webp');
  t.same(asset.rawPayload, image('python.webp'), 'the same bytes come back');
  t.equal(asset.headers['x-content-type-options'], 'nosniff');
  const preview = await app.server.inject({ method: 'GET', url: new URL(logo.preview_url).pathname });
  t.equal(preview.statusCode, 200);
  t.match(preview.payload, logoUrl);
  t.match(preview.payload, up.body.primary_color_effective);

  const jpeg = await put('image/jpeg', b64(image('python.jpg')));
  t.match(jpeg.body.logo, { content_type: 'image/jpeg', width: 16, height: 16 });
  t.equal(
    (await app.server.inject({ method: 'GET', url: new URL(logoUrl).pathname })).statusCode,
    404,
    'the old URL is gone with the old bytes',
  );

  const mismatch = await put('image/png', b64(image('python.jpg')));
  t.equal(mismatch.status, 422);
  t.match(mismatch.body, { code: 'content_type_mismatch', details: { declared: 'image/png', detected: 'image/jpeg' } });
  const gif = await put('image/png', b64(image('python.gif')));
  t.equal(gif.status, 422);
  t.equal(gif.body.code, 'unsupported_image');
  t.equal((await put('image/svg+xml', b64(Buffer.from('<svg/>')))).status, 400, 'content types outside the three');
  t.equal((await put('image/png', '***not base64***')).status, 400);
  const big = await put('image/png', b64(bigPng(512 * 1024 + 1)));
  t.equal(big.status, 413);
  t.equal(big.body.code, 'payload_too_large');
  const edge = await put('image/png', b64(bigPng(512 * 1024)));
  t.equal(edge.status, 200, 'exactly 512 KiB is accepted');
  t.equal(edge.body.logo?.size_bytes, 512 * 1024);
  const huge = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    Buffer.from('IHDR'),
    Buffer.from([0, 0, 0x4e, 0x20, 0, 0, 0, 16, 8, 2, 0, 0, 0]),
    deflateSync(Buffer.alloc(10)),
  ]);
  const tooWide = await put('image/png', b64(huge));
  t.equal(tooWide.status, 422);
  t.equal(tooWide.body.code, 'image_too_large');
  t.equal(
    (await call(app, owner, 'GET', `/v1/brand/profiles/${p.id}`)).body.logo?.size_bytes,
    512 * 1024,
    'refused uploads change nothing',
  );

  const gone = await call(app, owner, 'DELETE', `/v1/brand/profiles/${p.id}/logo`);
  t.match(gone.body, { logo: null, logo_url: null });
  const text = await app.server.inject({ method: 'GET', url: `/brand-assets/${p.id}/preview` });
  t.match(text.payload, /data-testid="brand-name">Acme</, 'surfaces show the name as text');
  t.ok(await app.db('audit_entries').where({ action: 'brand.logo_deleted', target_id: p.id }).first());

  const linked = await call(app, owner, 'PATCH', `/v1/brand/profiles/${p.id}`, {
    logo_url: 'https://cdn.acme.test/logo.png',
  });
  t.match(linked.body, {
    logo_url: 'https://cdn.acme.test/logo.png',
    logo: { source: 'url', url: 'https://cdn.acme.test/logo.png', content_type: null, width: null },
  });
});

t.test('roles and tenancy', async (t) => {
  const p = (await call(app, owner, 'GET', '/v1/brand')).body.profiles[0];
  const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [ws.id] });
  t.equal((await call(app, reviewer, 'GET', '/v1/brand')).status, 403);
  t.equal((await call(app, reviewer, 'PATCH', `/v1/brand/profiles/${p.id}`, { name: 'Hacked' })).status, 403);
  t.equal((await call(app, reviewer, 'GET', `/v1/brand/profiles/${p.id}`)).status, 200, 'members read profiles');
  t.equal((await call(app, null, 'GET', `/v1/brand/profiles/${p.id}`)).status, 401);

  const other = await signUp(app, { orgName: 'Other' });
  const otherWs = await newWorkspace(app, other, 'Theirs');
  for (const [method, url, payload] of [
    ['GET', `/v1/brand/profiles/${p.id}`],
    ['PATCH', `/v1/brand/profiles/${p.id}`, { name: 'Stolen' }],
    ['DELETE', `/v1/brand/profiles/${p.id}`],
    ['PUT', `/v1/brand/profiles/${p.id}/logo`, { content_type: 'image/png', data_base64: b64(image('python.png')) }],
    ['DELETE', `/v1/brand/profiles/${p.id}/logo`],
    ['PUT', `/v1/brand/profiles/${p.id}/status-domain`, { domain: 'status.stolen.test' }],
    ['DELETE', `/v1/brand/profiles/${p.id}/status-domain`],
    ['POST', `/v1/brand/profiles/${p.id}/status-domain/verify`],
  ] as [Method, string, unknown?][]) {
    const res = await call(app, other, method, url, payload);
    t.equal(res.status, 404, `${method} ${url}`);
    t.equal(res.body.code, 'not_found');
  }
  t.equal(
    (await call(app, other, 'PUT', `/v1/brand/workspaces/${ws.id}`, { brand_profile_id: null })).status,
    404,
    "another organization's workspace",
  );
  t.equal(
    (await call(app, owner, 'PUT', `/v1/brand/workspaces/${otherWs.id}`, { brand_profile_id: p.id })).status,
    404,
  );
  const theirs = await newProfile(app, other, { name: 'Theirs' });
  t.equal(
    (await call(app, owner, 'PUT', `/v1/brand/workspaces/${ws.id}`, { brand_profile_id: theirs.id })).status,
    404,
    "another organization's profile",
  );
  t.same(
    (await call(app, other, 'GET', '/v1/brand')).body.profiles.map((x) => x.id),
    [theirs.id],
  );
  t.equal((await call(app, owner, 'GET', `/v1/brand/profiles/${p.id}`)).body.name, 'Acme', 'nothing changed');
});
