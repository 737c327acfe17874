/**
 * Fault suite (issue 31): a worker process is killed (SIGKILL) while it runs a fix job, under load
 * (error events and inbound emails). The job's lease expires, the other worker runs it once more,
 * and the loop ends once: one pull request, one release, one notice per person following the ticket.
 */
import t from 'tap';
import { BUG_REPORT } from '../../plugins/fixes/test/fixtures/cart.js';
import {
  approveAndRelease,
  call,
  count,
  countRows,
  sendEmail,
  servicesSkip,
  setupShop,
  startChaosCluster,
  startLoad,
  waitFor,
  withServices,
} from './harness.js';
import { loadInvariants } from './load.js';
import type { AttemptRow, JobEventRow, JobRow, MailRow } from '../../plugins/fixes/test/helpers.js';
import type { ItemRow } from '../../adapters/codehost-local/item-rows.js';

const LEASE_MS = 3000;

void t.test(
  'worker-kill: a worker killed mid fix job; the job runs once more and the loop ends once',
  { skip: servicesSkip },
  (t) =>
    withServices(false, async () => {
      const cluster = await startChaosCluster(t, { api: 1, workers: 2, fixes: { leaseMs: LEASE_MS } });
      const { db } = cluster;
      const shop = await setupShop(cluster);
      cluster.say('shop ready: a workspace with the fix loop, its repository indexed, an endpoint connector');
      const fail = (err: Error): never => {
        throw new Error(`${err.message}\n${cluster.tail()}`);
      };

      cluster.holdNextFix();
      // The bug report first: its diagnosis is not queued behind the load's.
      const sent = await sendEmail(cluster, shop.inbound, BUG_REPORT);
      const load = startLoad(cluster, shop);
      const ticketId = sent.body.results[0]?.ticket_id as string;
      t.ok(ticketId, `the bug report made ticket ${ticketId}`);
      const follow = await call(cluster.http, shop.owner, 'POST', `/v1/tickets/${ticketId}/subscribers`, {
        email: 'grace.hopper@example.com',
      });
      t.equal(follow.status, 201, 'a second person follows the ticket');

      const held = await cluster.heldJob(60_000).catch(fail);
      cluster.say('the fix job is mid-run (its agent is held)');
      t.equal(held.ticketId, ticketId, "the held agent runs the bug report's fix job");
      const running = (await db('fix_jobs').where({ id: held.jobId }).first()) as JobRow;
      t.match(running, { kind: 'fix', status: 'running', attempts: 1, executor: 'agent-managed' });
      const victim = cluster.procs('worker').find((p) => String(running.lease_owner).includes(`:${p.pid}:`));
      if (!victim) return fail(new Error(`no live worker holds lease ${running.lease_owner}`));
      cluster.say(`${victim.name} (pid ${victim.pid}) runs fix job ${held.jobId} of ticket ${ticketId}: kill -9`);

      const killedAt = Date.now();
      const end = await cluster.kill(victim);
      t.equal(end.signal, 'SIGKILL', `${victim.name} is gone`);
      t.ok(cluster.killAgents() >= 1, 'its agent is gone too (as on a lost machine)');
      cluster.releaseHold();

      const attempt = await waitFor(
        async () => {
          const a = (await db('fix_attempts').where({ ticket_id: ticketId }).first()) as AttemptRow | undefined;
          return a?.pr_number ? a : null;
        },
        'the fix and its pull request from the other worker',
        60_000,
      ).catch(fail);
      cluster.say(
        `pull request #${attempt.pr_number} opened ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`,
      );
      t.match(attempt, { number: 1, status: 'verified', tests_passed: true, pr_state: 'open' });

      const job = (await db('fix_jobs').where({ id: held.jobId }).first()) as JobRow;
      t.match(
        job,
        { status: 'succeeded', attempts: 2, lease_owner: null },
        'the job ran once more (attempt 2) and finished',
      );
      const events = (await db('fix_job_events').where({ job_id: held.jobId }).orderBy('seq')) as JobEventRow[];
      t.equal(
        events.filter((e) => e.type === 'claimed').length,
        2,
        'claimed twice: by the killed worker, then once more',
      );
      t.ok(
        events.some((e) => e.type === 'lease_expired'),
        'the log says the lease expired',
      );
      t.equal(
        events.filter((e) => e.type === 'agent_output' && /^agent attempt started/.test(String(e.message))).length,
        2,
        "both attempts' agent output is in the log (the killed one's too)",
      );
      t.equal(events.filter((e) => e.type === 'result').length, 1, 'one result');
      t.equal(await count(db('fix_jobs').where({ ticket_id: ticketId, kind: 'fix' })), 1, 'one fix job');
      t.equal(await count(db('fix_attempts').where({ ticket_id: ticketId })), 1, 'one fix attempt');

      const report = await load.stop();
      const done = await approveAndRelease(cluster, shop.owner, ticketId, attempt).catch(fail);
      t.match(done, { public_state: 'resolved' }, 'the ticket is resolved and its people notified');

      const prs = (await db('codehost_local_items').where({ kind: 'pull_request' })) as ItemRow[];
      t.equal(
        prs.filter((p) => String(p.head_branch).startsWith(`patchwell/${ticketId}-`)).length,
        1,
        'one pull request',
      );
      t.equal(await count(db('fix_releases').where({ ticket_id: ticketId })), 1, 'one release');
      const notices = (await db('mail_messages')
        .where('template', 'like', 'fixes.release_notice%')
        .orderBy('template')) as MailRow[];
      t.same(
        notices.map((m) => [m.template, m.to_address]),
        [
          ['fixes.release_notice', 'ada.lovelace@example.com'],
          ['fixes.release_notice_subscriber', 'grace.hopper@example.com'],
        ],
        'one notice per person following the ticket',
      );
      await loadInvariants(t, cluster, shop, report);
      cluster.say(`rows at the end: ${JSON.stringify(await countRows(db))}`);
    }),
);
