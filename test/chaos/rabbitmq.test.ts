/**
 * Fault suite (issue 31): RabbitMQ goes away under load (error events, inbound emails, a fix loop).
 *
 * 1. Restart (issue 7's broker-restart, folded in here): `rabbitmqctl stop_app`, a few seconds, `start_app`,
 *    while a fix job runs. Connections drop; the workers reconnect and re-declare their queues.
 * 2. Blocked for 30 s: `rabbitmqctl set_vm_memory_high_watermark 0` raises the memory alarm, then the configured
 *    watermark is restored. The broker stays up and keeps the connections open but stops reading from every
 *    connection that publishes (connection.blocked): the failure a full broker gives in production, and the
 *    harder one, since nothing disconnects. (stop_app for 30 s would only repeat scenario 1 for longer.)
 *
 * Invariants over the database, for both: requests go on being answered (the api writes the outbox, never the
 * broker), the outbox holds what was committed and drains once the broker is back, nothing is dead-lettered,
 * nothing is applied twice (one diagnosis job per ticket; one fix job, one attempt, one pull request for the
 * bug report), and every process is still running.
 *
 *   flock -x /tmp/pw-services.lock env DATABASE_URL=… AMQP_URL=… npx tap test/chaos/rabbitmq.test.ts
 */
import t from 'tap';
import type { Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { BUG_REPORT } from '../../plugins/fixes/test/fixtures/cart.js';
import { loadInvariants } from './load.js';
import type { AttemptRow } from '../../plugins/fixes/test/helpers.js';
import type { ItemRow } from '../../adapters/codehost-local/item-rows.js';
import {
  count,
  countRows,
  sendEmail,
  servicesSkip,
  setupShop,
  sh,
  startChaosCluster,
  startLoad,
  waitFor,
  withServices,
  type ChaosCluster,
  type LoadReport,
  type Shop,
} from './harness.js';

const rabbitmqctl = (...args: string[]): string => sh('rabbitmqctl', args, 90_000);
/** Sets the watermark rabbitmq.conf configures (RabbitMQ's default 0.4 when it sets none) and answers it. */
const RESTORE_WATERMARK = `W = case application:get_env(rabbit, vm_memory_high_watermark) of {ok, V} -> V; _ -> 0.4 end,
  vm_memory_monitor:set_vm_memory_high_watermark(W), W.`;

/** The readiness answer of the first api process: 200, or 503 with the failing check's detail. */
async function readiness(cluster: ChaosCluster): Promise<{ status: number; bus: string }> {
  try {
    const res = await fetch(`${cluster.group.urls()[0]}/v1/health/ready`, { signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { checks?: { bus?: { detail?: string } } };
    return { status: res.status, bus: body.checks?.bus?.detail ?? '' };
  } catch (err) {
    return { status: 0, bus: (err as Error).message };
  }
}

/** What both scenarios must leave behind, once the broker is back and the load has stopped. */
async function settled(t: Test, cluster: ChaosCluster, shop: Shop, report: LoadReport): Promise<void> {
  const { db } = cluster;
  await loadInvariants(t, cluster, shop, report);
  const tickets = [...new Set(report.emails.tickets)];
  await waitFor(
    async () =>
      (await count(db('fix_jobs').whereIn('ticket_id', tickets).where({ kind: 'diagnose' }))) >= tickets.length
        ? true
        : null,
    'a diagnosis job for every ticket',
    30_000,
  ).catch(() => false);
  const perTicket: Array<{ ticket_id: string; n: string }> = await db('fix_jobs')
    .whereIn('ticket_id', tickets)
    .where({ kind: 'diagnose' })
    .groupBy('ticket_id')
    .select('ticket_id')
    .count<Array<{ ticket_id: string; n: string }>>('* as n');
  t.equal(perTicket.length, tickets.length, `each of the ${tickets.length} tickets was diagnosed`);
  t.same(
    perTicket.filter((r) => Number(r.n) !== 1),
    [],
    'each ticket has exactly one diagnosis job (tickets.created applied once)',
  );
  t.same(
    cluster.group.processes.filter((p) => !p.alive).map((p) => p.name),
    [],
    'every process is still running',
  );
  // rabbitmq-client reconnects with exponential back-off up to 30 s (retryHigh): an idle api process may take that long.
  const back = Date.now();
  const ready = await waitFor(
    async () => ((await readiness(cluster)).status === 200 ? true : null),
    'readiness 200 on the api process',
    40_000,
  ).catch(() => false);
  t.ok(ready, `readiness answers 200 again, the bus reconnected (after ${Date.now() - back} ms more)`);
  t.comment(`rows at the end: ${JSON.stringify(await countRows(db))}`);
}

/** Sends the bug report and waits until its fix job runs (held by the agent), so the fault hits the fix loop. */
async function fixInFlight(t: Test, cluster: ChaosCluster, shop: Shop): Promise<string> {
  cluster.holdNextFix();
  const sent = await sendEmail(cluster, shop.inbound, BUG_REPORT);
  const [first] = sent.body.results as Array<{ ticket_id: string }>;
  const ticketId = first.ticket_id;
  const held = await cluster.heldJob(60_000);
  t.equal(held.ticketId, ticketId, `the fix job of ticket ${ticketId} is running`);
  return ticketId;
}

/** The fix loop of the bug report ended once: one fix job, one attempt, one pull request. */
async function oneFix(t: Test, cluster: ChaosCluster, ticketId: string): Promise<void> {
  const { db } = cluster;
  const attempt = await waitFor(
    async () => {
      const a = (await db('fix_attempts').where({ ticket_id: ticketId }).first()) as AttemptRow | undefined;
      return a?.pr_number ? a : null;
    },
    'the fix and its pull request',
    40_000,
  );
  t.match(attempt, { number: 1, pr_state: 'open' }, `the fix opened pull request #${attempt.pr_number}`);
  t.equal(await count(db('fix_jobs').where({ ticket_id: ticketId, kind: 'fix' })), 1, 'one fix job');
  t.equal(await count(db('fix_attempts').where({ ticket_id: ticketId })), 1, 'one fix attempt');
  const prs = (await db('codehost_local_items').where({ kind: 'pull_request' })) as ItemRow[];
  t.equal(prs.filter((p) => String(p.head_branch).startsWith(`patchwell/${ticketId}-`)).length, 1, 'one pull request');
}

interface Running {
  cluster: ChaosCluster;
  load: ReturnType<typeof startLoad>;
}

/**
 * One scenario: a cluster (1 api, 1 worker) under load with the bug report's fix job running, `fault` done to the
 * broker (it must leave the broker running), then the fix loop ends once and everything settles.
 */
function scenario(name: string, fault: (t: Test, run: Running) => Promise<void>): void {
  void t.test(name, { skip: servicesSkip, timeout: 240_000 }, (t) =>
    withServices(true, async () => {
      const started = Date.now();
      const cluster = await startChaosCluster(t, { api: 1, workers: 1 });
      const shop = await setupShop(cluster);
      const load = startLoad(cluster, shop, { everyMs: 250 });
      const ticketId = await fixInFlight(t, cluster, shop);
      await fault(t, { cluster, load });
      await oneFix(t, cluster, ticketId);
      const done = await load.stop();
      await settled(t, cluster, shop, done);
      t.comment(`scenario took ${Date.now() - started} ms`);
    }),
  );
}

scenario(
  'RabbitMQ restarts mid fix loop: the outbox keeps events, nothing lost, nothing applied twice',
  async (t, run) => {
    const { cluster, load } = run;
    let stopped = false;
    try {
      t.comment('rabbitmqctl stop_app');
      stopped = true;
      rabbitmqctl('stop_app');
      const down = await waitFor(
        async () => {
          const r = await readiness(cluster);
          return r.status === 503 ? r : null;
        },
        'readiness to report the broker gone',
        15_000,
      );
      t.comment(`readiness 503 while stopped: bus ${down.bus}`);
      const during = answeredSoFar(load.report);
      cluster.releaseHold(); // the agent finishes while the broker is down: its events wait in the outbox
      await sleep(5000);
      t.ok(answeredSoFar(load.report) > during, 'requests are still answered while the broker is down');
      t.ok((await countRows(cluster.db)).outboxUnpublished > 0, 'the outbox holds the events committed meanwhile');
    } finally {
      if (stopped) rabbitmqctl('start_app');
    }
    t.comment('rabbitmqctl start_app');
    t.ok(
      (await count(cluster.db('outbox').where('attempts', '>', 0))) > 0,
      'the relay kept and retried the events it could not publish during the outage',
    );
  },
);

scenario(
  'RabbitMQ blocked for 30 s (memory alarm): the outbox holds, drains after, nothing dead-lettered',
  async (t, run) => {
    const { cluster, load } = run;
    const previous = rabbitmqctl('eval', 'vm_memory_monitor:get_vm_memory_high_watermark().').trim();
    let blocked = false;
    try {
      t.comment(`rabbitmqctl set_vm_memory_high_watermark 0 (was ${previous}) for 30 s`);
      blocked = true;
      rabbitmqctl('set_vm_memory_high_watermark', '0');
      const blockedAt = Date.now();
      cluster.releaseHold();
      const answered = answeredSoFar(load.report);
      await sleep(5000);
      const published = await count(cluster.db('outbox').whereNotNull('published_at'));
      await sleep(Math.max(0, 30_000 - (Date.now() - blockedAt)));
      const during = await countRows(cluster.db);
      const r = await readiness(cluster);
      t.comment(`after 30 s blocked: readiness ${r.status} (bus ${r.bus}); ${JSON.stringify(during)}`);
      t.ok(answeredSoFar(load.report) > answered, 'requests are still answered while the broker is blocked');
      t.ok(during.outboxUnpublished > 0, `the outbox holds what was committed (${during.outboxUnpublished} rows)`);
      t.equal(
        await count(cluster.db('outbox').whereNotNull('published_at')),
        published,
        'nothing was published while the broker was blocked',
      );
    } finally {
      // Back to the configured watermark, not the one read before: a run killed inside this window
      // leaves 0, which the next run would otherwise read and restore (.ci/services repairs that too).
      if (blocked)
        t.comment(`watermark restored to ${rabbitmqctl('eval', RESTORE_WATERMARK).trim()} (was ${previous})`);
    }
  },
);

/** Requests of the load answered so far. */
function answeredSoFar(r: LoadReport): number {
  return r.events.accepted + r.events.refused + r.emails.messageIds.length + r.emails.refused;
}
