// The demo on the offline defaults: a demo ticket diagnosed by the fix loop (agent-builtin),
// once per organization, retry only when stopped without a diagnosis, the workspace demo, and
// the staff metrics computed from the stored rows.
import t from 'tap';
import { signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { SHOP_FILES, call, connectRepository, createWorkspace, startOnboardingApp, waitFor } from './helpers.js';

const app = await startOnboardingApp(t, { fixes: true });

/** The columns of a stored demo run (onboarding_demo_runs) the metrics are checked against. */
interface DemoRunRow {
  org_id: string;
  status: string;
  case_kind: string | null;
  first_diagnosis_at: Date | null;
}

async function wizardWithRepository(owner: SignedUp, name: string, files: Record<string, string>) {
  const ws = await createWorkspace(app, owner, name);
  await call(app, owner, 'POST', '/v1/onboarding/workspace', { workspace_id: ws.id });
  const repo = await connectRepository(app, owner, ws.id, name.toLowerCase(), files);
  const step = await call(app, owner, 'POST', '/v1/onboarding/repository', { repository_id: repo.id });
  if (step.status !== 200) throw new Error(`repository step: ${step.status} ${JSON.stringify(step.body)}`);
  return { ws, repo };
}

const finished = (owner: SignedUp) =>
  waitFor(
    async () => {
      const r = await call(app, owner, 'GET', '/v1/onboarding/demo');
      return r.body.done ? r.body : null;
    },
    'the demo to finish',
    30_000,
  );

let demoOwner: SignedUp;

t.test('consent starts the demo, and the fix loop diagnoses the demo ticket', async (t) => {
  const owner = (demoOwner = await signUp(app, { locale: 'it' }));
  await wizardWithRepository(owner, 'Shop', SHOP_FILES);
  const before = await call(app, owner, 'GET', '/v1/onboarding');
  t.equal(before.body.demo.consent_required, true);
  t.equal(before.body.demo.consent_reason, 'not_chosen');
  t.equal(before.body.demo.can_start, false);
  t.equal(before.body.demo.start_blocker, 'consent_required');
  t.equal(before.body.demo.run, null);
  const refusedStart = await call(app, owner, 'POST', '/v1/onboarding/demo');
  t.equal(refusedStart.status, 409);
  t.equal(refusedStart.body.code, 'consent_required');

  const consent = await call(app, owner, 'POST', '/v1/onboarding/demo/consent', { consent: 'granted' });
  t.equal(consent.status, 200, JSON.stringify(consent.body));
  t.equal(consent.body.demo.consent, 'granted');
  t.equal(consent.body.demo.used, true);
  const run = consent.body.demo.run;
  t.ok(run, 'granted started the demo');
  if (!run) throw new Error('no demo run');
  t.equal(run.mode, 'managed');
  t.ok(run.case_kind === 'plausible_defect' || run.case_kind === 'readme_question', `case ${run.case_kind}`);
  t.equal(run.email?.from_address, 'giulia.rossi@example.com', 'the customer writes in the user’s language');
  t.ok(run.ticket?.id);

  const done = await finished(owner);
  t.equal(done.status, 'completed', JSON.stringify(done));
  t.equal(done.phase, 'done');
  t.ok(done.outcome === 'answer' || done.outcome === 'escalated');
  t.ok(done.first_diagnosis_at, 'first diagnosis recorded');
  const { diagnosis, ticket: demoTicket } = done;
  if (!diagnosis || !demoTicket)
    throw new Error(`a completed demo without diagnosis or ticket: ${JSON.stringify(done)}`);
  t.ok(diagnosis.category);
  t.type(diagnosis.confidence, 'number');
  t.ok(diagnosis.root_cause_md.length > 0);
  t.equal(done.cost_usd, 0, 'the builtin agent costs nothing');
  t.equal(done.cap_usd, 2);
  t.equal(done.retry.allowed, false);
  t.equal(done.retry.reason, 'diagnosed');
  t.match(done.status_page_url, /\/status\//);
  const ticket = (await app.db('tickets').where({ id: demoTicket.id }).first()) as { is_demo: boolean };
  t.equal(ticket.is_demo, true, 'a demo ticket through the tickets service');
  const job = (await app.db('fix_jobs').where({ ticket_id: demoTicket.id, kind: 'diagnose' }).first()) as {
    status: string;
  };
  t.equal(job.status, 'succeeded', 'diagnosed by the fix loop');
  const org = (await app.db('organizations').where({ id: owner.organization.id }).first()) as {
    demo_used_at: Date | null;
  };
  t.ok(org.demo_used_at, 'Organization.demo_used_at set');

  const again = await call(app, owner, 'POST', '/v1/onboarding/demo');
  t.equal(again.status, 409, 'once per organization');
  t.equal(again.body.code, 'demo_already_used');
  const retry = await call(app, owner, 'POST', '/v1/onboarding/demo/retry');
  t.equal(retry.status, 409);
  t.equal(retry.body.code, 'retry_not_allowed');
  t.equal(retry.body.details?.reason, 'diagnosed');
});

t.test('the workspace demo runs through the workspace’s own agent without consent', async (t) => {
  const owner = demoOwner;
  const noAgent = await call(app, owner, 'POST', '/v1/onboarding/demo/workspace');
  t.equal(noAgent.status, 409);
  t.equal(noAgent.body.code, 'agent_required');
  const agent = await call(app, owner, 'POST', '/v1/onboarding/agent', {
    answer: 'no_agent',
    mode: 'managed',
    agent: 'builtin',
    auth: 'api-key',
  });
  t.equal(agent.status, 200, JSON.stringify(agent.body));
  const started = await call(app, owner, 'POST', '/v1/onboarding/demo/workspace');
  t.equal(started.status, 202, JSON.stringify(started.body));
  t.equal(started.body.demo.run?.mode, 'workspace');
  t.equal(started.body.demo.run?.cap_usd, 0);
  const done = await finished(owner);
  t.equal(done.mode, 'workspace');
  t.equal(done.status, 'completed');
  t.ok(done.diagnosis);
});

t.test('a demo that stopped without a diagnosis is retried, within its attempts', async (t) => {
  const owner = await signUp(app);
  await wizardWithRepository(owner, 'Data', { 'data/values.csv': 'a,b\n1,2\n' });
  const consent = await call(app, owner, 'POST', '/v1/onboarding/demo/consent', { consent: 'granted' });
  t.equal(consent.status, 200);
  const run = consent.body.demo.run;
  t.equal(run?.status, 'failed');
  t.equal(run?.error?.code, 'no_case');
  t.same(run?.retry, { allowed: true, reason: null });
  const r1 = await call(app, owner, 'POST', '/v1/onboarding/demo/retry');
  t.equal(r1.status, 202, JSON.stringify(r1.body));
  t.equal(r1.body.attempts, 2);
  const r2 = await call(app, owner, 'POST', '/v1/onboarding/demo/retry');
  t.equal(r2.body.attempts, 3);
  t.same(r2.body.retry, { allowed: false, reason: 'max_attempts' });
  const r3 = await call(app, owner, 'POST', '/v1/onboarding/demo/retry');
  t.equal(r3.status, 409);
  t.equal(r3.body.details?.reason, 'max_attempts');
  const audit = await app
    .db('audit_entries')
    .where({ org_id: owner.organization.id, action: 'onboarding.demo_retried' });
  t.equal(audit.length, 2);
});

t.test('staff metrics come from the stored rows', async (t) => {
  const staff = await signUp(app, { orgName: 'Patchwell staff' });
  await app.db('users').where({ id: staff.user.id }).update({ staff: true });
  const res = await call(app, staff, 'GET', '/v1/onboarding/metrics');
  t.equal(res.status, 200, JSON.stringify(res.body));
  const m = res.body;
  const orgs = await app.db('organizations').count({ n: '*' }).first();
  t.equal(m.signups, Number(orgs!.n));
  const runs = (await app.db('onboarding_demo_runs').where({ mode: 'managed' })) as DemoRunRow[];
  t.equal(m.demos_started, runs.length);
  t.equal(m.demos_completed, runs.filter((r) => r.status === 'completed').length);
  t.equal(m.demos_failed, runs.filter((r) => r.status === 'failed').length);
  const diagnosed = runs.filter((r) => r.first_diagnosis_at);
  t.equal(m.time_to_first_diagnosis.count, diagnosed.length);
  const mine = m.recent.find((r) => r.org_id === demoOwner.organization.id);
  const org = (await app.db('organizations').where({ id: demoOwner.organization.id }).first()) as { created_at: Date };
  const diagnosedAt = runs.find((r) => r.org_id === demoOwner.organization.id)?.first_diagnosis_at;
  if (!diagnosedAt) throw new Error('the first demo was not diagnosed');
  const secs = Math.round((new Date(diagnosedAt).getTime() - new Date(org.created_at).getTime()) / 1000);
  t.equal(mine?.seconds_to_first_diagnosis, secs);
  t.equal(m.time_to_first_diagnosis.median_s, secs, 'one diagnosed demo: its time is the median');
  t.equal(m.time_to_first_diagnosis.p90_s, secs);
  t.equal(m.time_to_first_diagnosis.under_target_ratio, secs <= m.target_s ? 1 : 0);
  t.equal(m.target_s, 600);
  t.same(m.by_case.map((c) => c.kind).sort(), [...new Set(runs.map((r) => r.case_kind).filter(Boolean))].sort());
  t.equal(m.cost.total_usd, 0);
  const past = await call(app, staff, 'GET', '/v1/onboarding/metrics?from=2020-01-01&to=2020-01-31');
  t.equal(past.body.signups, 0);
  t.equal(past.body.demos_started, 0);
  t.equal(past.body.time_to_first_diagnosis.median_s, null);
});
