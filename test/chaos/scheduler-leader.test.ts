/**
 * Fault suite (issue 31): two scheduler processes; the leader is killed (SIGKILL) under load. The other
 * leads within one election interval (`scheduler.electionMs`), and no periodic task runs twice in one
 * period. Every run of a task writes its row in scheduled_tasks (last_run_at); a trigger the test puts
 * on that table keeps each write, so the runs are counted exactly, per task and period.
 */
import t from 'tap';
import {
  countRows,
  servicesSkip,
  setupShop,
  startChaosCluster,
  startLoad,
  waitFor,
  withServices,
  type ClusterProcess,
} from './harness.js';
import { loadInvariants } from './load.js';
import type { CountRow } from '../../plugins/fixes/test/helpers.js';

/** A write of a task's row the test's trigger kept (chaos_task_writes), read where last_run_at is set. */
interface TaskWriteRow {
  name: string;
  last_run_at: Date;
  at: Date;
}

const ELECTION_MS = 1000;
/** Tasks with short periods in this configuration (ms): their runs are counted per period. */
const PERIODS: Record<string, number> = {
  // everyMs = remoteClaimTimeoutMs / 4 (plugins/fixes/index.ts)
  'fixes.unclaimed-remote-jobs': 1000,
  // POLL_SWEEP_MS (plugins/proactive/services/poller.ts)
  'proactive.poll-connectors': 5000,
  // stream.intervalMs, default (plugins/audit/options.ts)
  'audit.deliver-stream': 5000,
};
const LEADING = /"msg":"scheduler: leading"/;

void t.test(
  'scheduler-leader: the leader is killed; the other leads within one election, no task runs twice a period',
  { skip: servicesSkip },
  (t) =>
    withServices(false, async () => {
      const cluster = await startChaosCluster(t, {
        api: 1,
        workers: 1,
        schedulers: 2,
        config: { scheduler: { electionMs: ELECTION_MS } },
        fixes: { remoteClaimTimeoutMs: 4 * PERIODS['fixes.unclaimed-remote-jobs'] },
        async prepare(db, schema) {
          await db.raw(`create table "${schema}".chaos_task_writes (
          name text not null, last_run_at timestamptz, at timestamptz not null default clock_timestamp(),
          backend int not null default pg_backend_pid())`);
          await db.raw(`create function "${schema}".chaos_task_write() returns trigger language plpgsql as $$
          begin
            insert into "${schema}".chaos_task_writes (name, last_run_at) values (new.name, new.last_run_at);
            return new;
          end $$`);
          await db.raw(`create trigger chaos_task_write after insert or update on "${schema}".scheduled_tasks
          for each row execute function "${schema}".chaos_task_write()`);
        },
      });
      const { db } = cluster;
      const leads = (p: ClusterProcess) => p.lines.some((l) => LEADING.test(l));
      const leader = await waitFor(
        () => Promise.resolve(cluster.procs('scheduler').find(leads)),
        'a scheduler to lead',
        3 * ELECTION_MS + 10_000,
      ).catch((err: Error) => {
        throw new Error(
          `${err.message} (another schema's scheduler may hold the database-wide lock)\n${cluster.tail(10)}`,
        );
      });
      const follower = cluster.procs('scheduler').find((p) => p !== leader)!;
      cluster.say(`${leader.name} (pid ${leader.pid}) leads; ${follower.name} (pid ${follower.pid}) waits`);
      t.notOk(leads(follower), 'one leader at a time');

      const shop = await setupShop(cluster);
      const load = startLoad(cluster, shop);
      await waitFor(
        async () =>
          Number(
            (
              (await db('chaos_task_writes')
                .where({ name: 'fixes.unclaimed-remote-jobs' })
                .countDistinct('last_run_at as n')
                .first()) as CountRow
            ).n,
          ) >= 2,
        'the short task to run under the first leader',
        15_000,
      );

      const killedAt = Date.now();
      await cluster.kill(leader);
      cluster.say(`${leader.name} killed (SIGKILL)`);
      await cluster.waitForLine(follower, LEADING, ELECTION_MS + 10_000);
      const took = Date.now() - killedAt;
      cluster.say(`${follower.name} leads ${took} ms after the kill`);
      t.ok(
        took <= ELECTION_MS + 2000,
        `the other scheduler leads within one election interval (${took} ms ≤ ${ELECTION_MS} + 2000)`,
      );

      // The new leader's runs, and the killed one back as a follower.
      const back = await cluster.respawn(leader);
      await new Promise((r) => setTimeout(r, 3 * ELECTION_MS));
      t.notOk(leads(back), `${back.name}, back, does not lead while ${follower.name} does`);
      await waitFor(
        async () =>
          Number(
            (
              (await db('chaos_task_writes')
                .where({ name: 'fixes.unclaimed-remote-jobs' })
                .where('at', '>', new Date(killedAt + took))
                .countDistinct('last_run_at as n')
                .first()) as CountRow
            ).n,
          ) >= 3,
        'the short task to run under the new leader',
        15_000,
      );
      const report = await load.stop();

      const writes = (await db('chaos_task_writes').whereNotNull('last_run_at').orderBy('at')) as TaskWriteRow[];
      const runs = new Map<string, number[]>();
      for (const w of writes) {
        const at = new Date(w.last_run_at).getTime();
        const list = runs.get(w.name) ?? [];
        if (!list.includes(at)) list.push(at);
        runs.set(w.name, list);
      }
      cluster.say(`runs per task: ${JSON.stringify(Object.fromEntries([...runs].map(([k, v]) => [k, v.length])))}`);
      for (const [name, every] of Object.entries(PERIODS)) {
        const list = runs.get(name) ?? [];
        const perPeriod = new Map<number, number>();
        for (const at of list) perPeriod.set(Math.floor(at / every), (perPeriod.get(Math.floor(at / every)) ?? 0) + 1);
        const twice = [...perPeriod].filter(([, n]) => n > 1).map(([p]) => new Date(p * every).toISOString());
        t.same(twice, [], `${name} (every ${every} ms, ${list.length} runs) never ran twice in one period`);
      }
      const close: string[] = [];
      for (const [name, list] of runs) {
        const sorted = [...list].sort((a, b) => a - b);
        for (let i = 1; i < sorted.length; i++)
          if (sorted[i] - sorted[i - 1] < 500) close.push(`${name} at ${new Date(sorted[i]).toISOString()}`);
      }
      t.same(close, [], 'no task ran twice within half a second (two leaders at once)');
      await loadInvariants(t, cluster, shop, report);
      cluster.say(`rows at the end: ${JSON.stringify(await countRows(db))}`);
    }),
);
