import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { createTestDb } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { createDatabase, type Db } from '../../core/data/db.js';
import { Scheduler } from '../../core/scheduler/scheduler.js';

/**
 * The scheduler across processes: each Scheduler here stands for a process (on Postgres, with a
 * knex pool of its own). Invariants: at most one run of a task per period, whoever leads; a leader
 * whose lock session dies steps down, another takes over within one election interval.
 */
const ctx = await createTestDb();
t.teardown(() => ctx.close());
const postgres = ctx.config.database.url !== null;
const log = pino({ level: 'silent' });
const ELECTION_MS = 300;

/** Waits until `check` holds (a synchronous check of what the schedulers did). */
const until = (check: () => boolean, what: string, timeoutMs?: number) =>
  waitFor(() => Promise.resolve(check()), what, timeoutMs);

/** A second pool on the same database (another process), closed at teardown. */
function otherPool(): Db {
  if (!postgres) return ctx.db; // PGlite belongs to one process: the schedulers share it
  const { db } = createDatabase(ctx.config);
  t.teardown(() => db.destroy());
  return db;
}

/** Period index of each run, read from the claim the run made (the database's clock decides periods). */
function countingTask(db: Db, name: string, everyMs: number, runs: { by: string; period: number }[], by: string) {
  return {
    name,
    everyMs,
    runAtStart: true,
    run: async () => {
      const row = (await db('scheduled_tasks').where({ name }).first()) as { last_run_at: Date };
      runs.push({ by, period: Math.floor(new Date(row.last_run_at).getTime() / everyMs) });
    },
  };
}

void t.test('two schedulers that both lead run each task once per period', async (t) => {
  const runs: { by: string; period: number }[] = [];
  // A run reads its claim back after the claim: a period much longer than that read keeps the next period's claim
  // (by the other scheduler) from landing in between (at 400 ms a loaded CI machine saw one run report the next).
  const everyMs = 1000;
  // engine 'pglite' makes every instance lead without a lock: two processes that both think they lead.
  const dbs = [ctx.db, otherPool()];
  const schedulers = dbs.map((db, i) => {
    const s = new Scheduler(db, log, { engine: 'pglite', electionMs: ELECTION_MS });
    s.add(countingTask(db, 'it.both-lead', everyMs, runs, `s${i}`));
    return s;
  });
  for (const s of schedulers) await s.start();
  t.ok(
    schedulers.every((s) => s.isLeader),
    'both lead',
  );
  await sleep(everyMs * 5 + 100);
  for (const s of schedulers) await s.stop();

  const periods = runs.map((r) => r.period);
  t.same([...new Set(periods)].length, periods.length, `no period ran twice (${JSON.stringify(runs)})`);
  t.ok(periods.length >= 4, `a run in (nearly) every period: ${periods.length} runs in 5 periods`);
  t.ok(new Set(runs.map((r) => r.by)).size >= 1, 'runs happened');
});

void t.test("a new leader's run-at-start waits for the next period when this one already ran", async (t) => {
  const runs: { by: string; period: number }[] = [];
  const everyMs = 60_000;
  const first = new Scheduler(ctx.db, log, { engine: 'pglite', electionMs: ELECTION_MS });
  first.add(countingTask(ctx.db, 'it.run-at-start', everyMs, runs, 'first'));
  await first.start();
  await until(() => runs.length === 1, 'the first run at start');
  await first.stop();

  const db = otherPool();
  const second = new Scheduler(db, log, { engine: 'pglite', electionMs: ELECTION_MS });
  second.add(countingTask(db, 'it.run-at-start', everyMs, runs, 'second'));
  await second.start();
  await sleep(300);
  await second.stop();
  t.same(
    runs.map((r) => r.by),
    ['first'],
    'the second leader skipped the period the first one ran',
  );
  // runNow is the operator's explicit run: it does not ask for a claim.
  await second.runNow('it.run-at-start');
  t.equal(runs.length, 2);
});

void t.test(
  'a leader whose lock session is terminated steps down; another takes over within one election interval',
  { skip: postgres ? false : 'needs Postgres (advisory locks across processes)' },
  async (t) => {
    const runs: { by: string; period: number }[] = [];
    const everyMs = 200;
    const dbA = otherPool();
    const dbB = otherPool();
    const a = new Scheduler(dbA, log, { engine: 'postgres', electionMs: ELECTION_MS });
    const b = new Scheduler(dbB, log, { engine: 'postgres', electionMs: ELECTION_MS });
    a.add(countingTask(dbA, 'it.takeover', everyMs, runs, 'a'));
    b.add(countingTask(dbB, 'it.takeover', everyMs, runs, 'b'));
    t.teardown(async () => {
      await a.stop();
      await b.stop();
    });
    await a.start();
    await b.start();
    t.ok(a.isLeader, 'a leads');
    t.notOk(b.isLeader, 'b follows');
    await until(() => runs.some((r) => r.by === 'a'), 'a run by the leader');

    const holders = await ctx.db.raw<{ rows: { pid: number }[] }>(
      `select pid from pg_locks where locktype = 'advisory' and classid = 1347900227 and objsubid = 2 and granted
       and objid = (hashtext(?)::bigint & 4294967295)::text::oid`,
      [ctx.config.database.schema ?? 'public'],
    );
    t.equal(holders.rows.length, 1, 'one session holds the leader lock');
    const killedAt = Date.now();
    await ctx.db.raw('select pg_terminate_backend(?)', [holders.rows[0]?.pid ?? 0]);

    await until(() => !a.isLeader, 'a to step down', ELECTION_MS * 4);
    await until(() => b.isLeader, 'b to lead', ELECTION_MS * 4);
    const takeoverMs = Date.now() - killedAt;
    t.ok(
      takeoverMs <= ELECTION_MS * 2 + 200,
      `b took over ${takeoverMs} ms after the kill (election every ${ELECTION_MS} ms)`,
    );
    const runsBefore = runs.length;
    await until(() => runs.slice(runsBefore).some((r) => r.by === 'b'), 'a run by the new leader');
    const lastByA = Math.max(...runs.filter((r) => r.by === 'a').map((r) => r.period));
    await sleep(everyMs * 3);
    t.notOk(
      runs.some((r) => r.by === 'a' && r.period > lastByA),
      'the old leader ran nothing after stepping down',
    );
    const periods = runs.map((r) => r.period);
    t.equal(new Set(periods).size, periods.length, 'no period ran twice across the change of leader');

    // The old leader takes part in the election again: when b stops, a leads.
    await b.stop();
    await until(() => a.isLeader, 'a to lead again', ELECTION_MS * 4);
    t.pass('a leads again after b released the lock');
  },
);
