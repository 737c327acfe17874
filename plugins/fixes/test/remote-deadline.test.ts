// Where a job runs decides who takes it: the worker never claims a remote executor's job, and one
// nobody claims in time fails `not_claimed`; an in-process managed agent that overspends the
// workspace's agent_config.max_cost_usd is stopped. One app for the file.
import t from 'tap';
import type { Knex } from 'knex';
import { signUp } from '../../../test/helpers/accounts.js';
import type { JobQueue } from '../services/job-queue.js';
import type { JobWorker } from '../services/job-worker.js';
import {
  call,
  createWorkspace,
  diagnosisJob,
  jobEvents,
  receiveEmail,
  startFixesApp,
  waitFor,
  type JobRow,
  type TicketRow,
  APPROVED_FIXES,
  shopWithRepository,
} from './helpers.js';
import { REPO_FILES } from './fixtures/cart.js';

// The "agent": says its budget, reports a spend of $0.90, then would work for a long time and fix the cart.
const AGENT = `echo "budget $PATCHWELL_MAX_COST_USD"; echo '{"cost_usd": 0.9}' >> "$PATCHWELL_COST_FILE"; sleep 20; sed -i 's/sum + i.price,/sum + i.price * i.qty,/' cart.js`;

const app = await startFixesApp(
  t,
  { remoteClaimTimeoutMs: 300 },
  {},
  {
    list: ['agent-builtin', 'agent-managed', 'agent-runner'],
    options: { 'agent-managed': { command: AGENT, timeoutMs: 30_000 } },
  },
);
const db = app.db as Knex;
const queue = app.container.resolve<JobQueue>('fixJobs');
const worker = app.container.resolve<JobWorker>('fixWorker');

t.test('a runner job nobody claims waits queued, then fails not_claimed and the ticket goes to the team', async (t) => {
  const owner = await signUp(app, { orgName: 'Remote Co' });
  const ws = await createWorkspace(app, owner, 'Runner shop', { execution_mode: 'runner' });
  const ticketId = await receiveEmail(app, ws.inbound_address, {
    subject: 'Export is broken',
    body: 'The export button throws an error since yesterday.',
  });
  const job = await diagnosisJob(db, ticketId);
  t.match(job, { kind: 'diagnose', executor: 'agent-runner', mode: 'runner', status: 'queued' });

  worker.kick();
  await worker.idle();
  t.match(
    await db('fix_jobs').where({ id: job.id }).first(),
    { status: 'queued', attempts: 0, lease_owner: null },
    'the in-process worker does not claim a remote job',
  );
  t.equal(await queue.expireUnclaimed(['agent-runner'], 3_600_000), 0, 'within its time it keeps waiting');
  t.equal(((await db('fix_jobs').where({ id: job.id }).first()) as JobRow).status, 'queued');

  // The scheduled sweep (fixes.unclaimed-remote-jobs) once the 300 ms of remoteClaimTimeoutMs have passed.
  const failed = await waitFor(async () => {
    await app.scheduler.runNow('fixes.unclaimed-remote-jobs');
    const j = (await db('fix_jobs').where({ id: job.id }).first()) as JobRow;
    return j.status === 'failed' ? j : null;
  }, 'the unclaimed job to fail');
  t.match(failed, {
    error_code: 'not_claimed',
    error_detail: /no runner took the job within/,
    attempts: 0,
    started_at: null,
    finished_at: Date,
  });
  t.match(failed.result, { status: 'failed', cost_usd: 0, error: { code: 'not_claimed' } });
  const events = await jobEvents(app, owner, ticketId, job, 50);
  t.ok(
    events.some((e) => e.type === 'not_claimed' && e.level === 'warn'),
    'the job log says why',
  );
  t.ok(
    events.some((e) => e.type === 'result' && e.level === 'error'),
    'and records the failed result',
  );
  const ticket = await waitFor(async () => {
    const r = await call(app, owner, 'GET', `/v1/tickets/${ticketId}`);
    return r.body.state === 'escalated' ? r.body : null;
  }, 'the escalated ticket');
  t.match(ticket, { state: 'escalated', needs_team_action: true }, 'visible on the ticket like any failed job');
  t.match(((await db('tickets').where({ id: ticketId }).first()) as TicketRow).escalation_reason, /not_claimed/);
  t.ok(
    await db('outbox').where({ type: 'fixes.job_finished' }).whereRaw(`payload->>'job_id' = ?`, [job.id]).first(),
    'fixes.job_finished as for any end',
  );
  t.equal(await queue.expireUnclaimed(['agent-runner'], 0), 0, 'an ended job is not swept again');
});

t.test(
  "a managed agent that spends past the workspace's max_cost_usd is stopped: cost_limit_reached with its spend",
  async (t) => {
    const { owner, ws } = await shopWithRepository(
      app,
      { ...APPROVED_FIXES, execution_mode: 'managed', agent_config: { max_cost_usd: 0.5 } },
      REPO_FILES,
      { orgName: 'Budget Co' },
    );
    const id = await receiveEmail(app, ws.inbound_address, {
      subject: 'Cart total is wrong',
      body: 'The cart total is wrong since the last update: cartTotal ignores the quantity. Error 500 at checkout.',
    });
    const job = await waitFor(
      async () => {
        const j = (await db('fix_jobs').where({ ticket_id: id, kind: 'fix' }).first()) as JobRow | undefined;
        return j && ['succeeded', 'failed', 'cancelled', 'dead'].includes(j.status) ? j : null;
      },
      'the fix job to end',
      40_000,
    );
    t.match(job, { status: 'failed', executor: 'agent-managed', error_code: 'cost_limit_reached', attempts: 1 });
    t.equal(Number(job.cost_usd), 0.9, 'the job costs what the agent reported');
    const events = await jobEvents(app, owner, id, job);
    t.ok(
      events.some((e) => e.type === 'agent_output' && e.message === 'budget 0.5'),
      "the agent was told the workspace's limit (agent_config.max_cost_usd)",
    );
    t.ok(
      events.some((e) => e.type === 'cost_limit'),
      'the overspend is in the log',
    );
    t.ok(
      events.some((e) => e.type === 'sandbox'),
      'so is the sandbox it ran in',
    );
    t.match(await db('fix_attempts').where({ ticket_id: id }).first(), { status: 'failed' });
    const ticket = await waitFor(async () => {
      const r = await call(app, owner, 'GET', `/v1/tickets/${id}`);
      return r.body.needs_team_action ? r.body : null;
    }, 'the ticket back with the team');
    t.ok(ticket.needs_team_action);
    t.match(((await db('tickets').where({ id }).first()) as TicketRow).escalation_reason, /cost_limit_reached/);
  },
);
