import t from 'tap';
import type { Knex } from 'knex';
import type { Principal } from '../../../core/http/auth.js';
import { signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import type { JobQueue } from '../services/job-queue.js';
import {
  APPROVED_FIXES,
  call,
  createWorkspace,
  grantFixCredits,
  inject,
  receiveEmail,
  shopWithRepository,
  startFixesApp,
  waitFor,
  type AttemptRow,
  type CountRow,
  type JobRow,
} from './helpers.js';
import { BUG_REPORT, CART_FIX, REPO_FILES } from './fixtures/cart.js';

// One service: the managed agent (worker), a runner and an IDE agent (remote), billing on its defaults; held jobs are asked again after 300 ms.
const app = await startFixesApp(
  t,
  {},
  {
    plugins: {
      fixes: { enabled: true, options: { pollMs: 100, leaseMs: 2000, backoffMs: [50, 100], holdRecheckMs: 300 } },
      runner: { enabled: true },
      mcp: { enabled: true },
    },
  },
  {
    list: ['agent-builtin', 'agent-managed', 'agent-runner', 'agent-mcp'],
    options: { 'agent-managed': { command: CART_FIX } },
  },
);
const db = app.db as Knex;
const queue = app.container.resolve<JobQueue>('fixJobs');
const count = async (q: Knex.QueryBuilder) => Number(((await q.count('* as n').first()) as CountRow).n);
const principalOf = (who: SignedUp): Principal => ({
  kind: 'session',
  userId: who.user.id,
  orgId: who.organization.id,
  role: 'owner',
  staff: false,
  email: who.email,
  locale: 'en',
  workspaceIds: null,
});

/** A ticket of the workspace, created by the tickets service (its diagnosis job is queued by the loop). */
async function ticketIn(orgId: string, workspaceId: string, subject: string): Promise<string> {
  const tickets = app.container.resolve('ticketService');
  return (
    await db.transaction((trx) =>
      tickets.createTicket(trx, {
        orgId,
        workspaceId,
        origin: 'email',
        subject,
        customerEmail: 'c@example.com',
        message: { bodyText: subject },
      }),
    )
  ).id;
}

t.test(
  'plan none, no credit: the managed fix is held with the reason on the ticket until a credit arrives',
  async (t) => {
    const { owner, ws } = await shopWithRepository(app, APPROVED_FIXES, REPO_FILES, {
      orgName: 'No Plan Co',
      credits: 0,
    });
    const id = await receiveEmail(app, ws.inbound_address, BUG_REPORT);

    const held = await waitFor(
      async () =>
        (await db('fix_jobs').where({ ticket_id: id, kind: 'fix', error_code: 'plan_limit_reached' }).first()) as
          JobRow | undefined,
      'the held fix job',
    );
    t.match(held, {
      status: 'queued',
      attempts: 0,
      lease_owner: null,
      started_at: null,
      error_detail: /^fix_credits_exhausted: No fix credits are left/,
    });
    const ticket = (await call(app, owner, 'GET', `/v1/tickets/${id}`)).body;
    t.match(ticket, { state: 'fixing', needs_team_action: true }, "the ticket waits on the team's list");
    const events = (await call(app, owner, 'GET', `/v1/tickets/${id}/jobs/${held.id}/events`)).body.items;
    t.match(
      events,
      [
        {
          level: 'warn',
          type: 'held',
          message: /billing refused the fix: No fix credits are left/,
          data: { code: 'plan_limit_reached', reason: 'fix_credits_exhausted' },
        },
      ],
      "the reason is in the job's log",
    );
    t.equal(await count(db('billing_job_costs').where({ job_id: held.id })), 0, 'nothing reserved, nothing charged');

    // Billing is asked again every holdRecheckMs; the hold is logged and announced once.
    await new Promise((r) => setTimeout(r, 1200));
    t.ok(
      new Date(((await db('fix_jobs').where({ id: held.id }).first()) as JobRow).run_after).getTime() >
        Date.now() - 1000,
      'asked again since',
    );
    t.equal(await count(db('fix_job_events').where({ job_id: held.id, type: 'held' })), 1, 'one held event');
    t.equal(await count(db('outbox').where({ type: 'fixes.job_held' })), 1, 'one fixes.job_held');
    t.equal(await count(db('fix_attempts').where({ ticket_id: id }).whereNotNull('head_sha')), 0, 'no fix ran');

    // A top-up: the next check lets the job run, on that credit.
    await grantFixCredits(app, owner.organization.id, 1);
    const attempt = await waitFor(
      async () => {
        const a = (await db('fix_attempts').where({ ticket_id: id }).first()) as AttemptRow;
        return a.status === 'verified' ? a : null;
      },
      'the fix, once paid for',
      40_000,
    );
    t.ok(attempt.head_sha);
    t.match(await db('fix_jobs').where({ id: held.id }).first(), {
      status: 'succeeded',
      error_code: null,
      error_detail: null,
    });
    t.match(await db('billing_job_costs').where({ job_id: held.id }), [
      { kind: 'fix', funding: 'credit', consumed_fix: true, status: 'recorded' },
    ]);
    t.equal(
      Number(
        (
          (await db('credit_balances')
            .where({ org_id: owner.organization.id })
            .sum('fixes_remaining as n')
            .first()) as CountRow
        ).n,
      ),
      0,
      'the credit is spent',
    );
  },
);

t.test(
  'a runner that names a fix job billing refuses gets 402 plan_limit_reached; the job is held, not handed out',
  async (t) => {
    const owner = await signUp(app, { orgName: 'Runner Co' });
    const ws = await createWorkspace(app, owner, 'Desk', { execution_mode: 'runner', runner_transport: 'container' });
    const reg = await call(app, owner, 'POST', '/v1/runner/register', { workspace_id: ws.id, name: 'ci' });
    t.equal(reg.status, 201, reg.payload);
    const runner = { authorization: `Bearer ${reg.body.token!}` };
    const ticketId = await ticketIn(owner.organization.id, ws.id, 'Export is broken');
    const job = await db.transaction((trx) =>
      queue.enqueue(trx, {
        orgId: owner.organization.id,
        workspaceId: ws.id,
        ticketId,
        kind: 'fix',
        executor: 'agent-runner',
        mode: 'runner',
        payload: { branch: `patchwell/${ticketId}-1` },
        maxMinutes: 5,
      }),
    );

    const refused = await inject(app, 'POST', '/v1/runner/claim', runner, { job_id: job!.id });
    t.match(refused, {
      status: 402,
      body: {
        code: 'plan_limit_reached',
        details: { reason: 'fix_credits_exhausted', plan: 'none', credits_remaining: 0 },
      },
    });
    t.match(
      await db('fix_jobs').where({ id: job!.id }).first(),
      { status: 'queued', attempts: 0, error_code: 'plan_limit_reached' },
      'held with the reason',
    );
    t.equal(await count(db('runner_job_tokens').where({ job_id: job!.id })), 0, 'no token was handed out');
    const next = await inject(app, 'POST', '/v1/runner/claim', runner, {});
    t.not(next.body.job_id, job!.id, 'an open claim never hands out the held fix');

    await grantFixCredits(app, owner.organization.id, 1);
    const claimed = await inject(app, 'POST', '/v1/runner/claim', runner, { job_id: job!.id });
    t.match(
      claimed,
      { status: 200, body: { job_id: job!.id, kind: 'fix', job_token: /^pw_job_/ } },
      'with a credit the runner gets it',
    );
    t.match(
      await db('billing_job_costs').where({ job_id: job!.id }),
      [{ funding: 'credit', status: 'reserved' }],
      'its credit is reserved',
    );
  },
);

t.test("an IDE agent's submission asks billing too: past the spend cap, 402 and nothing is recorded", async (t) => {
  const owner = await signUp(app, { orgName: 'Capped Co' });
  const ws = await createWorkspace(app, owner, 'Ide', { execution_mode: 'mcp' });
  const ticketId = await ticketIn(owner.organization.id, ws.id, 'How do I export?');
  const job = await waitFor(
    async () => (await db('fix_jobs').where({ ticket_id: ticketId, kind: 'diagnose' }).first()) as JobRow | undefined,
    'the diagnosis job for the IDE agent',
  );
  t.equal(job.executor, 'agent-mcp');
  await db('organizations').where({ id: owner.organization.id }).update({ spend_cap_usd: 0 });

  const mcp = app.container.resolve('mcpService');
  const input = {
    ticket_id: ticketId,
    category: 'usage' as const,
    confidence: 0.8,
    root_cause_md: 'A usage question.',
    references: [],
  };
  const refused = await mcp.submitDiagnosis(principalOf(owner), input).then(
    () => null,
    (err: unknown) => err,
  );
  t.match(
    refused,
    { output: { statusCode: 402 }, data: { code: 'plan_limit_reached', details: { reason: 'spend_cap' } } },
    '402 plan_limit_reached',
  );
  t.match(await db('fix_jobs').where({ id: job.id }).first(), {
    status: 'queued',
    error_code: 'plan_limit_reached',
    error_detail: /^spend_cap: /,
  });
  t.equal(await count(db('fix_diagnoses').where({ ticket_id: ticketId })), 0, 'the result was not taken');

  await db('organizations').where({ id: owner.organization.id }).update({ spend_cap_usd: null });
  t.match(
    await mcp.submitDiagnosis(principalOf(owner), input),
    { job_id: job.id, status: 'succeeded' },
    'under the cap it is taken',
  );
  t.equal(await count(db('fix_diagnoses').where({ ticket_id: ticketId })), 1);
});
