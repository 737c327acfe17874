import type { Knex } from 'knex';
import type { Logger } from 'pino';

export interface ScheduledTask {
  name: string;
  everyMs: number;
  runAtStart: boolean;
  run: () => Promise<void>;
}

/**
 * Arbitrary constant: the first key of the leader's advisory lock; the second is a hash of the schema, so
 * installations in several schemas of one database (tests, a shared server) each elect their own leader.
 */
const LEADER_LOCK = 0x5057_5343; // "PWSC"

interface RawConnection {
  query(sql: string, args?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** Set by knex's pg client when the session errored or ended: the pool discards it. */
  __knex__disposed?: unknown;
}

interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(c: unknown): Promise<void>;
  destroyRawConnection?(c: unknown): Promise<void>;
}

/**
 * Periodic work with one leader across processes: the process holding a Postgres session-level
 * advisory lock runs the tasks; others retry for the lock every `electionMs`, so a crashed leader
 * (its session ends, the lock is released) is replaced within that time. The leader checks its lock
 * session just as often and steps down when it is gone (Postgres restarted, the backend terminated):
 * another process may hold the lock by then.
 *
 * Each run is claimed first in `scheduled_tasks` with one conditional upsert: a task runs at most
 * once per period of `everyMs` aligned to the epoch (periods are the same in every process, the
 * database's clock decides), so two processes that both believe they lead, or a new leader's
 * run-at-start, never run a task twice in one period. On PGlite there is one process, which always leads.
 */
export class Scheduler {
  private readonly tasks: ScheduledTask[] = [];
  private timers: NodeJS.Timeout[] = [];
  private electionTimer: NodeJS.Timeout | null = null;
  private lockConnection: RawConnection | null = null;
  private leader = false;
  private stopped = true;
  private readonly running = new Set<Promise<unknown>>();
  private readonly electionMs: number;

  constructor(
    private readonly db: Knex,
    private readonly log: Logger,
    private readonly opts: { engine: 'postgres' | 'pglite'; electionMs?: number } = { engine: 'pglite' },
  ) {
    this.electionMs = opts.electionMs ?? 5_000;
  }

  add(task: ScheduledTask): void {
    if (this.tasks.some((t) => t.name === task.name)) throw new Error(`scheduled task ${task.name} is declared twice`);
    this.tasks.push(task);
  }

  get isLeader(): boolean {
    return this.leader;
  }

  list(): readonly ScheduledTask[] {
    return this.tasks;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.elect();
  }

  /** Stops the timers, waits for running tasks (bounded by the caller, app.stop) and releases the lock. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.electionTimer) clearTimeout(this.electionTimer);
    this.electionTimer = null;
    this.clearTaskTimers();
    await Promise.allSettled([...this.running]);
    await this.releaseLock();
    this.leader = false;
  }

  /** Runs one task now, without a claim (tests and operators). */
  async runNow(name: string): Promise<void> {
    const task = this.tasks.find((t) => t.name === name);
    if (!task) throw new Error(`no scheduled task ${name}`);
    await this.execute(task, false);
  }

  private async elect(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.leader ? await this.lockAlive() : await this.tryLock()) {
        if (!this.leader) this.lead();
      } else if (this.leader) {
        await this.stepDown();
      }
    } catch (err) {
      this.log.warn({ err }, 'scheduler: election failed');
    }
    if (this.stopped) return;
    this.electionTimer = setTimeout(() => void this.elect(), this.electionMs);
    this.electionTimer.unref();
  }

  private lead(): void {
    this.leader = true;
    this.log.info({ tasks: this.tasks.map((t) => t.name) }, 'scheduler: leading');
    for (const task of this.tasks) {
      if (task.runAtStart) this.track(this.execute(task, true));
      this.scheduleNext(task);
    }
  }

  /** Next tick just after the start of the next period, so each tick claims a period of its own. */
  private scheduleNext(task: ScheduledTask): void {
    const every = Math.max(1, task.everyMs);
    const margin = Math.min(Math.ceil(every / 100), 1_000);
    const wait = every - (Date.now() % every) + margin;
    const timer = setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== timer);
      if (!this.leader || this.stopped) return;
      this.track(this.execute(task, true));
      this.scheduleNext(task);
    }, wait);
    timer.unref();
    this.timers.push(timer);
  }

  private clearTaskTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }

  /** The lock session is gone: no more ticks here; a later election may lead again. */
  private async stepDown(): Promise<void> {
    this.leader = false;
    this.clearTaskTimers();
    this.log.warn({}, 'scheduler: lost the leader lock session; no longer leading');
    const conn = this.lockConnection;
    this.lockConnection = null;
    if (conn) await this.discard(conn);
  }

  private get pool(): PoolClient {
    return this.db.client as PoolClient;
  }

  private async tryLock(): Promise<boolean> {
    if (this.opts.engine === 'pglite') return true;
    const conn = (await this.pool.acquireConnection()) as RawConnection;
    try {
      const res = await withDeadline(
        this.electionMs,
        conn.query('select pg_try_advisory_lock($1, hashtext(current_schema())) as ok', [LEADER_LOCK]),
      );
      if (res.rows[0]?.ok === true) {
        if (this.stopped) {
          await this.discard(conn);
          return false;
        }
        this.lockConnection = conn; // held for as long as we lead
        return true;
      }
    } catch (err) {
      await this.discard(conn);
      throw err;
    }
    await this.pool.releaseConnection(conn);
    return false;
  }

  /** True while the session that took the lock still answers and still holds it. */
  private async lockAlive(): Promise<boolean> {
    if (this.opts.engine === 'pglite') return true;
    const conn = this.lockConnection;
    if (!conn || conn.__knex__disposed) return false;
    try {
      const res = await withDeadline(
        this.electionMs,
        conn.query(
          "select exists (select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and classid = $1 and objsubid = 2 and granted) as ok",
          [LEADER_LOCK],
        ),
      );
      return res.rows[0]?.ok === true;
    } catch (err) {
      this.log.warn({ err }, 'scheduler: the leader lock session does not answer');
      return false;
    }
  }

  private async releaseLock(): Promise<void> {
    const conn = this.lockConnection;
    if (!conn) return;
    this.lockConnection = null;
    try {
      await withDeadline(2_000, conn.query('select pg_advisory_unlock($1, hashtext(current_schema()))', [LEADER_LOCK]));
      await this.pool.releaseConnection(conn);
    } catch {
      await this.discard(conn);
    }
  }

  /** Gives a session back to the pool marked as broken: knex destroys it, which ends the session (and its lock). */
  private async discard(conn: RawConnection): Promise<void> {
    conn.__knex__disposed ??= 'scheduler: lock session discarded';
    await this.pool.releaseConnection(conn).catch(() => undefined);
    await this.pool.destroyRawConnection?.(conn).catch(() => undefined);
  }

  private track(p: Promise<void>): void {
    // execute() records its own failures; the catch keeps a surprise from becoming an unhandled rejection.
    const tracked = p.catch((err: unknown) => this.log.error({ err }, 'scheduler: task run ended with an error'));
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }

  private readonly busy = new Set<string>();

  /**
   * Claims the current period of the task: one statement that inserts the row or moves
   * last_run_at only when it lies before the period's start. No row back = another run has it.
   */
  private async claim(task: ScheduledTask): Promise<boolean> {
    const every = Math.max(1, Math.floor(task.everyMs));
    const periodStart = `to_timestamp(floor(extract(epoch from now()) * 1000 / ${every}) * ${every} / 1000.0)`;
    const res = await this.db.raw<{ rows: unknown[] }>(
      `insert into scheduled_tasks as s (name, last_run_at) values (?, now())
       on conflict (name) do update set last_run_at = excluded.last_run_at
       where s.last_run_at is null or s.last_run_at < ${periodStart}
       returning name`,
      [task.name],
    );
    return res.rows.length > 0;
  }

  private async execute(task: ScheduledTask, claimed: boolean): Promise<void> {
    if (this.busy.has(task.name)) return; // a slow run is never overlapped by the next tick
    this.busy.add(task.name);
    const started = new Date();
    try {
      if (claimed && !(await this.claim(task))) {
        this.log.debug({ task: task.name }, 'scheduler: this period already ran');
        return;
      }
      await task.run();
      await this.db('scheduled_tasks')
        .insert({ name: task.name, last_run_at: started, last_success_at: new Date(), last_error: null })
        .onConflict('name')
        .merge(claimed ? ['last_success_at', 'last_error'] : undefined);
    } catch (err) {
      this.log.error({ err, task: task.name }, 'scheduler: task failed');
      await this.db('scheduled_tasks')
        .insert({
          name: task.name,
          last_run_at: started,
          last_error: String((err as Error).message ?? err).slice(0, 2000),
        })
        .onConflict('name')
        .merge(claimed ? ['last_error'] : undefined)
        .catch(() => undefined);
    } finally {
      this.busy.delete(task.name);
    }
  }
}

/** Rejects when `work` takes longer than `ms` (a frozen Postgres never answers). */
async function withDeadline<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
