import type { Knex } from 'knex';
import type { NormalizedEvent, StackFrame } from '../../../core/contracts/index.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import { newId } from '../../../core/data/ids.js';
import { acrossOrgs, run } from '../../../core/data/statements.js';
import type { GroupTrigger } from '../models.js';
import { compareReleases, criticalPathHit, fingerprintOf, framesOfEvent, isInApp, normalizeMessage, titleOf, userKeyOf } from './grouping.js';

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
  release: string;
}

interface GroupRow {
  id: string;
  org_id: string;
  workspace_id: string;
  fingerprint: string;
  status: string;
  affected_users: number;
  resolved_in_release: string | null;
  resolved_at: Date | null;
  ticket_id: string | null;
  trigger: string | null;
  critical_path_hit: boolean;
  noise: boolean;
  held_reason: string | null;
  triggered_at: Date | null;
  sources: string[] | string;
  environments: string[] | string;
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
  return JSON.stringify(JSON.parse(json, (_k, v: unknown) => (typeof v === 'string' ? v.replace(/\u0000/g, '').replace(LONE_SURROGATE, '\ufffd') : v)));
}

/** Whether JSON.stringify wrote `\u0000` or a lone surrogate (`\ud800`–`\udfff`; pairs are written as they are). */
function needsCleaning(json: string): boolean {
  for (let i = json.indexOf('\\u'); i >= 0; i = json.indexOf('\\u', i + 2)) {
    const code = json.slice(i + 2, i + 6).toLowerCase();
    if (code === '0000' || (code[0] === 'd' && '89abcdef'.includes(code[1]!))) return true;
  }
  return false;
}

/**
 * The statement of GroupWriter.store, prepared once per connection (its plan costs more than a
 * small batch's execution). Values: now ×2, groups JSON, now, events JSON, now ×2, connector ids.
 */
const STORE = acrossOrgs('an ingest batch holds events of many organizations', `
with g as (
  insert into error_groups as eg (id, org_id, workspace_id, fingerprint, status, type, title, normalized_message, sample_stack, frames, symbolicated, noise, first_seen, last_seen, release, created_at, updated_at)
  select x.id, x.org_id, x.workspace_id, x.fingerprint, 'watching', x.type, x.title, x.normalized_message, x.sample_stack, x.frames, x.symbolicated, x.noise, x.first_seen, x.first_seen, x.release, $1::timestamptz, $2::timestamptz
  from json_to_recordset($3::json) as x(id text, org_id text, workspace_id text, fingerprint text, type text, title text, normalized_message text, sample_stack text, frames jsonb, symbolicated boolean, noise boolean, first_seen timestamptz, release text)
  on conflict (workspace_id, fingerprint) do update set
    updated_at = excluded.updated_at,
    -- A group first seen with bundle frames takes the original frames of its first symbolicated event.
    frames = case when excluded.symbolicated and not eg.symbolicated then excluded.frames else eg.frames end,
    symbolicated = eg.symbolicated or excluded.symbolicated
  returning eg.id, eg.org_id, eg.workspace_id, eg.fingerprint, eg.status, eg.affected_users, eg.resolved_in_release, eg.resolved_at, eg.ticket_id,
    eg.trigger, eg.critical_path_hit, eg.noise, eg.held_reason, eg.triggered_at, eg.sources, eg.environments
), e as (
  insert into error_events (id, org_id, workspace_id, group_id, connector_id, source, external_id, type, level, message, stack, frames, symbolicated, url, browser, release, environment, "user", user_key, occurred_at, received_at)
  select v.id, v.org_id, v.workspace_id, g.id, v.connector_id, v.source, v.external_id, v.type, v.level, v.message, v.stack, v.frames, v.symbolicated, v.url, v.browser, v.release, v.environment, v."user", v.user_key, v.occurred_at, $4::timestamptz
  from json_to_recordset($5::json) as v(id text, org_id text, workspace_id text, fingerprint text, connector_id text, source text, external_id text, type text, level text, message text, stack text,
    frames jsonb, symbolicated boolean, url text, browser jsonb, release text, environment text, "user" jsonb, user_key text, occurred_at timestamptz)
  join g on g.workspace_id = v.workspace_id and g.fingerprint = v.fingerprint
  on conflict (connector_id, external_id) where external_id is not null do nothing
  returning id, group_id, org_id, coalesce(release, '') as release, user_key, occurred_at
), u as (
  insert into error_group_users (group_id, user_key, org_id, first_seen, last_seen)
  select group_id, user_key, min(org_id), min(occurred_at), max(occurred_at) from e where user_key is not null
  group by group_id, user_key order by group_id, user_key
  on conflict (group_id, user_key) do update set last_seen = greatest(error_group_users.last_seen, excluded.last_seen)
  returning group_id, (xmax = 0) as inserted
), r as (
  insert into error_group_releases (group_id, release, org_id, status, event_count, first_seen, last_seen)
  select group_id, release, min(org_id), 'watching', count(*), min(occurred_at), max(occurred_at) from e
  group by group_id, release order by group_id, release
  on conflict (group_id, release) do update set event_count = error_group_releases.event_count + excluded.event_count,
    first_seen = least(error_group_releases.first_seen, excluded.first_seen), last_seen = greatest(error_group_releases.last_seen, excluded.last_seen)
  returning 1
), h as (
  insert into error_group_hours (group_id, hour, org_id, count)
  select group_id, date_bin('1 hour', occurred_at, timestamptz '1970-01-01 00:00:00+00'), min(org_id), count(*) from e
  group by 1, 2 order by 1, 2
  on conflict (group_id, hour) do update set count = error_group_hours.count + excluded.count
  returning 1
), c as (
  update connectors set last_delivery_at = $6::timestamptz, last_activity_at = $7::timestamptz where id = any($8::text[])
  returning 1
)
select coalesce((select json_agg(g) from g), '[]'::json) as groups,
  coalesce((select array_agg(e.id) from e), '{}'::text[]) as inserted,
  coalesce((select json_object_agg(s.group_id, s.n) from (select group_id, count(*)::int as n from u where inserted group by group_id) s), '{}'::json) as new_users`);

/** The counts of a batch's fresh events, added to their groups with the rule outcomes (prepared once per connection). */
const COUNT = acrossOrgs('an ingest batch holds events of many organizations', `
  update error_groups g set
    event_count = g.event_count + v.n, affected_users = g.affected_users + v.users,
    first_seen = least(g.first_seen, v.f), last_seen = greatest(g.last_seen, v.l),
    release = case when v.rel is not null and v.l >= g.last_seen then v.rel else g.release end,
    sources = v.src::jsonb, environments = v.env::jsonb, status = v.st, trigger = v.trg, critical_path_hit = v.crit,
    regressed_at = coalesce(v.reg, g.regressed_at), triggered_at = case when v.reg is not null then v.tat else coalesce(v.tat, g.triggered_at) end,
    updated_at = $1
  from unnest($2::text[], $3::int[], $4::int[], $5::timestamptz[], $6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::boolean[], $13::timestamptz[], $14::timestamptz[])
    as v(id, n, users, f, l, rel, src, env, st, trg, crit, reg, tat)
  where g.id = v.id`);

const jsonArray = (v: string[] | string): string[] => (Array.isArray(v) ? v : (JSON.parse(v) as string[]));

/**
 * Writes a batch of events in one transaction with a handful of multi-row statements: upserts
 * (and so locks) their groups in a fixed order, stores the events (deduplicated by connector and
 * external id), adds counts per group, release, user and hour, and applies regression and
 * trigger rules. A trigger that may open a proactive ticket is announced through the outbox
 * (`proactive.group_triggered`) in the same transaction; a consumer opens the ticket.
 */
export class GroupWriter {
  private readonly touched = new Map<string, number>();

  constructor(private readonly outbox: Outbox) {}

  async write(trx: Knex, incoming: IncomingEvent[], workspaces: Map<string, WorkspaceProactive>, now = new Date()): Promise<WriteOutcome[]> {
    if (incoming.length === 0) return [];
    const prepared: Prepared[] = incoming.map((e) => {
      const frames = framesOfEvent(e.event).map((f) => ({ ...f, in_app: isInApp(f) }));
      const ws = workspaces.get(e.workspaceId);
      const occurred = new Date(e.event.occurred_at);
      return {
        ...e,
        id: newId('evt'),
        frames,
        fingerprint: fingerprintOf({ type: e.event.type, message: e.event.message, frames, fingerprint: e.event.fingerprint }),
        userKey: userKeyOf(e.event.user),
        critical: criticalPathHit(ws?.critical_paths ?? [], e.event.url, frames),
        occurred: Number.isNaN(occurred.getTime()) || occurred > now ? now : occurred,
        release: e.event.release ?? '',
      };
    });

    const { groups, inserted, newUsers } = await this.store(trx, prepared, now);
    const fresh = prepared.filter((p) => inserted.has(p.id));
    if (fresh.length) await this.count(trx, fresh, groups, newUsers, workspaces, now);
    return prepared.map((p) => ({ groupId: groups.get(`${p.workspaceId}\n${p.fingerprint}`)!.id, duplicate: !inserted.has(p.id) }));
  }

  /**
   * One statement (one round trip): upserts (and so locks) the batch's groups in a fixed order,
   * stores the events (duplicates by connector and external id skipped), adds the counts per
   * release, user and hour of the events it stored, and touches the connectors. Rows travel as
   * one JSON array per table (`json_to_recordset`): far cheaper to build than a multi-row
   * VALUES list with a bind parameter per column and row.
   */
  private async store(trx: Knex, prepared: Prepared[], now: Date): Promise<{ groups: Map<string, GroupRow>; inserted: Set<string>; newUsers: Map<string, number> }> {
    const firstOf = new Map<string, Prepared>();
    for (const p of prepared) {
      const key = `${p.workspaceId}\n${p.fingerprint}`;
      if (!firstOf.has(key)) firstOf.set(key, p);
    }
    // A fixed order, so two batches locking the same groups never deadlock.
    const reps = [...firstOf.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
    const groupRows = reps.map((p) => ({
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
      release: p.release || null,
    }));
    const eventRows = prepared.map((p) => ({
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
    }));
    // Delivery times are kept to the second: a busy connector is touched once a second, not per batch.
    const connectorIds = [...new Set(prepared.map((p) => p.connectorId).filter((c): c is string => !!c))].filter((id) => (this.touched.get(id) ?? 0) < now.getTime() - 1_000);
    const at = now.toISOString();
    const rows = await run<{ groups: GroupRow[]; inserted: string[]; new_users: Record<string, number> }>(trx, STORE, [at, at, jsonParam(groupRows), at, jsonParam(eventRows), at, at, connectorIds]);
    for (const id of connectorIds) this.touched.set(id, now.getTime());
    if (this.touched.size > 10_000) this.touched.clear();
    const row = rows[0]!;
    return {
      groups: new Map(row.groups.map((g) => [`${g.workspace_id}\n${g.fingerprint}`, g])),
      inserted: new Set(row.inserted),
      newUsers: new Map(Object.entries(row.new_users).map(([k, v]) => [k, Number(v)])),
    };
  }

  /** Adds the batch's fresh events to their groups and applies the regression and trigger rules. */
  private async count(trx: Knex, fresh: Prepared[], groups: Map<string, GroupRow>, newUsers: Map<string, number>, workspaces: Map<string, WorkspaceProactive>, now: Date): Promise<void> {
    interface Agg {
      group: GroupRow;
      n: number;
      first: Date;
      last: Date;
      lastRelease: { at: Date; release: string } | null;
      sources: Set<string>;
      environments: Set<string>;
      critical: boolean;
      events: Prepared[];
    }
    const aggs = new Map<string, Agg>();
    for (const p of fresh) {
      const g = groups.get(`${p.workspaceId}\n${p.fingerprint}`)!;
      let a = aggs.get(g.id);
      if (!a) {
        a = { group: g, n: 0, first: p.occurred, last: p.occurred, lastRelease: null, sources: new Set(jsonArray(g.sources)), environments: new Set(jsonArray(g.environments)), critical: false, events: [] };
        aggs.set(g.id, a);
      }
      a.n++;
      if (p.occurred < a.first) a.first = p.occurred;
      if (p.occurred > a.last) a.last = p.occurred;
      if (p.release && (!a.lastRelease || p.occurred >= a.lastRelease.at)) a.lastRelease = { at: p.occurred, release: p.release };
      a.sources.add(p.source);
      if (p.event.environment) a.environments.add(p.event.environment);
      a.critical ||= p.critical;
      a.events.push(p);
    }

    // Regression: a resolved group seen again, unless every new event is from a release older than the fix.
    const resolvedIds = [...aggs.values()].filter((a) => a.group.status === 'resolved').map((a) => a.group.id);
    const firstSeenOf = new Map<string, Map<string, number>>();
    if (resolvedIds.length) {
      const rows = (await trx('error_group_releases').whereIn('group_id', resolvedIds).select('group_id', 'release', 'first_seen')) as Array<{ group_id: string; release: string; first_seen: Date }>;
      for (const r of rows) {
        const m = firstSeenOf.get(r.group_id) ?? new Map<string, number>();
        m.set(r.release, new Date(r.first_seen).getTime());
        firstSeenOf.set(r.group_id, m);
      }
    }

    const updates: Array<{ id: string; n: number; users: number; first: Date; last: Date; release: string | null; sources: string; environments: string; status: string; trigger: string | null; critical: boolean; regressed: Date | null; triggered: Date | null }> = [];
    const triggered: Array<{ orgId: string; groupId: string; workspaceId: string; trigger: GroupTrigger }> = [];
    for (const a of aggs.values()) {
      const g = a.group;
      const ws = workspaces.get(g.workspace_id);
      let status = g.status;
      let trigger = g.trigger as GroupTrigger | null;
      let regressed: Date | null = null;
      let fire: GroupTrigger | null = null;
      if (status === 'resolved' && this.regresses(g, a.events, firstSeenOf.get(g.id))) {
        status = 'watching';
        trigger = 'regression';
        regressed = now;
        fire = 'regression';
      }
      const affected = g.affected_users + (newUsers.get(g.id) ?? 0);
      const critical = g.critical_path_hit || a.critical;
      if (status === 'watching' && !fire && !g.ticket_id && !g.triggered_at && !g.noise && !g.held_reason) {
        if (critical) fire = 'critical_path';
        else if (ws && affected >= Math.max(1, ws.proactive_threshold_users)) fire = 'user_threshold';
        if (fire) trigger = fire;
      }
      let triggeredAt: Date | null = null;
      if (fire && ws?.proactive_enabled && !g.noise && status === 'watching') {
        triggeredAt = now;
        triggered.push({ orgId: g.org_id, groupId: g.id, workspaceId: g.workspace_id, trigger: fire });
      }
      updates.push({
        id: g.id,
        n: a.n,
        users: newUsers.get(g.id) ?? 0,
        first: a.first,
        last: a.last,
        release: a.lastRelease?.release ?? null,
        sources: JSON.stringify([...a.sources].sort()),
        environments: JSON.stringify([...a.environments].sort()),
        status,
        trigger,
        critical,
        regressed,
        triggered: triggeredAt,
      });
    }
    updates.sort((a, b) => (a.id < b.id ? -1 : 1));
    await run(trx, COUNT, [
      now.toISOString(),
      updates.map((u) => u.id), updates.map((u) => u.n), updates.map((u) => u.users), updates.map((u) => u.first.toISOString()), updates.map((u) => u.last.toISOString()),
      updates.map((u) => u.release), updates.map((u) => u.sources), updates.map((u) => u.environments), updates.map((u) => u.status), updates.map((u) => u.trigger),
      updates.map((u) => u.critical), updates.map((u) => u.regressed?.toISOString() ?? null), updates.map((u) => u.triggered?.toISOString() ?? null),
    ]);
    const regressedIds = updates.filter((u) => u.regressed).map((u) => u.id);
    if (regressedIds.length) await trx('error_group_releases').whereIn('group_id', regressedIds).update({ status: 'watching' });
    for (const t of triggered) {
      await this.outbox.add(trx, 'proactive.group_triggered', { group_id: t.groupId, workspace_id: t.workspaceId, trigger: t.trigger }, { orgId: t.orgId });
    }
  }

  /** Whether new events of a resolved group are a regression (see docs/proactive.md). */
  private regresses(g: GroupRow, events: Prepared[], firstSeen: Map<string, number> | undefined): boolean {
    const resolvedAt = g.resolved_at ? new Date(g.resolved_at).getTime() : 0;
    return events.some((e) => {
      if (e.occurred.getTime() < resolvedAt) return false; // late delivery of an event from before the resolve
      if (!g.resolved_in_release || !e.release) return true;
      return compareReleases(e.release, g.resolved_in_release, (r) => firstSeen?.get(r)) >= 0;
    });
  }
}
