// Agency: white-label readiness of every client workspace, the partner profile (edited by the
// agency, certified by staff, with referred customers) and the public list of certified
// partners; roles, non-agency organizations and tenancy.
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { startTestApp } from '../../../test/helpers/app.js';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { createTicket } from '../../../test/helpers/tickets.js';
import { caller, signUpAgency } from './helpers.js';

const app = await startTestApp(t);
const call = caller(app);
const agency = await signUpAgency(app);
const clientWs = (await call(agency, 'POST', '/v1/workspaces', { name: 'Client shop', client_name: 'Client Co' })).body;
await call(agency, 'POST', '/v1/workspaces', { name: 'Our site' });

t.test('white-label readiness lists every client workspace with what is missing', async (t) => {
  const res = await call(agency, 'GET', '/v1/agency/white-label');
  t.equal(res.status, 200);
  t.same(
    res.body,
    {
      items: [
        {
          workspace_id: clientWs.id,
          name: 'Client shop',
          client_name: 'Client Co',
          brand_profile_id: null,
          effective_profile_id: null,
          status_base_url: 'http://localhost:3000/status',
          show_badge: true,
          ready: false,
          missing: ['brand_profile', 'status_domain', 'badge_removal', 'sending_domain'],
        },
      ],
      ready: 0,
      total: 1,
    },
    "the agency's own workspace (no client_name) is not a client",
  );
  const profile = (await call(agency, 'POST', '/v1/brand/profiles', { name: 'Client Co' })).body;
  const after = await call(agency, 'GET', '/v1/agency/white-label');
  t.match(after.body.items[0], {
    effective_profile_id: profile.id,
    missing: ['status_domain', 'badge_removal', 'sending_domain'],
  });
});

t.test('the partner profile: edited by the agency, certified by staff, listed publicly', async (t) => {
  const empty = await call(agency, 'GET', '/v1/agency/partner');
  t.match(empty.body, {
    organization_id: agency.organization.id,
    exists: false,
    display_name: 'Pixel Agency',
    listed: false,
    public: false,
    certification: { status: 'none' },
    referred_customers: [],
  });

  const put = await call(agency, 'PUT', '/v1/agency/partner', {
    display_name: 'Pixel',
    website_url: 'https://pixel.test',
    countries: ['IT', 'IT', 'CH'],
    languages: ['it', 'en'],
    services: ['white_label', 'setup'],
    listed: true,
    request_certification: true,
  });
  t.equal(put.status, 200);
  t.match(put.body, {
    exists: true,
    display_name: 'Pixel',
    countries: ['IT', 'CH'],
    listed: true,
    public: false,
    certification: { status: 'requested', requested_at: /Z$/, certified_at: null },
  });
  t.ok(await app.db('audit_entries').where({ action: 'agency.partner_created' }).first(), 'audited');
  t.ok(await app.db('outbox').where({ type: 'agency.certification_requested' }).first());
  t.same((await call(null, 'GET', '/v1/public/partners')).body, { items: [] }, 'not listed before certification');

  t.equal(
    (
      await call(agency, 'PUT', '/v1/agency/partner', {
        organization_id: agency.organization.id,
        certification: 'certified',
      })
    ).status,
    403,
    'an agency cannot certify itself',
  );
  for (const bad of [{ countries: ['Italy'] }, { services: ['seo'] }, { website_url: 'ftp://x' }, { unknown: 1 }]) {
    t.equal((await call(agency, 'PUT', '/v1/agency/partner', bad)).status, 400, JSON.stringify(bad));
  }

  const staff = await signUp(app, { orgName: 'Patchwell staff' });
  await app.db('users').where({ id: staff.user.id }).update({ staff: true });
  const decided = await call(staff, 'PUT', '/v1/agency/partner', {
    organization_id: agency.organization.id,
    certification: 'certified',
  });
  t.equal(decided.status, 200);
  t.match(decided.body, {
    organization_id: agency.organization.id,
    public: true,
    certification: { status: 'certified', certified_at: /Z$/ },
  });
  t.ok(
    await app
      .db('audit_entries')
      .where({ action: 'agency.partner_certification_decided', org_id: agency.organization.id })
      .first(),
  );
  const listed = await call(null, 'GET', '/v1/public/partners');
  t.same(
    listed.body.items.map((p) => [p.name, p.website_url, p.services]),
    [['Pixel', 'https://pixel.test', ['white_label', 'setup']]],
  );
  t.notOk('organization_id' in listed.body.items[0], 'no internal ids in public');

  await call(agency, 'PUT', '/v1/agency/partner', { listed: false });
  t.same((await call(null, 'GET', '/v1/public/partners')).body.items, [], 'unlisted by the agency');
  await call(agency, 'PUT', '/v1/agency/partner', { listed: true });
  await call(staff, 'PUT', '/v1/agency/partner', { organization_id: agency.organization.id, certification: 'revoked' });
  t.same((await call(null, 'GET', '/v1/public/partners')).body.items, [], 'revoked by staff');
});

t.test("referred customers are the organizations that signed up with the agency's code", async (t) => {
  const code = (
    (await app.db('organizations').where({ id: agency.organization.id }).first()) as { referral_code: string | null }
  ).referral_code;
  if (!code) {
    await app.db('organizations').where({ id: agency.organization.id }).update({ referral_code: 'PIXEL1' });
  }
  const c = code ?? 'PIXEL1';
  const customer = await signUp(app, { orgName: 'Referred Co' });
  await app
    .db('organizations')
    .where({ id: customer.organization.id })
    .update({ referred_by_code: c, signup_source: 'partner' });
  const res = await call(agency, 'GET', '/v1/agency/partner');
  t.match(res.body, {
    referral_code: c,
    referred_customers: [{ organization_id: customer.organization.id, name: 'Referred Co', signed_up_at: /Z$/ }],
  });
});

t.test('overview, client card, queue with SLA timers, resale', async (t) => {
  const open = async (patch: Record<string, unknown>) => {
    const tk = await createTicket(app, {
      orgId: agency.organization.id,
      workspaceId: clientWs.id,
      subject: `Ticket ${Math.random()}`,
    });
    await app.db('tickets').where({ id: tk.id }).update(patch);
    return tk.id;
  };
  const now = Date.now();
  const overdue = await open({
    state: 'escalated',
    escalated_at: new Date(now - 3 * 3600_000),
    escalation_reason: 'low_confidence',
    sla_due_at: new Date(now - 3600_000),
  });
  const approval = await open({ state: 'awaiting_approval', sla_due_at: new Date(now + 2 * 3600_000) });
  await open({
    state: 'closed',
    closed_at: new Date(now),
    first_response_at: new Date(now - 60_000),
    created_at: new Date(now - 30 * 60_000),
  });
  await app
    .db('workspaces')
    .where({ id: clientWs.id })
    .update({
      resale_price: 200,
      collect_via_connect: true,
      resale_client_email: 'billing@client.test',
      report_recipients: JSON.stringify(['cto@client.test']),
      report_intro: 'Monthly summary',
    });

  const ov = await call(agency, 'GET', '/v1/agency/overview');
  t.equal(ov.status, 200);
  t.match(ov.body, {
    totals: { clients: 1, open: 2, awaiting_approval: 1, escalated: 1, overdue: 1, white_label_ready: 0 },
  });
  t.match(ov.body.clients[0], {
    workspace_id: clientWs.id,
    client_name: 'Client Co',
    tickets: { open: 2, opened_this_month: 3, resolved_this_month: 1 },
    white_label: { ready: false },
    resale_price_usd: 200,
  });

  const card = await call(agency, 'GET', `/v1/agency/clients/${clientWs.id}`);
  t.equal(card.status, 200);
  t.match(card.body, {
    service_levels: { last_30_days: { responded: 1, first_response_met_rate: 1, resolved: 1, resolution_met_rate: 1 } },
    report_settings: { recipients: ['cto@client.test'], intro: 'Monthly summary', auto_send: false },
    consent: { share_policy: 'snippets' },
    billing: { resale_price_usd: 200, collect_via_connect: true, client_email: 'billing@client.test' },
  });
  const own = (await call(agency, 'GET', '/v1/workspaces')).body.items.find((w) => w.name === 'Our site');
  if (!own) throw new Error("the agency's own workspace is listed");
  t.equal(
    (await call(agency, 'GET', `/v1/agency/clients/${own.id}`)).status,
    404,
    "the agency's own workspace is not a client",
  );

  const q = await call(agency, 'GET', '/v1/agency/queue');
  t.equal(q.status, 200);
  t.equal(q.body.total, 2);
  t.same(
    q.body.items.map((i) => [i.ticket_id, i.kind, i.sla.overdue]),
    [
      [overdue, 'escalation', true],
      [approval, 'approval', false],
    ],
    'the most urgent first',
  );
  const remaining = q.body.items[0].sla.remaining_minutes;
  t.ok(remaining !== null && remaining <= -59 && remaining >= -61);
  t.match(q.body.items[0], { reason: 'low_confidence', client_name: 'Client Co', waiting_since: /Z$/ });
  t.equal((await call(agency, 'GET', '/v1/agency/queue?limit=1')).body.items.length, 1);

  const resale = await call(agency, 'GET', '/v1/agency/resale');
  t.equal(resale.status, 200);
  t.match(resale.body, {
    currency: 'usd',
    items: [{ workspace_id: clientWs.id, resale_price_usd: 200, cost_usd: 0, margin_usd: 200, margin_rate: 1 }],
    totals: { clients: 1, priced: 1, revenue_usd: 200, margin_usd: 200 },
  });
});

t.test('roles, organizations that are not agencies, tenancy', async (t) => {
  const reviewer = await addMember(app, agency, { role: 'reviewer', workspaceIds: [clientWs.id] });
  t.equal((await call(reviewer, 'GET', '/v1/agency/white-label')).status, 403);
  t.equal((await call(reviewer, 'PUT', '/v1/agency/partner', { display_name: 'X' })).status, 403);
  t.equal((await call(null, 'GET', '/v1/agency/partner')).status, 401);
  const direct = await signUp(app, { orgName: 'Direct' });
  for (const [m, u] of [
    ['GET', '/v1/agency/white-label'],
    ['GET', '/v1/agency/partner'],
    ['GET', '/v1/agency/overview'],
    ['GET', '/v1/agency/queue'],
    ['GET', '/v1/agency/resale'],
  ] as const) {
    const res = await call(direct, m, u);
    t.equal(res.status, 403);
    t.equal(res.body.code, 'not_an_agency');
  }
  const other = await signUp(app, { orgName: 'Other agency', organizationType: 'agency' });
  // An agency without a plan that includes agency features (here: none yet) is refused with 402.
  for (const [m, u, p] of [
    ['GET', '/v1/agency/white-label'],
    ['GET', '/v1/agency/partner'],
    ['PUT', '/v1/agency/partner', { display_name: 'X' }],
    ['GET', '/v1/agency/overview'],
    ['GET', '/v1/agency/queue'],
    ['GET', '/v1/agency/resale'],
    ['GET', `/v1/agency/clients/${clientWs.id}`],
  ] as const) {
    t.match(
      await call(other, m, u, p),
      {
        status: 402,
        body: { code: 'plan_limit_reached', details: { reason: 'agency_in_plan', plan: 'none', message_it: /piano/ } },
      },
      `${m} ${u} needs the plan`,
    );
  }
  await app.db('organizations').where({ id: other.organization.id }).update({ plan: 'startup' });
  t.match(
    await call(other, 'GET', '/v1/agency/overview'),
    { status: 402, body: { details: { plan: 'startup' } } },
    'a plan without agency features',
  );
  await app.db('organizations').where({ id: other.organization.id }).update({ plan: 'enterprise' });
  t.same(
    (await call(other, 'GET', '/v1/agency/white-label')).body,
    { items: [], ready: 0, total: 0 },
    'nothing of another agency',
  );
  t.equal((await call(other, 'GET', `/v1/agency/clients/${clientWs.id}`)).status, 404, "another agency's client");
  t.same((await call(other, 'GET', '/v1/agency/queue')).body, { items: [], total: 0 });
  t.match((await call(other, 'GET', '/v1/agency/overview')).body, { clients: [], totals: { clients: 0 } });
  t.equal((await call(reviewer, 'GET', '/v1/agency/overview')).status, 403);
  t.match((await call(other, 'GET', '/v1/agency/partner')).body, {
    organization_id: other.organization.id,
    exists: false,
    referred_customers: [],
  });
});

t.test('the OpenAPI document lists the brand, agency, analytics and public operations and stays valid', async (t) => {
  const doc = JSON.parse((await app.server.inject('/v1/openapi.json')).payload) as {
    paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
  };
  const ops = Object.values(doc.paths)
    .flatMap((p) => Object.values(p))
    .filter((o) => o && typeof o === 'object' && 'operationId' in o);
  const bySection = (tag: string) =>
    ops
      .filter((o) => o.tags?.[0] === tag)
      .map((o) => o.operationId)
      .sort();
  t.equal(bySection('brand').length, 11, 'brand: 11');
  t.equal(bySection('analytics').filter((id) => !/OssSponsorship/.test(id)).length, 2, 'analytics: 2');
  t.same(
    bySection('analytics').filter((id) => /OssSponsorship/.test(id)),
    ['decideOssSponsorshipRequest', 'listOssSponsorshipRequests'],
    'plus the staff review of sponsorship requests (beyond the spec)',
  );
  t.same(
    bySection('agency'),
    [
      'createAgencyReport',
      'getAgencyClient',
      'getAgencyOverview',
      'getAgencyPartner',
      'getAgencyQueue',
      'getAgencyReport',
      'getAgencyResale',
      'getAgencyWhiteLabel',
      'listAgencyReports',
      'putAgencyPartner',
      'sendAgencyReport',
    ],
    'agency: 11',
  );
  t.same(bySection('public'), [
    'createOssSponsorshipRequest',
    'getPublicBrand',
    'getPublicStats',
    'listPublicPartners',
  ]);
  const result = await new Validator().validate(doc);
  if (!result.valid) t.comment(JSON.stringify(result.errors).slice(0, 2000));
  t.equal(result.valid, true);
});
