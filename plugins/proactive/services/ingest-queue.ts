import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { rateLimited } from '../../../core/http/errors.js';
import type { GroupWriter, IncomingEvent, WorkspaceProactive, WriteOutcome } from './group-writer.js';
import type { Symbolicator } from './symbolicator.js';
import { TtlMap } from '../../../core/data/ttl-map.js';

interface Pending {
  events: IncomingEvent[];
  resolve(outcomes: WriteOutcome[]): void;
  reject(err: unknown): void;
}

export interface IngestQueueOptions {
  batchMaxEvents: number;
  maxQueuedEvents: number;
  retryAfterSeconds: number;
  /** How long workspace grouping settings are cached. */
  settingsCacheMs: number;
  /** Batches written at the same time (each one statement; groups are locked in one order). */
  flushers: number;
}

/**
 * Group commit for ingest: requests hand their events to the queue and wait; one flusher per
 * process writes everything waiting as one statement (up to batchMaxEvents), then answers each
 * request. Under load batches grow, so throughput rises with concurrency instead of queueing one
 * transaction per request. Beyond maxQueuedEvents waiting events a request is refused at once
 * with 429 and Retry-After, before anything is accepted; an answered request is committed.
 */
export class IngestQueue {
  private pending: Pending[] = [];
  private queued = 0;
  /** Flush loops running now (at most opts.flushers). */
  private readonly flushing = new Set<Promise<void>>();
  private readonly settings: TtlMap<string, WorkspaceProactive>;
  private stopped = false;

  constructor(
    private readonly db: Knex,
    private readonly writer: GroupWriter,
    private readonly opts: IngestQueueOptions,
    private readonly log: Logger,
    /** Maps frames through uploaded source maps before grouping (bounded by its own time limit). */
    private readonly symbolicator: Pick<Symbolicator, 'symbolicate'> | null = null,
  ) {
    this.settings = new TtlMap(opts.settingsCacheMs);
  }

  /** Events waiting for a commit now. */
  get depth(): number {
    return this.queued;
  }

  /** Writes the events (grouped, counted) and resolves once they are committed. 429 when the queue is full. */
  submit(events: IncomingEvent[]): Promise<WriteOutcome[]> {
    if (events.length === 0) return Promise.resolve([]);
    if (this.stopped)
      return Promise.reject(rateLimited(this.opts.retryAfterSeconds, 'The service is shutting down; retry later'));
    if (this.queued + events.length > this.opts.maxQueuedEvents) {
      return Promise.reject(
        rateLimited(this.opts.retryAfterSeconds, 'Too many events are waiting to be stored; retry later'),
      );
    }
    return new Promise<WriteOutcome[]>((resolve, reject) => {
      this.pending.push({ events, resolve, reject });
      this.queued += events.length;
      this.kick();
    });
  }

  /** Forgets cached settings of a workspace (after a settings change in this process). */
  forget(workspaceId: string): void {
    this.settings.delete(workspaceId);
  }

  /** Waits for everything accepted to be written; refuses new events. */
  async stop(): Promise<void> {
    this.stopped = true;
    while (this.flushing.size) await Promise.all([...this.flushing]);
  }

  private kick(): void {
    while (this.flushing.size < this.opts.flushers && this.pending.length) {
      const loop = this.flushLoop();
      this.flushing.add(loop);
      loop.finally(() => this.flushing.delete(loop)).catch(() => {}); // flushOnce answers its own failures
    }
  }

  private async flushLoop(): Promise<void> {
    // Yields first, so the loop is in `flushing` before it can end.
    await Promise.resolve();
    while (this.pending.length) await this.flushOnce();
  }

  private async flushOnce(): Promise<void> {
    const batch: Pending[] = [];
    let n = 0;
    while (this.pending.length && (n === 0 || n + this.pending[0].events.length <= this.opts.batchMaxEvents)) {
      const p = this.pending.shift()!;
      batch.push(p);
      n += p.events.length;
    }
    try {
      const raw = batch.flatMap((p) => p.events);
      // Before the write: map lookups must not hold it (PGlite has one connection).
      const events = this.symbolicator ? await this.symbolicator.symbolicate(raw) : raw;
      const workspaces = await this.workspaceSettings(events);
      const started = performance.now();
      const outcomes = await this.writer.write(this.db, events, workspaces);
      this.log.debug(
        { events: n, ms: Math.round(performance.now() - started), waiting: this.queued - n },
        'proactive: ingest batch committed',
      );
      let i = 0;
      for (const p of batch) {
        p.resolve(outcomes.slice(i, i + p.events.length));
        i += p.events.length;
      }
    } catch (err) {
      this.log.error({ err, events: n }, 'proactive: an ingest batch failed');
      for (const p of batch) p.reject(err);
    } finally {
      this.queued -= n;
    }
  }

  private async workspaceSettings(events: IncomingEvent[]): Promise<Map<string, WorkspaceProactive>> {
    const out = new Map<string, WorkspaceProactive>();
    const missing: string[] = [];
    for (const id of new Set(events.map((e) => e.workspaceId))) {
      const hit = this.settings.get(id);
      if (hit) out.set(id, hit);
      else missing.push(id);
    }
    if (missing.length) {
      const rows: Array<WorkspaceProactive & { critical_paths: string[] | string }> = await this.db('workspaces')
        .whereIn('id', missing)
        .select('id', 'proactive_enabled', 'proactive_threshold_users', 'critical_paths');
      for (const r of rows) {
        const value: WorkspaceProactive = {
          id: r.id,
          proactive_enabled: r.proactive_enabled,
          proactive_threshold_users: Number(r.proactive_threshold_users),
          critical_paths: Array.isArray(r.critical_paths)
            ? r.critical_paths
            : (JSON.parse(r.critical_paths || '[]') as string[]),
        };
        out.set(r.id, this.settings.set(r.id, value));
      }
    }
    return out;
  }
}
