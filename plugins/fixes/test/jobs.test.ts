import t from 'tap';
import type { Knex } from 'knex';
import { AbstractAgentExecutor, adapterModule, type AgentJob, type JobIO } from '../../../core/contracts/index.js';
import { signUp } from '../../../test/helpers/accounts.js';
import type { FixJob } from '../models/index.js';
import type { JobPayloads } from '../services/job-payload.js';
import type { JobQueue } from '../services/job-queue.js';
import { JobWorker } from '../services/job-worker.js';
import { mask } from '../services/mask.js';
import { allPages } from '../../../test/helpers/call.js';
import { call, createWorkspace, grantFixCredits, startFixesApp, waitFor } from './helpers.js';

/** An executor the tests drive: each job waits for `release(jobId)` before it completes. */
class ScriptedExecutor extends AbstractAgentExecutor {
  static override identifier = 'agent-test';
  readonly mode = 'managed' as const;
  readonly capabilities = { diagnose: true, fix: true };
  readonly gates = new Map<string, () => void>();
  readonly started: string[] = [];
  readonly waiting: string[] = [];
  completions = 0;
  crash = false;
  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    this.started.push(job.id);
    if (this.crash) throw new Error('agent crashed');
    await io.emit({
      level: 'info',
      type: 'output',
      message: 'token ghp_0123456789abcdefghijABCDEFGHIJ for ada@example.com',
    });
    await new Promise<void>((resolve) => {
      this.gates.set(job.id, resolve);
      this.waiting.push(job.id);
    });
    if (io.isCancelled()) return io.complete({ status: 'cancelled', cost_usd: 0 });
    this.completions++;
    await io.complete({
      status: 'succeeded',
      diagnosis: { category: 'bug', confidence: 0.9, root_cause_md: 'x', references: [] },
      cost_usd: 0.25,
    });
  }
  release(id: string) {
    this.gates.get(id)?.();
  }
}
void adapterModule('agent', ScriptedExecutor);

t.test(
  'jobs: leases in Postgres, heartbeats, expiry and reclaim, first result wins, retries with back-off, dead letters on the ticket, cancellation, masked events',
  async (t) => {
    const app = await startFixesApp(t);
    const owner = await signUp(app, { orgName: 'Acme' });
    await grantFixCredits(app, owner.organization.id); // fixes ask billing first (plan `none` has no credit)
    const other = await signUp(app, { orgName: 'Other' });
    const ws = await createWorkspace(app, owner, 'Shop');
    const queue = app.container.resolve<JobQueue>('fixJobs');
    const payloads = app.container.resolve<JobPayloads>('fixPayloads');
    const db = app.db as Knex;
    const tickets = app.container.resolve('ticketService');
    const newTicket = async () =>
      db.transaction((trx) =>
        tickets.createTicket(trx, {
          orgId: owner.organization.id,
          workspaceId: ws.id,
          origin: 'email',
          subject: 'Broken',
          customerEmail: 'c@example.com',
          message: { bodyText: 'It broke' },
        }),
      );
    const enqueue = async (ticketId: string, key?: string) =>
      db.transaction((trx) =>
        queue.enqueue(trx, {
          orgId: owner.organization.id,
          workspaceId: ws.id,
          ticketId,
          kind: 'fix',
          executor: 'agent-test',
          mode: 'managed',
          payload: {},
          maxMinutes: 5,
          ...(key ? { idempotencyKey: key } : {}),
        }),
      );
    const job = async (id: string) => (await db('fix_jobs').where({ id }).first()) as FixJob;
    const events = async (id: string) =>
      (await db('fix_job_events').where({ job_id: id }).orderBy('seq')) as Array<{ type: string; message: string }>;

    await t.test(
      'two workers never claim the same job (FOR UPDATE SKIP LOCKED); an idempotency key queues once',
      async (t) => {
        const tk = await newTicket();
        const ids = [];
        for (let i = 0; i < 4; i++) ids.push((await enqueue(tk.id))!.id);
        t.equal(await enqueue(tk.id, 'k1').then((j) => !!j), true);
        t.equal(await enqueue(tk.id, 'k1'), undefined, 'same key: not queued again');
        const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => queue.claim(`w${i}`, ['agent-test'])));
        const got = claims.filter(Boolean).map((j) => j!.id);
        t.equal(got.length, 5, 'five jobs, five claims');
        t.equal(new Set(got).size, 5, 'no job claimed twice');
        for (const id of got) await db('fix_jobs').where({ id }).update({ status: 'cancelled' });
      },
    );

    await t.test(
      "a lease that runs out is claimed again; the dead worker's late result is ignored; the first result wins",
      async (t) => {
        const tk = await newTicket();
        const j = (await enqueue(tk.id))!;
        const a = (await queue.claim('worker-a', ['agent-test']))!;
        t.equal(a.id, j.id);
        t.match(
          await queue.heartbeat(j.id, 'worker-a'),
          { held: true, cancelled: false },
          'the holder keeps the lease',
        );
        t.match(await queue.heartbeat(j.id, 'worker-b'), { held: false }, 'anyone else does not hold it');
        t.equal(await queue.claim('worker-b', ['agent-test']), undefined, 'a live lease is not claimable');
        await db('fix_jobs')
          .where({ id: j.id })
          .update({ lease_expires_at: new Date(Date.now() - 1000) });
        const b = (await queue.claim('worker-b', ['agent-test']))!;
        t.match(b, { id: j.id, attempts: 2, lease_owner: 'worker-b' }, 'reclaimed as attempt 2');
        t.ok(
          (await events(j.id)).some((e) => e.type === 'lease_expired'),
          'the log says so',
        );
        t.equal(
          await queue.finish(j.id, 'worker-a', { status: 'succeeded', cost_usd: 1 }),
          false,
          "the old worker's result is refused",
        );
        t.equal(
          await queue.finish(j.id, 'worker-b', {
            status: 'succeeded',
            cost_usd: 0.5,
            diagnosis: { category: 'bug', confidence: 0.5, root_cause_md: 'x', references: [] },
          }),
          true,
        );
        t.equal(
          await queue.finish(j.id, 'worker-b', { status: 'failed', cost_usd: 1, error: { code: 'x', detail: 'y' } }),
          false,
          'a second result is ignored',
        );
        t.match(await job(j.id), { status: 'succeeded', cost_usd: /^0\.5/ });
      },
    );

    await t.test(
      'a crashed attempt is retried after the back-off, then dead-lettered; the ticket goes to the team',
      async (t) => {
        const tk = await newTicket();
        const j = (await enqueue(tk.id))!;
        for (let attempt = 1; attempt <= 3; attempt++) {
          const c = await waitFor(() => queue.claim('w', ['agent-test']), `attempt ${attempt}`, 5000);
          t.equal(c.attempts, attempt);
          const before = Date.now();
          await queue.fail(
            j.id,
            'w',
            { code: 'executor_error', detail: 'boom with token=supersecretvalue' },
            { retryable: true },
          );
          if (attempt < 3) {
            const row = await job(j.id);
            t.equal(row.status, 'queued', `queued again after attempt ${attempt}`);
            t.ok(
              new Date(row.run_after).getTime() >= before + [50, 100][attempt - 1] - 5,
              'after the back-off of its attempt',
            );
          }
        }
        const dead = await job(j.id);
        t.match(dead, { status: 'dead', error_code: 'executor_error' });
        t.notMatch(dead.error_detail, /supersecretvalue/, 'error masked');
        t.ok((await events(j.id)).some((e) => e.type === 'dead_letter'));
        const ticket = await call(app, owner, 'GET', `/v1/tickets/${tk.id}`);
        t.equal(ticket.body.state, 'escalated', 'dead letter visible on the ticket');
        t.equal(
          await db('outbox')
            .where({ type: 'fixes.job_dead' })
            .whereRaw("payload->>'job_id' = ?", [j.id])
            .count('* as n')
            .first()
            .then((r) => Number((r as { n: unknown }).n)),
          1,
        );
      },
    );

    await t.test('cancelling: a queued job at once, a running one at its next heartbeat', async (t) => {
      const tk = await newTicket();
      const q = (await enqueue(tk.id))!;
      const queued = await job(q.id);
      await db.transaction(async (trx) => queue.cancel(trx, queued, 'nobody needs it'));
      t.equal((await job(q.id)).status, 'cancelled');
      const r = (await enqueue(tk.id))!;
      const c = (await queue.claim('w', ['agent-test']))!;
      t.equal(c.id, r.id);
      const running = await job(r.id);
      await db.transaction(async (trx) => queue.cancel(trx, running, 'stop'));
      t.match(await queue.heartbeat(r.id, 'w'), { held: true, cancelled: true });
      await queue.finish(r.id, 'w', { status: 'cancelled', cost_usd: 0 });
      t.equal((await job(r.id)).status, 'cancelled');
    });

    await t.test(
      'a worker killed mid-job: the lease expires, another worker runs it once, the job log is masked and readable',
      async (t) => {
        const tk = await newTicket();
        const exec = new ScriptedExecutor({});
        const deps = {
          executors: [exec],
          options: {
            ...(app.config.plugins.fixes?.options as Record<string, unknown>),
            pollMs: 100,
            leaseMs: 5000,
            maxConcurrentJobs: 2,
          } as never,
          log: app.log,
        };
        const a = new JobWorker(deps, queue, payloads);
        const j = (await enqueue(tk.id))!;
        a.kick();
        await waitFor(() => exec.started.includes(j.id), 'worker A starts');
        // "kill" A: it stops heartbeating (its process is gone); the lease runs out.
        await a.stop(0);
        await db('fix_jobs')
          .where({ id: j.id })
          .update({ lease_owner: 'dead-worker', lease_expires_at: new Date(Date.now() - 1) });
        const b = new JobWorker(deps, queue, payloads);
        b.start();
        t.teardown(() => b.stop(0));
        await waitFor(() => exec.waiting.filter((id) => id === j.id).length === 2, 'worker B runs it again');
        exec.release(j.id); // B's attempt ends (A's gate was replaced by B's)
        await waitFor(async () => (await job(j.id)).status === 'succeeded', 'the job ends');
        t.equal(exec.completions, 1, 'one completion');
        t.equal((await job(j.id)).attempts, 2);

        const pages = await allPages(app, owner, `/v1/tickets/${tk.id}/jobs/${j.id}/events?limit=2`);
        const res = pages[0];
        t.equal(res.status, 200);
        t.equal(res.body.items.length, 2);
        t.ok(res.body.next_cursor);
        const all = pages.flatMap((page) => page.body.items);
        t.same(all.map((e) => e.type).slice(0, 2), ['claimed', 'output']);
        const output = all.find((e) => e.type === 'output')!;
        t.notMatch(output.message, /ghp_0123/, 'token masked');
        t.notMatch(output.message, /ada@example\.com/, 'address masked');
        const tail = await call(
          app,
          owner,
          'GET',
          `/v1/tickets/${tk.id}/jobs/${j.id}/events?after=${all[all.length - 2].id}`,
        );
        t.same(
          tail.body.items.map((e) => e.id),
          [all[all.length - 1].id],
          'after tails the log',
        );
        t.equal((await call(app, owner, 'GET', `/v1/tickets/${tk.id}/jobs/${j.id}/events?after=nonsense`)).status, 400);
        t.equal(
          (await call(app, other, 'GET', `/v1/tickets/${tk.id}/jobs/${j.id}/events`)).status,
          404,
          'another organization: 404',
        );
        const tk2 = await newTicket();
        t.equal(
          (await call(app, owner, 'GET', `/v1/tickets/${tk2.id}/jobs/${j.id}/events`)).status,
          404,
          'a job of another ticket: 404',
        );
      },
    );

    await t.test('masking', (t) => {
      t.equal(mask('Authorization: Bearer abcdefghijklmnop'), 'Authorization: Bearer ***');
      t.equal(mask('https://x-access-token:tok123456@host/repo.git'), 'https://***:***@host/repo.git');
      t.equal(mask('API_KEY=sk-abcdefghijklmnopqrstuvwxyz'), 'API_KEY=***');
      t.equal(mask('mail john.smith@example.com'), 'mail j***@e***.com');
      t.equal(mask('the value s3cr3t-v4lue here', ['s3cr3t-v4lue']), 'the value *** here');
      t.end();
    });
  },
);
