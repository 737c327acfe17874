// Organization and workspace analytics over a date range: volume by origin and category,
// first-response and resolution percentiles, deflection, the time series, ranges, roles and
// tenancy. Tickets are made through the tickets service, then dated.
import t from 'tap';
import { startTestApp } from '../../../test/helpers/app.js';
import { addMember, onPlan, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { createTicket, datedTicket, type TicketHistory } from '../../../test/helpers/tickets.js';
import { buckets } from '../services/metrics.js';
import type { Answer, Method } from '../../../test/helpers/api-types.js';

const app = await startTestApp(t);
const owner = await signUp(app, { orgName: 'Acme' });
// Two workspaces: a plan that includes them (the none plan includes one).
await onPlan(app, owner.organization.id, 'growth');
/** GET `url` as `who`: the status and the body of the operation the URL names. */
const call = async <U extends string>(who: SignedUp, url: U) => {
  const res = await app.server.inject({ method: 'GET', url, ...who.auth });
  return { status: res.statusCode, body: JSON.parse(res.payload) as Answer<'GET', U> };
};
const newWs = async (who: SignedUp, name: string) =>
  JSON.parse(
    (await app.server.inject({ method: 'POST', url: '/v1/workspaces', payload: { name }, ...who.auth })).payload,
  ) as Answer<'POST', '/v1/workspaces'>;
const shop = await newWs(owner, 'Shop');
const blog = await newWs(owner, 'Blog');

const DAY = 86_400_000;
const base = Date.UTC(2026, 9, 5, 10, 0, 0); // Monday 5 October 2026, 10:00 UTC
const at = (days: number, minutes = 0) => new Date(base + days * DAY + minutes * 60_000);
/** A ticket opened on day `o.day` of the range (a usage question by email unless told), then dated. */
const ticket = (orgId: string, workspaceId: string, o: { day: number } & TicketHistory) =>
  datedTicket(app, orgId, workspaceId, at(o.day), { origin: 'email', category: 'usage', ...o });

// Shop: 4 tickets over two days; Blog: 1 ticket; one ticket outside the range.
await ticket(owner.organization.id, shop.id, { day: 0, origin: 'email', category: 'usage', frMin: 10, resolveMin: 60 });
await ticket(owner.organization.id, shop.id, {
  day: 0,
  origin: 'widget',
  category: 'bug',
  frMin: 30,
  resolveMin: 600,
  fixed: true,
});
await ticket(owner.organization.id, shop.id, { day: 1, origin: 'widget', category: 'bug', frMin: 20 });
await ticket(owner.organization.id, shop.id, { day: 1, origin: 'proactive', category: 'unknown', escalated: true });
await ticket(owner.organization.id, blog.id, {
  day: 2,
  origin: 'codehost',
  category: 'docs',
  frMin: 40,
  resolveMin: 120,
});
await ticket(owner.organization.id, blog.id, { day: 40, origin: 'email' });

const range = `from=${at(0, -600).toISOString()}&to=${at(7, -600).toISOString()}`;

t.test('organization metrics: volume, times, deflection and a daily series', async (t) => {
  const res = await call(owner, `/v1/analytics?${range}`);
  t.equal(res.status, 200);
  const m = res.body;
  t.match(m, {
    scope: { kind: 'organization', id: owner.organization.id, workspace_ids: null },
    range: { interval: 'day' },
  });
  t.same(m.volume, {
    total: 5,
    by_origin: { email: 1, widget: 2, codehost: 1, proactive: 1 },
    by_category: { usage: 1, config: 0, docs: 1, bug: 2, feature_request: 0, unknown: 1 },
  });
  t.same(
    m.first_response,
    { count: 4, avg_minutes: 25, median_minutes: 25, p90_minutes: 37, p95_minutes: 38.5 },
    'first responses 10, 20, 30, 40 minutes',
  );
  t.same(
    m.resolution,
    { count: 3, avg_minutes: 260, median_minutes: 120, p90_minutes: 504, p95_minutes: 552 },
    'resolutions 60, 120, 600 minutes',
  );
  t.same(m.deflection, {
    answered_without_fix: 3,
    fixed: 1,
    escalated: 1,
    resolved: 3,
    answer_rate: 0.6,
    fix_rate: 0.2,
  });
  t.equal(m.series.length, 7, 'one bucket per UTC day of [from, to)');
  const byDay = Object.fromEntries(m.series.map((s) => [s.period_start.slice(0, 10), s]));
  t.match(byDay['2026-10-05'], {
    tickets: 2,
    resolved: 2,
    fixed: 1,
    median_first_response_minutes: 20,
    median_resolution_minutes: 330,
  });
  t.match(byDay['2026-10-06'], {
    tickets: 2,
    resolved: 0,
    median_first_response_minutes: 20,
    median_resolution_minutes: null,
  });
  t.match(byDay['2026-10-07'], { tickets: 1, resolved: 1 });
  t.match(byDay['2026-10-08'], { tickets: 0, resolved: 0, median_first_response_minutes: null });
  t.equal(m.fixes, null, 'the fix loop is off in this app (test/helpers/db.ts): no fix figures');
});

t.test('with the fix loop on, its jobs of the range (read through fixRecords)', async (t) => {
  const withFixes = await startTestApp(t, { plugins: { fixes: { enabled: true } } });
  const someone = await signUp(withFixes, { orgName: 'Fixers' });
  const ws = JSON.parse(
    (
      await withFixes.server.inject({
        method: 'POST',
        url: '/v1/workspaces',
        payload: { name: 'Api' },
        ...someone.auth,
      })
    ).payload,
  ) as Answer<'POST', '/v1/workspaces'>;
  const tk = await createTicket(withFixes, { orgId: someone.organization.id, workspaceId: ws.id });
  const get = async <U extends string>(url: U) =>
    JSON.parse((await withFixes.server.inject({ method: 'GET', url, ...someone.auth })).payload) as Answer<'GET', U>;
  t.same(
    (await get(`/v1/analytics?${range}`)).fixes,
    { attempted: 0, succeeded: 0, cost_usd: 0, cost_per_fix_usd: null },
    'none in the range yet',
  );
  let n = 0;
  const job = (kind: string, status: string, cost: number, day: number) => ({
    id: `fjob_analytics_${n++}`,
    org_id: someone.organization.id,
    workspace_id: ws.id,
    ticket_id: tk.id,
    kind,
    executor: 'builtin',
    mode: 'managed',
    status,
    cost_usd: cost,
    created_at: at(day),
  });
  await withFixes
    .db('fix_jobs')
    .insert([
      job('fix', 'succeeded', 2.5, 0),
      job('fix', 'failed', 1, 1),
      job('diagnose', 'succeeded', 0.25, 1),
      job('fix', 'succeeded', 9, 40),
    ]);
  t.same(
    (await get(`/v1/analytics?${range}`)).fixes,
    { attempted: 2, succeeded: 1, cost_usd: 3.75, cost_per_fix_usd: 3.5 },
    'the day-40 job is outside the range; a diagnosis counts in the cost only',
  );
  const other = await signUp(withFixes, { orgName: 'Others' });
  const theirs = JSON.parse(
    (await withFixes.server.inject({ method: 'GET', url: `/v1/analytics?${range}`, ...other.auth })).payload,
  ) as Answer<'GET', '/v1/analytics'>;
  t.same(
    theirs.fixes,
    { attempted: 0, succeeded: 0, cost_usd: 0, cost_per_fix_usd: null },
    "another organization's jobs are not counted",
  );
});

t.test('workspace metrics and narrowing', async (t) => {
  const ws = await call(owner, `/v1/analytics/workspaces/${blog.id}?${range}`);
  t.equal(ws.status, 200);
  t.match(ws.body, {
    scope: { kind: 'workspace', id: blog.id },
    volume: { total: 1, by_origin: { codehost: 1 } },
    resolution: { count: 1, median_minutes: 120 },
  });
  const narrowed = await call(owner, `/v1/analytics?${range}&workspace_ids=${shop.id}`);
  t.equal(narrowed.body.volume.total, 4);
  const weekly = await call(owner, `/v1/analytics?${range}&interval=week`);
  t.same(
    weekly.body.series.map((s) => [s.period_start.slice(0, 10), s.tickets]),
    [['2026-10-05', 5]],
    'ISO weeks start on Monday; to is exclusive',
  );
  const twoWeeks = await call(owner, `/v1/analytics?from=2026-10-07T00:00:00Z&to=2026-10-13T00:00:00Z&interval=week`);
  t.same(
    twoWeeks.body.series.map((s) => [s.period_start.slice(0, 10), s.tickets]),
    [
      ['2026-10-05', 1],
      ['2026-10-12', 0],
    ],
    'a partial first week starts on its Monday',
  );
  const def = await call(owner, '/v1/analytics');
  t.equal(def.status, 200, 'default range: the last 30 days');
  t.equal(def.body.range.interval, 'day');
});

t.test('bad ranges answer 400', async (t) => {
  for (const q of [
    `from=${at(2).toISOString()}&to=${at(1).toISOString()}`,
    'from=2020-01-01&to=2026-01-01',
    'from=2020-01-01&to=2021-12-31&interval=day',
    'interval=hour',
    'from=yesterday',
  ]) {
    const res = await call(owner, `/v1/analytics?${q}`);
    t.equal(res.status, 400, q);
    t.equal(res.body.code, 'invalid_request');
  }
});

t.test('roles and tenancy', async (t) => {
  const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [blog.id] });
  t.equal(
    (await call(reviewer, `/v1/analytics?${range}`)).status,
    403,
    'organization metrics are for owners and admins',
  );
  t.equal((await call(reviewer, `/v1/analytics/workspaces/${blog.id}?${range}`)).body.volume.total, 1);
  t.equal(
    (await call(reviewer, `/v1/analytics/workspaces/${shop.id}?${range}`)).status,
    403,
    'a workspace the member cannot open',
  );
  const other = await signUp(app, { orgName: 'Other' });
  const res = await call(other, `/v1/analytics/workspaces/${shop.id}?${range}`);
  t.equal(res.status, 404);
  t.equal(res.body.code, 'not_found');
  t.equal((await call(other, `/v1/analytics?${range}&workspace_ids=${shop.id}`)).status, 404);
  t.equal((await call(other, `/v1/analytics?${range}`)).body.volume.total, 0, 'nothing of another organization');
});

t.test('bucket starts', (t) => {
  t.same(
    buckets(new Date('2026-01-30T12:00:00Z'), new Date('2026-03-02T00:00:00Z'), 'month').map((d) =>
      d.toISOString().slice(0, 10),
    ),
    ['2026-01-01', '2026-02-01', '2026-03-01'],
  );
  t.end();
});

t.test('public landing counters', async (t) => {
  const res = await app.server.inject({ method: 'GET', url: '/v1/public/stats' });
  t.equal(res.statusCode, 200);
  t.match(
    JSON.parse(res.payload),
    { resolved_tickets: 3, releases: 1, median_resolution_minutes: 120, updated_at: /Z$/ },
    'no sign-in; every organization; demo tickets excluded',
  );
});

t.test('open-source sponsorship requests', async (t) => {
  const post = (payload: unknown, ip = '203.0.113.7') =>
    app.server.inject({
      method: 'POST',
      url: '/v1/public/oss-sponsorship-requests',
      payload: payload as object,
      remoteAddress: ip,
    });
  const body = {
    repository_url: 'https://github.com/acme/widget.git',
    name: 'Ada',
    email: 'ada@acme.test',
    project_description: 'A widget',
    monthly_issues: 40,
  };
  const res = await post(body);
  t.equal(res.statusCode, 201);
  t.match(JSON.parse(res.payload), {
    id: /^oss_/,
    repository_url: body.repository_url,
    status: 'received',
    created_at: /Z$/,
  });
  t.match(await app.db('oss_sponsorship_requests').where({ repository_key: 'github.com/acme/widget' }).first(), {
    name: 'Ada',
    email: 'ada@acme.test',
    monthly_issues: 40,
    status: 'received',
  });
  t.ok(
    await app.db('outbox').where({ type: 'public.oss_sponsorship_requested' }).first(),
    'staff are told through an event',
  );
  const again = await post({ ...body, repository_url: 'https://github.com/ACME/widget/' });
  t.equal(again.statusCode, 409);
  t.equal((JSON.parse(again.payload) as Answer<'POST', '/v1/public/oss-sponsorship-requests'>).code, 'request_pending');
  for (const bad of [
    'http://github.com/acme/x',
    'https://github.com/acme',
    'https://github.com/a/b/c',
    'not a url',
    'https://user:pw@github.com/a/b',
  ]) {
    const r = await post({ ...body, repository_url: bad });
    t.equal(r.statusCode, 400, bad);
  }
  t.equal((await post({ repository_url: 'https://github.com/acme/x' })).statusCode, 400, 'name and email are required');
  let limited = 0;
  for (let i = 0; i < 6; i++)
    if ((await post({ ...body, repository_url: `https://github.com/acme/r${i}` }, '198.51.100.9')).statusCode === 429)
      limited++;
  t.equal(limited, 1, 'five requests per hour per address');
});

/** The columns of a mail_messages row the tests read. */
interface MailRow {
  subject: string;
  text: string;
}

t.test(
  'staff review sponsorship requests: approval grants sponsored credits and the requester is told in their language',
  async (t) => {
    const inject = async <M extends Method, U extends string>(
      who: SignedUp | null,
      method: M,
      url: U,
      payload?: unknown,
    ) => {
      const res = await app.server.inject({
        method,
        url,
        payload: payload as object | undefined,
        remoteAddress: '192.0.2.44',
        ...(who ? who.auth : {}),
      });
      return { status: res.statusCode, body: JSON.parse(res.payload || '{}') as Answer<M, U> };
    };
    const staff = await signUp(app, { orgName: 'Patchwell staff' });
    await app.db('users').where({ id: staff.user.id }).update({ staff: true });
    const project = await signUp(app, { orgName: 'Gadget OSS' });
    const req = (
      await inject(null, 'POST', '/v1/public/oss-sponsorship-requests', {
        repository_url: 'https://github.com/gadget/core',
        name: 'Grace',
        email: 'grace@gadget.test',
        locale: 'it',
      })
    ).body;
    const other = (
      await inject(null, 'POST', '/v1/public/oss-sponsorship-requests', {
        repository_url: 'https://github.com/nope/thing',
        name: 'Nils',
        email: 'nils@nope.test',
      })
    ).body;

    t.equal((await inject(owner, 'GET', '/v1/analytics/oss-sponsorship-requests')).status, 403, 'staff only');
    t.equal(
      (
        await inject(owner, 'POST', `/v1/analytics/oss-sponsorship-requests/${req.id}/decision`, {
          decision: 'approve',
        })
      ).status,
      403,
    );
    const list = await inject(staff, 'GET', '/v1/analytics/oss-sponsorship-requests?status=received&limit=200');
    t.equal(list.status, 200);
    t.ok(
      list.body.items.some((r) => r.id === req.id && r.repository === 'github.com/gadget/core' && r.locale === 'it'),
    );

    t.match(
      await inject(staff, 'POST', `/v1/analytics/oss-sponsorship-requests/${req.id}/decision`, {
        decision: 'approve',
        organization_id: 'org_missing',
      }),
      { status: 422, body: { code: 'organization_not_found' } },
    );
    t.match(
      await inject(staff, 'POST', '/v1/analytics/oss-sponsorship-requests/oss_missing/decision', {
        decision: 'decline',
      }),
      { status: 404, body: { code: 'not_found' } },
    );
    const approved = await inject(staff, 'POST', `/v1/analytics/oss-sponsorship-requests/${req.id}/decision`, {
      decision: 'approve',
      organization_id: project.organization.id,
      fixes: 15,
      note: 'Benvenuti!',
    });
    t.equal(approved.status, 200);
    t.match(approved.body, {
      status: 'approved',
      organization_id: project.organization.id,
      fixes_granted: 15,
      decided_by: staff.user.email,
      decided_at: /Z$/,
      credits_expire_at: /Z$/,
      note: 'Benvenuti!',
    });
    t.match(await app.db('credit_balances').where({ org_id: project.organization.id, source: 'sponsored' }).first(), {
      granted_fixes: 15,
      fixes_remaining: 15,
      reference: `oss:${req.id}`,
    });
    t.match(
      await inject(staff, 'POST', `/v1/analytics/oss-sponsorship-requests/${req.id}/decision`, { decision: 'decline' }),
      { status: 409, body: { code: 'already_decided' } },
    );
    const mail = (await app
      .db('mail_messages')
      .where({ template: 'analytics.oss_sponsorship_approved', to_address: 'grace@gadget.test' })
      .first()) as MailRow;
    t.match(mail.subject, /è approvata/);
    t.match(mail.text, /15 interventi sponsorizzati/);
    t.equal(
      (await app.db('audit_entries').where({ action: 'oss_sponsorship.approved', actor_type: 'staff' })).length,
      2,
      "in the staff log and the sponsored organization's",
    );

    const declined = await inject(staff, 'POST', `/v1/analytics/oss-sponsorship-requests/${other.id}/decision`, {
      decision: 'decline',
    });
    t.match(declined.body, { status: 'declined', organization_id: null, fixes_granted: null });
    t.match(
      (
        (await app
          .db('mail_messages')
          .where({ template: 'analytics.oss_sponsorship_declined', to_address: 'nils@nope.test' })
          .first()) as MailRow
      ).text,
      /cannot sponsor github\.com\/nope\/thing/,
    );
    t.ok(
      (await inject(staff, 'GET', '/v1/analytics/oss-sponsorship-requests?status=declined')).body.items.some(
        (r) => r.id === other.id,
      ),
    );
  },
);
