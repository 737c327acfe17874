import type { Knex } from 'knex';
import type { Logger } from 'pino';

export interface ScheduledTask {
  name: string;
  everyMs: number;
  runAtStart: boolean;
  run: () => Promise<void>;
}

/** Arbitrary constant: the advisory lock id of the scheduler leader. */
const LEADER_LOCK = 0x5057_5343; // "PWSC"

/**
 * Periodic work with one leader across processes: the process holding a Postgres session-level
 * advisory lock runs the tasks; others retry for the lock every `electionMs`, so a crashed leader
 * (its session ends, the lock is released) is replaced within that time. On PGlite there is one
 * process, which always leads.
 */
export class Scheduler {
  private readonly tasks: ScheduledTask[] = [];
  private timers: NodeJS.Timeout[] = [];
  private electionTimer: NodeJS.Timeout | null = null;
  private lockConnection: unknown = null;
  private leader = false;
  private stopped = true;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly db: Knex,
    private readonly log: Logger,
    private readonly opts: { engine: 'postgres' | 'pglite'; electionMs?: number } = { engine: 'pglite' },
  ) {}

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

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.electionTimer) clearTimeout(this.electionTimer);
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await Promise.allSettled([...this.running]);
    await this.releaseLock();
    this.leader = false;
  }

  /** Runs one task now (tests and operators). */
  async runNow(name: string): Promise<void> {
    const task = this.tasks.find((t) => t.name === name);
    if (!task) throw new Error(`no scheduled task ${name}`);
    await this.execute(task);
  }

  private async elect(): Promise<void> {
    if (this.stopped) return;
    try {
      if (await this.tryLock()) {
        this.leader = true;
        this.log.info({ tasks: this.tasks.map((t) => t.name) }, 'scheduler: leading');
        for (const task of this.tasks) {
          if (task.runAtStart) this.track(this.execute(task));
          this.timers.push(setInterval(() => this.track(this.execute(task)), task.everyMs));
        }
        return;
      }
    } catch (err) {
      this.log.warn({ err }, 'scheduler: election failed');
    }
    this.electionTimer = setTimeout(() => void this.elect(), this.opts.electionMs ?? 15_000);
    this.electionTimer.unref();
  }

  private async tryLock(): Promise<boolean> {
    if (this.opts.engine === 'pglite') return true;
    const client = this.db.client as {
      acquireConnection(): Promise<unknown>;
      releaseConnection(c: unknown): Promise<void>;
    };
    const conn = await client.acquireConnection();
    const res = await (conn as { query(sql: string, args: unknown[]): Promise<{ rows: { ok: boolean }[] }> }).query(
      'select pg_try_advisory_lock($1) as ok',
      [LEADER_LOCK],
    );
    if (res.rows[0]?.ok) {
      this.lockConnection = conn; // held for as long as we lead
      return true;
    }
    await client.releaseConnection(conn);
    return false;
  }

  private async releaseLock(): Promise<void> {
    if (!this.lockConnection) return;
    const client = this.db.client as { releaseConnection(c: unknown): Promise<void> };
    const conn = this.lockConnection as { query(sql: string, args: unknown[]): Promise<unknown> };
    this.lockConnection = null;
    try {
      await conn.query('select pg_advisory_unlock($1)', [LEADER_LOCK]);
    } finally {
      await client.releaseConnection(conn);
    }
  }

  private track(p: Promise<void>): void {
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  private readonly busy = new Set<string>();

  private async execute(task: ScheduledTask): Promise<void> {
    if (this.busy.has(task.name)) return; // a slow run is never overlapped by the next tick
    this.busy.add(task.name);
    const started = new Date();
    try {
      await task.run();
      await this.db('scheduled_tasks')
        .insert({ name: task.name, last_run_at: started, last_success_at: new Date(), last_error: null })
        .onConflict('name')
        .merge();
    } catch (err) {
      this.log.error({ err, task: task.name }, 'scheduler: task failed');
      await this.db('scheduled_tasks')
        .insert({
          name: task.name,
          last_run_at: started,
          last_error: String((err as Error).message ?? err).slice(0, 2000),
        })
        .onConflict('name')
        .merge()
        .catch(() => undefined);
    } finally {
      this.busy.delete(task.name);
    }
  }
}
