import t from 'tap';
import type { Knex } from 'knex';
import { addMember, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import type { Schema } from '../../../test/helpers/api-types.js';
import type { App } from '../../../core/kernel/app.js';
import {
  bearer,
  call,
  createWorkspace,
  LEASE_MS,
  receiveEmail,
  sleep,
  startRunnerApp,
  uid,
  waitFor,
  type JobEventRow,
  type JobRow,
} from './helpers.js';

const app: App = await startRunnerApp(t);
const db = app.db as Knex;

/** An organization with a runner workspace (no repository), a registered runner and `n` queued diagnosis jobs. */
async function setup(
  n: number,
  register: Record<string, unknown> = {},
): Promise<{ owner: SignedUp; ws: Schema<'Workspace'>; runner: Schema<'Runner'>; jobs: string[] }> {
  const owner = await signUp(app, { orgName: `Org ${uid()}` });
  const ws = await createWorkspace(app, owner, 'Desk', { runner_transport: 'container' });
  const reg = await call(app, owner, 'POST', '/v1/runner/register', { workspace_id: ws.id, ...register });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
  const jobs: string[] = [];
  for (let i = 0; i < n; i++) {
    const ticketId = await receiveEmail(app, ws.inbound_address, {
      subject: `Question ${i}`,
      body: `How do I export my data? (${i})`,
    });
    const job = await waitFor(
      async () => db('fix_jobs').where({ ticket_id: ticketId }).first<JobRow | undefined>(),
      'the diagnosis job',
    );
    jobs.push(job.id);
  }
  return { owner, ws, runner: reg.body, jobs };
}

/** A claim with the runner's token (a revoked runner has none): the job and its tokens; throws unless 200. */
const claim = async (runnerToken: string | null, jobId?: string) => {
  const res = await bearer(app, runnerToken, 'POST', '/v1/runner/claim', jobId ? { job_id: jobId } : undefined);
  if (res.status !== 200) throw new Error(`claim: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

t.test('a job token works on its own job only: other job, other organization, expired, revoked', async (t) => {
  const a = await setup(2);
  const b = await setup(1);
  const a1 = await claim(a.runner.token, a.jobs[0]);
  const a2 = await claim(a.runner.token, a.jobs[1]);
  const b1 = await claim(b.runner.token);
  t.equal(b1.job_id, b.jobs[0], "a runner gets its own workspace's job");
  t.equal(
    (await bearer(app, b.runner.token, 'POST', '/v1/runner/claim', { job_id: a.jobs[0] })).status,
    404,
    "another organization's job cannot be claimed",
  );

  t.equal((await bearer(app, a1.job_token, 'GET', `/v1/jobs/${a1.job_id}`)).status, 200);
  t.match(
    await bearer(app, a1.job_token, 'GET', `/v1/jobs/${a2.job_id}`),
    { status: 404, body: { code: 'not_found' } },
    'job A token on job B',
  );
  t.equal((await bearer(app, a1.job_token, 'POST', `/v1/jobs/${a2.job_id}/heartbeat`)).status, 404);
  t.equal(
    (await bearer(app, a1.job_token, 'POST', `/v1/jobs/${b1.job_id}/result`, { status: 'failed', cost_usd: 0 })).status,
    404,
    "another organization's job",
  );
  t.equal((await bearer(app, b1.job_token, 'GET', `/v1/jobs/${a1.job_id}`)).status, 404);
  t.equal((await call(app, a.owner, 'GET', `/v1/jobs/${a1.job_id}`)).status, 401, 'a user session is no job token');
  t.match(await bearer(app, 'pw_job_not-a-real-token-at-all-0123456789abcdefghij', 'GET', `/v1/jobs/${a1.job_id}`), {
    status: 401,
    body: { code: 'unauthenticated' },
  });

  // Renewal: fresh tokens; the old ones keep working until they expire.
  t.equal(
    (await bearer(app, a1.agent_token, 'POST', `/v1/jobs/${a1.job_id}/token`)).status,
    403,
    'the agent token does not renew',
  );
  const renewed = await bearer(app, a1.job_token, 'POST', `/v1/jobs/${a1.job_id}/token`);
  t.match(renewed, { status: 200, body: { job_token: /^pw_job_/, agent_token: /^pw_agent_/ } });
  t.not(renewed.body.job_token, a1.job_token);
  t.equal(
    (await bearer(app, a1.job_token, 'POST', `/v1/jobs/${a1.job_id}/heartbeat`)).status,
    200,
    'the old token still works',
  );
  t.equal((await bearer(app, renewed.body.job_token, 'POST', `/v1/jobs/${a1.job_id}/heartbeat`)).status, 200);

  await db('runner_job_tokens')
    .where({ job_id: a1.job_id })
    .update({ expires_at: new Date(Date.now() - 1000) });
  t.match(
    await bearer(app, a1.job_token, 'GET', `/v1/jobs/${a1.job_id}`),
    { status: 401, body: { code: 'unauthenticated', message: /expired/ } },
    'expired: 401',
  );
  t.equal((await bearer(app, renewed.body.job_token, 'POST', `/v1/jobs/${a1.job_id}/heartbeat`)).status, 401);
  const stored = (await db('runner_job_tokens').where({ job_id: a2.job_id })) as Array<{ token_hash: string }>;
  t.ok(
    stored.length === 2 && stored.every((r) => r.token_hash !== a2.job_token && r.token_hash !== a2.agent_token),
    'job tokens are kept hashed',
  );

  // Rotation and revocation of the runner.
  const rotated = await call(app, a.owner, 'POST', '/v1/runner/register', { workspace_id: a.ws.id });
  t.match(rotated, { status: 200, body: { id: a.runner.id, token: /^pw_runner_/, rotated_at: String } });
  t.equal(
    (await bearer(app, a.runner.token, 'POST', '/v1/runner/claim')).status,
    401,
    'the old runner token stops at once',
  );
  const withNew = await bearer(app, rotated.body.token, 'POST', '/v1/runner/claim');
  t.ok(
    [200, 204].includes(withNew.status),
    `the new one works (${withNew.status}: a job whose lease ran out, or nothing)`,
  );
  const revoked = await call(app, a.owner, 'POST', '/v1/runner/register', { workspace_id: a.ws.id, revoke: true });
  t.match(revoked, { status: 200, body: { token: null, revoked_at: String } });
  t.equal((await bearer(app, rotated.body.token, 'POST', '/v1/runner/claim')).status, 401, 'revoked');
  t.equal(
    (await bearer(app, a2.job_token, 'POST', `/v1/jobs/${a2.job_id}/heartbeat`)).status,
    401,
    "a revoked runner's job tokens stop too",
  );
  t.ok(
    await db('audit_entries').where({ action: 'runner.token_rotated', target_id: a.runner.id }).first(),
    'rotation audited',
  );
  t.ok(
    await db('audit_entries').where({ action: 'runner.revoked', target_id: a.runner.id }).first(),
    'revocation audited',
  );
  t.equal(
    (await call(app, b.owner, 'POST', '/v1/runner/register', { workspace_id: a.ws.id })).status,
    404,
    "another organization's workspace",
  );
  const reviewer = await addMember(app, a.owner, { role: 'reviewer' });
  t.equal(
    (await call(app, reviewer, 'POST', '/v1/runner/register', { workspace_id: a.ws.id })).status,
    403,
    'owners and admins only',
  );
});

t.test('the agent login is locked to one job until it stores the refreshed one', async (t) => {
  const { runner, jobs } = await setup(3, { agent_login: '{"refresh_token":"login-v1-abcdef"}' });
  const box = await db('runner_agent_credentials')
    .where({ workspace_id: runner.workspace_id })
    .first<{ secret_box: string }>();
  t.notMatch(box.secret_box, /login-v1/, 'stored encrypted');
  const j1 = await claim(runner.token, jobs[0]);
  const j2 = await claim(runner.token, jobs[1]);
  t.match((await bearer(app, j1.job_token, 'GET', `/v1/jobs/${j1.job_id}`)).body, { agent_credential: true });
  t.equal(
    (await bearer(app, j1.agent_token, 'GET', `/v1/jobs/${j1.job_id}/agent-credential`)).status,
    403,
    'the agent token does not read it',
  );
  const got = await bearer(app, j1.job_token, 'GET', `/v1/jobs/${j1.job_id}/agent-credential`);
  t.match(got, {
    status: 200,
    body: { kind: 'agent_login_file', credential: '{"refresh_token":"login-v1-abcdef"}', locked_by_job_id: j1.job_id },
  });
  t.match(await bearer(app, j2.job_token, 'GET', `/v1/jobs/${j2.job_id}/agent-credential`), {
    status: 409,
    body: { code: 'credential_locked', details: { job_id: j1.job_id } },
  });
  t.match(
    await bearer(app, j2.job_token, 'PUT', `/v1/jobs/${j2.job_id}/agent-credential`, { credential: 'stolen-login' }),
    { status: 409, body: { code: 'credential_not_locked' } },
  );
  const put = await bearer(app, j1.job_token, 'PUT', `/v1/jobs/${j1.job_id}/agent-credential`, {
    credential: '{"refresh_token":"login-v2-ghijkl"}',
  });
  t.match(put, { status: 200, body: { credential: null, last4: 'kl"}', locked_by_job_id: null, rotated_at: String } });
  const next = await bearer(app, j2.job_token, 'GET', `/v1/jobs/${j2.job_id}/agent-credential`);
  t.match(
    next,
    { status: 200, body: { credential: '{"refresh_token":"login-v2-ghijkl"}', locked_by_job_id: j2.job_id } },
    'the next job gets the refreshed login',
  );

  // A job that ends without storing it releases the lock by ending.
  t.equal(
    (
      await bearer(app, j2.job_token, 'POST', `/v1/jobs/${j2.job_id}/result`, {
        status: 'failed',
        cost_usd: 0,
        error: { code: 'agent_failed', detail: 'exit 1' },
      })
    ).status,
    200,
  );
  const j3 = await claim(runner.token, jobs[2]);
  t.match(await bearer(app, j3.job_token, 'GET', `/v1/jobs/${j3.job_id}/agent-credential`), {
    status: 200,
    body: { locked_by_job_id: j3.job_id },
  });
});

t.test('events are masked again before they are stored', async (t) => {
  const { owner, runner, jobs } = await setup(1);
  const j = await claim(runner.token);
  const res = await bearer(app, j.agent_token, 'POST', `/v1/jobs/${j.job_id}/events`, {
    events: [
      {
        level: 'warn',
        type: 'agent_output',
        message: 'mail jane.doe@example.com about it',
        data: { env: 'API_TOKEN=abcd1234efgh5678' },
      },
      { level: 'info', type: 'agent_output', message: `my token is ${j.agent_token} and ${j.job_token}` },
      { level: 'info', type: 'agent_output', message: 'curl -H "Authorization: Bearer sk-live-0123456789abcdef0123"' },
    ],
  });
  t.match(res, { status: 200, body: { accepted: 3 } });
  t.match(await bearer(app, j.agent_token, 'POST', `/v1/jobs/${j.job_id}/events`, { type: 'BAD TYPE', message: 'x' }), {
    status: 400,
    body: { code: 'invalid_request' },
  });
  const rows = (await db('fix_job_events')
    .where({ job_id: j.job_id, type: 'agent_output' })
    .orderBy('seq')) as JobEventRow[];
  t.equal(rows.length, 3);
  t.equal(rows[0].message, 'mail j***@e***.com about it');
  t.equal(rows[0].data.env, 'API_TOKEN=***');
  t.equal(rows[1].message, 'my token is *** and ***');
  t.notMatch(rows[2].message, /sk-live/);
  const ticket = await db('fix_jobs').where({ id: j.job_id }).first<JobRow>();
  const listed = await call(app, owner, 'GET', `/v1/tickets/${ticket.ticket_id}/jobs/${j.job_id}/events?limit=200`);
  t.ok(
    listed.body.items.some((e) => e.message === 'my token is *** and ***'),
    'the team reads the masked log',
  );
  t.equal(jobs.length, 1);
});

t.test('a cancelled job is reported by the heartbeat and ends cancelled', async (t) => {
  const { runner } = await setup(1);
  const j = await claim(runner.token);
  t.match(await bearer(app, j.job_token, 'POST', `/v1/jobs/${j.job_id}/heartbeat`), {
    status: 200,
    body: { cancelled: false },
  });
  const row = await db('fix_jobs').where({ id: j.job_id }).first<JobRow>();
  await db.transaction((trx) =>
    (app.container.resolve('fixJobs') as { cancel(trx: Knex, job: JobRow, reason: string): Promise<void> }).cancel(
      trx,
      row,
      'the ticket was closed',
    ),
  );
  t.match(await bearer(app, j.agent_token, 'POST', `/v1/jobs/${j.job_id}/heartbeat`), {
    status: 200,
    body: { cancelled: true, status: 'running' },
  });
  t.match(
    await bearer(app, j.job_token, 'POST', `/v1/jobs/${j.job_id}/result`, { status: 'cancelled', cost_usd: 0.01 }),
    { status: 200, body: { status: 'cancelled', next_job_id: null } },
  );
  t.equal((await db('fix_jobs').where({ id: j.job_id }).first<JobRow>()).status, 'cancelled');
  t.match(await bearer(app, j.job_token, 'POST', `/v1/jobs/${j.job_id}/heartbeat`), {
    status: 200,
    body: { cancelled: true, status: 'cancelled' },
  });
  t.match(await bearer(app, j.job_token, 'POST', `/v1/jobs/${j.job_id}/token`), {
    status: 409,
    body: { code: 'job_not_running' },
  });
});

t.test('a lease that runs out returns the job to the queue for the next claim', async (t) => {
  const { owner, ws, runner, jobs } = await setup(1);
  const second = await call(app, owner, 'POST', '/v1/runner/register', { workspace_id: ws.id, name: 'spare' });
  const first = await claim(runner.token);
  t.equal(first.attempt, 1);
  t.equal(
    (await bearer(app, second.body.token, 'POST', '/v1/runner/claim')).status,
    204,
    'a held lease is not handed out twice',
  );
  await sleep(LEASE_MS + 300);
  const again = await claim(second.body.token);
  t.match(again, { job_id: jobs[0], attempt: 2 });
  t.ok(
    await db('fix_job_events').where({ job_id: jobs[0], type: 'lease_expired' }).first(),
    'lease_expired in the log',
  );
  t.equal(
    (await bearer(app, first.job_token, 'POST', `/v1/jobs/${first.job_id}/heartbeat`)).status,
    401,
    "the first claim's tokens are revoked",
  );
  t.equal(
    (await bearer(app, first.job_token, 'POST', `/v1/jobs/${first.job_id}/result`, { status: 'failed', cost_usd: 0 }))
      .status,
    401,
  );
  const dx = {
    status: 'succeeded',
    cost_usd: 0,
    diagnosis: { category: 'usage', confidence: 0.4, root_cause_md: 'A usage question.', references: [] },
  };
  t.match(await bearer(app, again.job_token, 'POST', `/v1/jobs/${again.job_id}/result`, dx), {
    status: 200,
    body: { status: 'succeeded' },
  });
  const tk = await db('fix_jobs').where({ id: again.job_id }).first<JobRow>();
  t.match(
    (await call(app, owner, 'GET', `/v1/tickets/${tk.ticket_id}`)).body,
    { state: 'escalated' },
    'the loop goes on: nothing drafted, the team gets it',
  );
  t.ok(await db('fix_diagnoses').where({ job_id: again.job_id, outcome: 'escalated' }).first());
});

t.test('archiving the workspace revokes its runners and their job tokens', async (t) => {
  const { owner, ws, runner } = await setup(1);
  const j = await claim(runner.token);
  t.equal((await call(app, owner, 'POST', `/v1/workspaces/${ws.id}/archive`)).status, 200);
  await waitFor(
    async () => (await bearer(app, runner.token, 'POST', '/v1/runner/claim')).status === 401,
    'the runner token to stop',
  );
  t.equal(
    (await bearer(app, j.job_token, 'POST', `/v1/jobs/${j.job_id}/heartbeat`)).status,
    401,
    'its job tokens stop too',
  );
  t.match(await db('audit_entries').where({ action: 'runner.revoked', target_id: runner.id }).first(), {
    actor_type: 'system',
  });
});
