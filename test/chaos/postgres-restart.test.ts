/**
 * Fault suite (issue 31): Postgres restarts under load. Two api processes and a worker run ingest,
 * inbound emails and fix loops while `pg_ctlcluster … restart` (fast shutdown: every session is ended)
 * takes the database away for a few seconds. Invariants, over the database:
 * - the pools reconnect: every api process answers readiness 200 again;
 * - requests in flight fail cleanly: an answer ≥ 500 is a 503 with the JSON error envelope, never a
 *   500, never a stack;
 * - nothing committed is lost or doubled: every email answered 2xx has its ticket, each Message-ID one
 *   ticket (the client's retries reuse it), each accepted event stored once under its external_id;
 * - the outbox relays what was committed (no row left unpublished), nothing is dead-lettered, and every
 *   ticket is diagnosed exactly once.
 *
 *   flock -x /tmp/pw-services.lock env DATABASE_URL=… AMQP_URL=… npx tap test/chaos/postgres-restart.test.ts
 */
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadInvariants } from './load.js';
import {
  call,
  count,
  countRows,
  servicesSkip,
  setupShop,
  sh,
  startChaosCluster,
  startLoad,
  waitFor,
  withServices,
  type ChaosCluster,
  type Shop,
} from './harness.js';

const PG = ['--skip-systemctl-redirect', '15', 'main'];

/** Starts the cluster of this machine's Postgres if it is not running (after a failed restart). */
function ensurePostgres(): void {
  try {
    sh('pg_ctlcluster', [...PG, 'status']);
  } catch {
    sh('pg_ctlcluster', [...PG, 'start']);
  }
}

interface Answer {
  what: string;
  status: number;
  payload: string;
}

/**
 * Requests no client retries, started every 100 ms whether or not the previous ones answered (so some
 * are in flight when the database goes), alternating a read (the ticket list) and a write (an ingest
 * batch). Every answer is kept, to judge the failures.
 */
function probe(cluster: ChaosCluster, shop: Shop): { stop(): Promise<Answer[]> } {
  const answers: Answer[] = [];
  const inflight = new Set<Promise<void>>();
  let n = 0;
  const send = (what: string, request: () => Promise<{ status: number; payload: string }>) => {
    const p = request().then(
      (res) => void answers.push({ what, status: res.status, payload: res.payload }),
      (err: unknown) => void answers.push({ what, status: 0, payload: String((err as Error).message) }),
    );
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };
  const timer = setInterval(() => {
    n++;
    if (n % 2)
      send('GET /v1/tickets', () =>
        call(cluster.http, shop.owner, 'GET', `/v1/tickets?workspace_id=${shop.workspace.id}&limit=5`),
      );
    else
      send('POST /v1/ingest', () =>
        call(
          cluster.http,
          null,
          'POST',
          `/v1/ingest/${shop.connector.id}`,
          [{ message: 'Probe error', external_id: `probe-${process.pid}-${n}` }],
          { authorization: `Bearer ${shop.connector.token}` },
        ),
      );
  }, 100);
  return {
    async stop() {
      clearInterval(timer);
      while (inflight.size) await Promise.allSettled([...inflight]);
      return answers;
    },
  };
}

async function readiness(url: string): Promise<number> {
  try {
    return (await fetch(`${url}/v1/health/ready`, { signal: AbortSignal.timeout(3000) })).status;
  } catch {
    return 0;
  }
}

void t.test(
  'Postgres restarts under load: pools reconnect, failures are clean 503s, nothing committed is lost',
  { skip: servicesSkip, timeout: 240_000 },
  (t) =>
    withServices(true, async () => {
      const started = Date.now();
      // The bus's production back-off (the suite's default spends every attempt within 2 s): a message that fails
      // while the database restarts is retried after it is back.
      const cluster = await startChaosCluster(t, {
        api: 2,
        workers: 1,
        config: { bus: { backoffMs: [1000, 5000, 20000] } },
      });
      const shop = await setupShop(cluster);
      const load = startLoad(cluster, shop, { everyMs: 250, bugReportEvery: 8 });
      const answers = probe(cluster, shop);
      await sleep(3000);
      const before = await countRows(cluster.db);
      t.comment(`under load before the restart: ${JSON.stringify(before)}`);

      // A checkpoint first, so the fast shutdown's own checkpoint has little to write and the outage stays short.
      await cluster.db.raw('checkpoint');
      const restartAt = Date.now();
      try {
        sh('pg_ctlcluster', [...PG, 'restart'], 60_000);
      } finally {
        ensurePostgres();
      }
      t.comment(`pg_ctlcluster restart took ${Date.now() - restartAt} ms`);

      const urls = cluster.group.urls();
      await waitFor(
        async () => ((await Promise.all(urls.map(readiness))).every((s) => s === 200) ? true : null),
        'every api process ready again',
        30_000,
      );
      t.comment(`every api process answered readiness 200 ${Date.now() - restartAt} ms after the restart began`);
      await sleep(3000); // load goes on after the restart
      const report = await load.stop();
      const probed = await answers.stop();
      t.same(
        cluster.group.processes.filter((p) => !p.alive).map((p) => p.name),
        [],
        'no process ended: each rode out the restart (pools reconnect)',
      );

      // Requests in flight fail cleanly.
      const failed = probed.filter((a) => a.status >= 500);
      t.comment(
        `probe: ${probed.length} requests without retry, ${failed.length} answered ≥ 500: ${JSON.stringify(
          Object.fromEntries(
            [...new Set(probed.map((a) => `${a.what} ${a.status}`))].map((k) => [
              k,
              probed.filter((a) => `${a.what} ${a.status}` === k).length,
            ]),
          ),
        )}`,
      );
      for (const a of failed.slice(0, 5)) t.comment(`${a.what} answered ${a.status}: ${a.payload.slice(0, 300)}`);
      const unclean = failed.filter((a) => {
        let body: { statusCode?: number; code?: string } = {};
        try {
          body = JSON.parse(a.payload) as typeof body;
        } catch {
          return true;
        }
        return (
          a.status !== 503 ||
          body.statusCode !== 503 ||
          body.code !== 'service_unavailable' ||
          /\n\s+at /.test(a.payload)
        );
      });
      t.same(
        unclean.slice(0, 3),
        [],
        'every answer ≥ 500 during the restart is a 503 service_unavailable envelope without a stack',
      );
      t.notOk(report.statuses['500'], 'the load never got a 500');

      // Nothing committed is lost or doubled; the outbox relays what was committed.
      await loadInvariants(t, cluster, shop, report);
      const db = cluster.db;
      const stored = await count(db('tickets').whereIn('id', report.emails.tickets));
      t.equal(stored, new Set(report.emails.tickets).size, 'every ticket an email was answered with exists');

      // The consumers handle each committed event once.
      const tickets = [...new Set(report.emails.tickets)];
      await waitFor(
        async () =>
          (await count(db('fix_jobs').whereIn('ticket_id', tickets).where({ kind: 'diagnose' }))) >= tickets.length
            ? true
            : null,
        'a diagnosis job for every ticket',
        30_000,
      );
      const doubled = (await db('fix_jobs')
        .whereIn('ticket_id', tickets)
        .where({ kind: 'diagnose' })
        .select('ticket_id')
        .count('* as n')
        .groupBy('ticket_id')
        .havingRaw('count(*) > 1')) as unknown[];
      t.same(doubled, [], 'each ticket has exactly one diagnosis job');
      const after = await countRows(db);
      t.comment(`after: ${JSON.stringify(after)}; scenario took ${Date.now() - started} ms`);
    }),
);
