import type { Knex } from 'knex';
import { increasingId } from '../data/ids.js';
import { afterCommit, outermostTransaction, type WriteBatch } from '../data/write-batch.js';
import type { Bus, OutgoingMessage } from './bus.js';
import { backoffDelay, errorMessage, silentLog, toIso, type BusLog } from './support.js';

export interface OutboxAddOptions {
  /** Tenant of the event; null or absent for platform events. */
  orgId?: string | null;
  /** A caller-chosen message id (e.g. derived from a webhook delivery id), so that a repeated
   * request yields the same message and idempotent consumers handle it once. Default: a new time-sortable `evt_` id, increasing within the process. */
  id?: string;
}

// Routing keys are `<plugin>.<event>`: dot-separated words, no wildcards (those are for bindings).
const ROUTING_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$/;

export interface OutboxOptions {
  /** Runs after each commit of a transaction that added rows; wire it to `relay.kick()`. */
  onCommitted?: () => void;
}

/**
 * Transactional outbox: an event is written in the same transaction as the change it announces,
 * so it is published if and only if that change commits. The OutboxRelay publishes the rows.
 */
export class Outbox {
  private readonly listeners = new Set<() => void>();
  private readonly watched = new WeakSet<Knex.Transaction>();

  constructor(options: OutboxOptions = {}) {
    if (options.onCommitted) this.listeners.add(options.onCommitted);
  }

  /**
   * `listener` runs after each commit of a transaction that added rows. The kernel wires it to
   * `relay.kick()`, so events leave at once instead of at the next poll.
   */
  onCommitted(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Inserts the event in `trx` (the caller's transaction) and returns its message id. */
  async add(trx: Knex, type: string, payload: unknown, options: OutboxAddOptions = {}): Promise<string> {
    const [id] = await this.addMany(trx, [{ type, payload, ...options }]);
    return id;
  }

  /** Inserts several events in one statement in `trx`, in order; returns their message ids. */
  async addMany(trx: Knex, events: ReadonlyArray<OutboxEvent>): Promise<string[]> {
    if (events.length === 0) return [];
    const rows = outboxRows(events);
    await trx('outbox').insert(rows);
    this.notifyAfterCommit(trx);
    return rows.map((r) => r.id);
  }

  /**
   * Queues the events into a WriteBatch, written in the same statement as the change they
   * announce; the relay is kicked once the batch is committed. Returns their message ids.
   */
  queue(batch: WriteBatch, events: ReadonlyArray<OutboxEvent>): string[] {
    if (events.length === 0) return [];
    const rows = outboxRows(events);
    batch.insert('outbox', rows);
    if (this.listeners.size) batch.onCommitted(() => this.notify());
    return rows.map((r) => r.id);
  }

  /**
   * Message ids for events that a statement of the caller's writes into `outbox` itself (when
   * what they announce is decided in SQL; unused ids are simply never written). Call `written`
   * once the statement wrote any.
   */
  newIds(n: number): string[] {
    return Array.from({ length: n }, () => increasingId('evt'));
  }

  /** Rows were written into `outbox` on `db` by the caller's own statement: the relay is kicked once they are committed. */
  written(db: Knex): void {
    this.notifyAfterCommit(db);
  }

  private notifyAfterCommit(trx: Knex): void {
    if (this.listeners.size === 0) return;
    const outer = outermostTransaction(trx);
    if (!outer) return this.notify(); // autocommitted insert: already visible
    if (this.watched.has(outer)) return;
    this.watched.add(outer);
    afterCommit(outer, () => this.notify());
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

export type OutboxEvent = OutboxAddOptions & { type: string; payload: unknown };

function outboxRows(
  events: ReadonlyArray<OutboxEvent>,
): { id: string; type: string; org_id: string | null; payload: string }[] {
  return events.map(({ type, payload, id, orgId }) => {
    if (type.length > 255 || !ROUTING_KEY.test(type))
      throw new TypeError(`outbox: "${type}" is not a routing key like "plugin.event"`);
    // Stringified: pg would turn a JS array into a Postgres array, not JSON.
    const json = JSON.stringify(payload);
    if (json === undefined) throw new TypeError('outbox: payload must be JSON-serialisable');
    return { id: id ?? increasingId('evt'), type, org_id: orgId ?? null, payload: json };
  });
}

interface OutboxRow {
  id: string;
  type: string;
  org_id: string | null;
  payload: unknown;
  created_at: unknown;
  attempts: number;
}

/** What one relay pass did. */
export interface RelayPass {
  /** Rows taken (locked) by this pass. */
  selected: number;
  published: number;
  /** Rows given back with attempts+1, last_error and a later next_attempt_at. */
  deferred: number;
}

export interface OutboxRelayOptions {
  db: Knex;
  bus: Bus;
  log?: BusLog;
  /** Rows per pass (config.bus.outboxBatch). Default 200. */
  batchSize?: number;
  /** Wait between passes when there was nothing (more) to do (config.bus.outboxPollMs). Default 1000. */
  pollMs?: number;
  /** Back-off after failed publishes, the last value repeating (config.bus.backoffMs). */
  backoffMs?: number[];
}

/**
 * Publishes outbox rows: each pass locks up to `batchSize` due rows in id order
 * (`for update skip locked`, so relays in several processes take disjoint rows), publishes them
 * through the bus (which waits for the broker's confirm), marks them published and commits.
 *
 * - A failed publish keeps the row: attempts+1, last_error, next_attempt_at after back-off
 *   (the last back-off value repeats; the relay never gives up on a row).
 * - When the bus reports itself down, the pass defers the batch at once instead of waiting on
 *   the broker while holding row locks (and, on PGlite, the only connection).
 * - A crash between publish and commit publishes those rows again: at-least-once, which is why
 *   consumers are idempotent. Order is id order within one pass; retries may reorder.
 */
export class OutboxRelay {
  private readonly db: Knex;
  private readonly bus: Bus;
  private readonly log: BusLog;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly backoffMs: number[];
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  private kicked = false;

  constructor(options: OutboxRelayOptions) {
    this.db = options.db;
    this.bus = options.bus;
    this.log = options.log ?? silentLog;
    this.batchSize = Math.max(1, options.batchSize ?? 200);
    this.pollMs = Math.max(1, options.pollMs ?? 1000);
    this.backoffMs = options.backoffMs ?? [1000, 5000, 30000, 120000];
  }

  /** Starts the polling loop (idempotent). */
  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Ends the loop after the current pass (its publishes are confirmed and marked). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }

  /** Runs a pass now instead of at the next poll (call after committing outbox rows). */
  kick(): void {
    if (this.wake) this.wake();
    else this.kicked = true;
  }

  /** One pass; the loop calls it, tests and tools may too. */
  async runOnce(): Promise<RelayPass> {
    // Asked before the transaction: a bus that is down costs no locks and no waiting.
    const health = await this.bus.health();
    return this.db.transaction(async (trx) => {
      const rows = await this.lockDueRows(trx);
      if (rows.length === 0) return { selected: 0, published: 0, deferred: 0 };
      if (!health.ok) {
        await this.defer(trx, rows, new Error(`bus unavailable: ${health.detail ?? 'down'}`));
        return { selected: rows.length, published: 0, deferred: rows.length };
      }
      return this.publishRows(trx, rows);
    });
  }

  /** Deletes rows published more than `olderThanMs` ago; returns how many. */
  async purgePublished(olderThanMs: number): Promise<number> {
    // `returning` because knex-pglite reports no row count for a plain delete.
    const deleted = await this.db('outbox')
      .whereNotNull('published_at')
      .where(
        'published_at',
        '<',
        this.db.raw(`now() - (?::bigint * interval '1 millisecond')`, [Math.max(0, Math.floor(olderThanMs))]),
      )
      .del()
      .returning('id');
    return deleted.length;
  }

  private lockDueRows(trx: Knex.Transaction): Promise<OutboxRow[]> {
    return trx<OutboxRow>('outbox')
      .select('id', 'type', 'org_id', 'payload', 'created_at', 'attempts')
      .whereNull('published_at')
      .where('next_attempt_at', '<=', trx.fn.now())
      .orderBy('id')
      .limit(this.batchSize)
      .forUpdate()
      .skipLocked();
  }

  private async publishRows(trx: Knex.Transaction, rows: OutboxRow[]): Promise<RelayPass> {
    // All of the pass at once: the channel sends them in id order and the broker confirms them
    // together, instead of one round trip per row. A row whose publish failed is deferred alone;
    // with the bus down that is every row of the pass.
    const results = await Promise.allSettled(rows.map((row) => this.bus.publish(toMessage(row))));
    const published = rows.filter((_, i) => results[i].status === 'fulfilled').map((row) => row.id);
    const failed = rows.filter((_, i) => results[i].status === 'rejected');
    if (failed.length > 0) {
      const first = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
      await this.defer(trx, failed, first.reason);
    }
    if (published.length > 0) await trx('outbox').whereIn('id', published).update({ published_at: trx.fn.now() });
    return { selected: rows.length, published: published.length, deferred: failed.length };
  }

  private async defer(trx: Knex.Transaction, rows: OutboxRow[], err: unknown): Promise<void> {
    const lastError = errorMessage(err).slice(0, 1000);
    // Rows that failed equally often share a back-off: one update per attempts value.
    for (const [attempts, ids] of groupByAttempts(rows)) {
      const delay = backoffDelay(this.backoffMs, attempts + 1);
      await trx('outbox')
        .whereIn('id', ids)
        .update({
          attempts: attempts + 1,
          last_error: lastError,
          next_attempt_at: trx.raw(`now() + (?::bigint * interval '1 millisecond')`, [delay]),
        });
    }
    this.log.warn(
      { rows: rows.length, firstId: rows[0]?.id, err: lastError },
      'outbox publish failed; rows kept for a later attempt',
    );
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const pass = await this.safePass();
      if (this.stopping) break;
      // A full, clean batch means more rows are probably due: go on without waiting.
      if (pass.published === this.batchSize && pass.deferred === 0) continue;
      await this.idle(this.pollMs);
    }
  }

  private async safePass(): Promise<RelayPass> {
    try {
      const pass = await this.runOnce();
      if (pass.published > 0) this.log.debug({ published: pass.published }, 'outbox rows published');
      return pass;
    } catch (err) {
      // Database trouble: nothing was marked, the rows stay due; try again after the poll interval.
      this.log.error({ err: errorMessage(err) }, 'outbox relay pass failed');
      return { selected: 0, published: 0, deferred: 0 };
    }
  }

  private idle(ms: number): Promise<void> {
    if (this.kicked) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

function toMessage(row: OutboxRow): OutgoingMessage {
  // jsonb comes back parsed from both pg and PGlite.
  return { id: row.id, type: row.type, orgId: row.org_id, occurredAt: toIso(row.created_at), payload: row.payload };
}

function groupByAttempts(rows: OutboxRow[]): Map<number, string[]> {
  const groups = new Map<number, string[]>();
  for (const row of rows) {
    const ids = groups.get(row.attempts) ?? [];
    ids.push(row.id);
    groups.set(row.attempts, ids);
  }
  return groups;
}
