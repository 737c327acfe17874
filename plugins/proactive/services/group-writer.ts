import type { Knex } from 'knex';
import type { NormalizedEvent, StackFrame } from '../../../core/contracts/index.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import { increasingId, newId } from '../../../core/data/ids.js';
import { run } from '../../../core/data/statements.js';
import { outermostTransaction } from '../../../core/data/write-batch.js';
import {
  criticalPathHit,
  fingerprintOf,
  framesOfEvent,
  isInApp,
  normalizeMessage,
  titleOf,
  userKeyOf,
} from './grouping.js';
import { FLUSH, type FlushRow } from './group-flush.js';

export type EventSource = 'widget' | 'error_tracker' | 'metrics_platform' | 'cloud_logs' | 'endpoint';

/** What the ingest paths hand the writer: one normalised event and where it came from. */
export interface IncomingEvent {
  orgId: string;
  workspaceId: string;
  connectorId: string | null;
  source: EventSource;
  event: NormalizedEvent;
  /** Set by the symbolicator when at least one frame was mapped through a source map. */
  symbolicated?: boolean;
}

/** The grouping settings of a workspace (cached by the ingest queue). */
export interface WorkspaceProactive {
  id: string;
  proactive_enabled: boolean;
  proactive_threshold_users: number;
  critical_paths: string[];
}

export interface WriteOutcome {
  groupId: string;
  duplicate: boolean;
}

interface Prepared extends IncomingEvent {
  id: string;
  frames: StackFrame[];
  fingerprint: string;
  userKey: string | null;
  critical: boolean;
  occurred: Date;
}

const NOISE = [
  /^ResizeObserver loop/i,
  /^Script error\.?$/i,
  /^(Network ?Error|Failed to fetch|Load failed|NetworkError when attempting to fetch resource\.?)$/i,
  /^(AbortError|The (operation|user) (was )?abort(ed)?)/i,
  /^Non-Error promise rejection captured/i,
];

/** Whether a group is noise: browser chatter that never says anything about the product's code. */
export function isNoise(type: string, message: string, frames: StackFrame[]): boolean {
  if (NOISE.some((r) => r.test(message.trim()) || r.test(type))) return true;
  return frames.length > 0 && frames.every((f) => /^(chrome|moz|safari(-web)?)-extension:/.test(f.file));
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Rows as one JSON text for `json_to_recordset`. Postgres refuses NUL characters and lone UTF-16
 * surrogates in text and JSON; such characters (rare, from broken clients) are dropped or
 * replaced, so one odd event never fails the batch it shares with others.
 */
export function jsonParam(rows: unknown[]): string {
  const json = JSON.stringify(rows);
  if (!needsCleaning(json)) return json;
  return JSON.stringify(
    JSON.parse(json, (_k, v: unknown) =>
      typeof v === 'string' ? v.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\ufffd') : v,
    ),
  );
}

/** Whether JSON.stringify wrote `\u0000` or a lone surrogate (`\ud800`–`\udfff`; pairs are written as they are). */
function needsCleaning(json: string): boolean {
  for (let i = json.indexOf('\\u'); i >= 0; i = json.indexOf('\\u', i + 2)) {
    const code = json.slice(i + 2, i + 6).toLowerCase();
    if (code === '0000' || (code[0] === 'd' && '89abcdef'.includes(code[1]))) return true;
  }
  return false;
}

/** Postgres refused the statement for a reason that a second run, on a fresh snapshot, does not meet. */
const RETRIED = new Set(['23503', '40P01']); // foreign key (a group two batches created at once), deadlock
const ATTEMPTS = 3;

/**
 * Writes a batch of events as one statement (FLUSH): groups them, stores them (deduplicated by
 * connector and external id), adds the counts per group, release, user and hour, applies the
 * regression and trigger rules, and announces each trigger that may open a proactive ticket
 * through the outbox (`proactive.group_triggered`); a consumer opens the ticket. Each group row
 * gets one new version per batch.
 */
export class GroupWriter {
  private readonly touched = new Map<string, number>();

  constructor(private readonly outbox: Outbox) {}

  /** Writes the batch on `db` (the pool; or a caller's transaction, which then holds it). */
  async write(
    db: Knex,
    incoming: IncomingEvent[],
    workspaces: Map<string, WorkspaceProactive>,
    now = new Date(),
  ): Promise<WriteOutcome[]> {
    if (incoming.length === 0) return [];
    const prepared = incoming.map((e) => prepare(e, workspaces, now));
    // Delivery times are kept to the second: a busy connector is touched once a second, not per batch.
    const connectorIds = [...new Set(prepared.map((p) => p.connectorId).filter((c): c is string => !!c))].filter(
      (id) => (this.touched.get(id) ?? 0) < now.getTime() - 1_000,
    );
    const values = [
      now.toISOString(),
      jsonParam(this.groupRows(prepared, workspaces)),
      jsonParam(prepared.map(eventRow)),
      connectorIds,
    ];
    // Only ids and group keys wait for Postgres with the statement: what a batch holds while it
    // waits outlives a scavenge and is copied (bench/results/2026-11-26-ingest-tuning.md, session 9).
    const keys = prepared.map((p) => [p.id, `${p.workspaceId}\n${p.fingerprint}`] as const);
    const row = await this.flush(db, values);
    for (const id of connectorIds) this.touched.set(id, now.getTime());
    if (this.touched.size > 10_000) this.touched.clear();
    if (row.announced > 0) this.outbox.written(db);

    const groups = new Map(row.groups.map(([workspaceId, fingerprint, id]) => [`${workspaceId}\n${fingerprint}`, id]));
    const inserted = new Set(row.inserted);
    return keys.map(([id, key]) => ({ groupId: groups.get(key)!, duplicate: !inserted.has(id) }));
  }

  /** Runs FLUSH, again when Postgres refused it for a reason a fresh snapshot does not meet (RETRIED). */
  private async flush(db: Knex, values: unknown[]): Promise<FlushRow> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await run<FlushRow>(db, FLUSH, values))[0];
      } catch (err) {
        // In a caller's transaction the refusal ended the transaction: the caller runs it again.
        if (attempt >= ATTEMPTS || outermostTransaction(db) || !RETRIED.has((err as { code?: string }).code ?? ''))
          throw err;
      }
    }
  }

  /** One row per group of the batch (its first event stands for it), with what the rules need. */
  private groupRows(prepared: Prepared[], workspaces: Map<string, WorkspaceProactive>): Record<string, unknown>[] {
    const firstOf = new Map<string, Prepared>();
    const critical = new Set<string>();
    for (const p of prepared) {
      const key = `${p.workspaceId}\n${p.fingerprint}`;
      if (!firstOf.has(key)) firstOf.set(key, p);
      if (p.critical) critical.add(key);
    }
    return [...firstOf.entries()].map(([key, p]) => {
      const ws = workspaces.get(p.workspaceId);
      return {
        id: newId('eg'),
        org_id: p.orgId,
        workspace_id: p.workspaceId,
        fingerprint: p.fingerprint,
        type: p.event.type.slice(0, 200),
        title: titleOf(p.event.type, p.event.message),
        normalized_message: normalizeMessage(p.event.message),
        sample_stack: p.event.stack ?? null,
        frames: p.frames.length > 50 ? p.frames.slice(0, 50) : p.frames,
        symbolicated: p.symbolicated === true,
        noise: isNoise(p.event.type, p.event.message, p.frames),
        first_seen: p.occurred.toISOString(),
        // An event of the batch touches a critical path.
        critical: critical.has(key),
        ws_enabled: ws?.proactive_enabled ?? false,
        ws_threshold: ws ? ws.proactive_threshold_users : null,
        // Only a workspace with proactive tickets on announces a trigger.
        outbox_id: ws?.proactive_enabled ? this.outbox.newIds(1)[0] : null,
      };
    });
  }
}

/** An incoming event with its frames, fingerprint, user key and critical-path hit worked out. */
function prepare(e: IncomingEvent, workspaces: Map<string, WorkspaceProactive>, now: Date): Prepared {
  const frames = framesOfEvent(e.event).map((f) => ({ ...f, in_app: isInApp(f) }));
  const occurred = new Date(e.event.occurred_at);
  return {
    ...e,
    // Increasing in batch order: of two events of a group at the same time, the later one's release is the group's.
    id: increasingId('evt'),
    frames,
    fingerprint: fingerprintOf({
      type: e.event.type,
      message: e.event.message,
      frames,
      fingerprint: e.event.fingerprint,
    }),
    userKey: userKeyOf(e.event.user),
    critical: criticalPathHit(workspaces.get(e.workspaceId)?.critical_paths ?? [], e.event.url, frames),
    occurred: Number.isNaN(occurred.getTime()) || occurred > now ? now : occurred,
  };
}

/** The row of error_events an event becomes. */
function eventRow(p: Prepared): Record<string, unknown> {
  return {
    id: p.id,
    org_id: p.orgId,
    workspace_id: p.workspaceId,
    fingerprint: p.fingerprint,
    connector_id: p.connectorId,
    source: p.source,
    external_id: p.connectorId ? (p.event.external_id ?? null) : null,
    type: p.event.type.slice(0, 200),
    level: p.event.level,
    message: p.event.message,
    stack: p.event.stack ?? null,
    frames: p.event.frames?.length ? p.frames : null,
    symbolicated: p.symbolicated === true,
    url: p.event.url ?? null,
    browser: p.event.browser ?? null,
    release: p.event.release ?? null,
    environment: p.event.environment ?? null,
    user: p.event.user ?? null,
    user_key: p.userKey,
    occurred_at: p.occurred.toISOString(),
    context: p.event.context ?? null,
  };
}
