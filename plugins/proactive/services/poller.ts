import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { CONNECTOR_TEST_CODES, isAdapterError, type ConnectorAdapter } from '../../../core/contracts/index.js';
import { Connector } from '../models.js';
import type { ConnectorService } from './connectors.js';
import { maskText } from './grouping.js';
import type { IngestQueue } from './ingest-queue.js';

/** How often the scheduler looks for connectors due (`proactive.poll-connectors`). */
export const POLL_SWEEP_MS = 5_000;

export interface PollerOptions {
  /** Connectors polled per sweep (the rest wait for the next sweep, oldest due first). */
  batch: number;
  /** First back-off after a failed poll; doubles per consecutive failure. */
  backoffBaseMs: number;
  /** Longest back-off. */
  backoffMaxMs: number;
  /** Shortest interval between two polls of one connector, whatever the adapter asks. */
  minIntervalMs: number;
}

export const DEFAULT_POLLER_OPTIONS: PollerOptions = {
  batch: 20,
  backoffBaseMs: 30_000,
  backoffMaxMs: 3_600_000,
  minIntervalMs: 1_000,
};

export interface PollOutcome {
  connectorId: string;
  ok: boolean;
  events: number;
  code?: string;
}

/**
 * The polling scheduler: every sweep (on the elected scheduler only) it takes connectors of
 * polling kinds whose `next_poll_at` is due and which are not paused, asks their adapter for the
 * events after the stored cursor, commits them through the ingest queue (grouped like any push),
 * and only then stores the new cursor and the next time. A failure keeps the cursor, sets
 * `status error` with `last_error_code`/`last_error`, and backs off exponentially
 * (30 s, 1 min, 2 min … 1 h); the next good poll sets `active` again. A connector paused while
 * it was being polled stays paused (the status is only changed where it is not paused).
 */
export class ConnectorPoller {
  private readonly o: PollerOptions;

  constructor(
    private readonly d: {
      db: Knex;
      queue: Pick<IngestQueue, 'submit'>;
      connectors: () => ConnectorService;
      adapters: () => readonly ConnectorAdapter[];
      log: Logger;
    },
    options: Partial<PollerOptions> = {},
  ) {
    this.o = { ...DEFAULT_POLLER_OPTIONS, ...options };
  }

  /** One sweep: polls every due connector (up to `batch`), one after the other. */
  async runOnce(now = new Date()): Promise<PollOutcome[]> {
    const kinds = this.d
      .adapters()
      .filter((a) => a.polls)
      .map((a) => a.kind);
    if (!kinds.length) return [];
    const due = await Connector.query(this.d.db)
      .acrossOrgs("polling scheduler: every organization's due connectors")
      .whereIn('kind', kinds)
      .whereNot('status', 'paused')
      .whereNotNull('next_poll_at')
      .where('next_poll_at', '<=', now)
      .orderBy('next_poll_at')
      .orderBy('id')
      .limit(this.o.batch);
    const out: PollOutcome[] = [];
    for (const c of due) out.push(await this.pollOne(c));
    return out;
  }

  private async pollOne(c: Connector): Promise<PollOutcome> {
    const adapter = this.d.adapters().find((a) => a.kind === c.kind);
    if (!adapter?.poll) return { connectorId: c.id, ok: true, events: 0 };
    try {
      const result = await adapter.poll(this.d.connectors().settingsOf(c), c.cursor);
      if (result.events.length) {
        await this.d.queue.submit(
          result.events.map((event) => ({
            orgId: c.org_id,
            workspaceId: c.workspace_id,
            connectorId: c.id,
            source: c.kind,
            event,
          })),
        );
      }
      const now = new Date();
      const next = new Date(now.getTime() + Math.max(this.o.minIntervalMs, result.nextPollInMs));
      await this.d.db.transaction(async (trx) => {
        await trx('connectors').where({ id: c.id }).update({ cursor: result.cursor, last_activity_at: now });
        await trx('connectors').where({ id: c.id }).whereNot('status', 'paused').update({
          status: 'active',
          next_poll_at: next,
          error_count: 0,
          last_error_code: null,
          last_error: null,
        });
      });
      return { connectorId: c.id, ok: true, events: result.events.length };
    } catch (err) {
      const rawCode = isAdapterError(err) ? err.code : 'provider_error';
      const code = (CONNECTOR_TEST_CODES as readonly string[]).includes(rawCode) ? rawCode : 'provider_error';
      // An overloaded ingest queue is ours, not the provider's: retry soon without an error status.
      if ((err as { output?: { statusCode?: number } }).output?.statusCode === 429) {
        await this.d
          .db('connectors')
          .where({ id: c.id })
          .whereNot('status', 'paused')
          .update({ next_poll_at: new Date(Date.now() + this.o.backoffBaseMs) });
        return { connectorId: c.id, ok: false, events: 0, code: 'rate_limited' };
      }
      const failures = (c.error_count ?? 0) + 1;
      const delay = Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** Math.min(failures - 1, 20));
      const now = new Date();
      await this.d
        .db('connectors')
        .where({ id: c.id })
        .whereNot('status', 'paused')
        .update({
          status: 'error',
          error_count: failures,
          last_error_code: code,
          last_error: maskText(String((err as Error).message ?? err)).slice(0, 300),
          next_poll_at: new Date(now.getTime() + delay),
          last_activity_at: now,
          updated_at: now,
        });
      this.d.log.info({ connector_id: c.id, code, failures, retry_in_ms: delay }, 'proactive: connector poll failed');
      return { connectorId: c.id, ok: false, events: 0, code };
    }
  }
}
