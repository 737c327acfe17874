import type { Knex } from 'knex';
import type { NormalizedEvent, StackFrame } from '../../../core/contracts/index.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import { newId } from '../../../core/data/ids.js';
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

const hourOf = (d: Date) => new Date(Math.floor(d.getTime() / 3_600_000) * 3_600_000);
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

    const groups = await this.upsertGroups(trx, prepared, now);
    const inserted = await this.insertEvents(trx, prepared, groups, now);
    const fresh = prepared.filter((p) => inserted.has(p.id));
    if (fresh.length) await this.count(trx, fresh, groups, workspaces, now);
    // Delivery times are kept to the second: a busy connector is touched once a second, not per batch.
    const connectorIds = [...new Set(prepared.map((p) => p.connectorId).filter((c): c is string => !!c))].filter((id) => (this.touched.get(id) ?? 0) < now.getTime() - 1_000);
    if (connectorIds.length) {
      await trx('connectors').whereIn('id', connectorIds).update({ last_delivery_at: now, last_activity_at: now });
      for (const id of connectorIds) this.touched.set(id, now.getTime());
      if (this.touched.size > 10_000) this.touched.clear();
    }
    return prepared.map((p) => ({ groupId: groups.get(`${p.workspaceId}\n${p.fingerprint}`)!.id, duplicate: !inserted.has(p.id) }));
  }

  private async upsertGroups(trx: Knex, prepared: Prepared[], now: Date): Promise<Map<string, GroupRow>> {
    const firstOf = new Map<string, Prepared>();
    for (const p of prepared) {
      const key = `${p.workspaceId}\n${p.fingerprint}`;
      if (!firstOf.has(key)) firstOf.set(key, p);
    }
    // A fixed order, so two batches locking the same groups never deadlock.
    const reps = [...firstOf.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
    const rows = reps.map((p) => ({
      id: newId('eg'),
      org_id: p.orgId,
      workspace_id: p.workspaceId,
      fingerprint: p.fingerprint,
      status: 'watching',
      type: p.event.type.slice(0, 200),
      title: titleOf(p.event.type, p.event.message),
      normalized_message: normalizeMessage(p.event.message),
      sample_stack: p.event.stack ?? null,
      frames: JSON.stringify(p.frames.slice(0, 50)),
      symbolicated: p.symbolicated === true,
      noise: isNoise(p.event.type, p.event.message, p.frames),
      first_seen: p.occurred,
      last_seen: p.occurred,
      release: p.release || null,
      created_at: now,
      updated_at: now,
    }));
    const result = (await trx('error_groups')
      .insert(rows)
      .onConflict(['workspace_id', 'fingerprint'])
      // A group first seen with bundle frames takes the original frames of its first symbolicated event.
      .merge({
        updated_at: now,
        frames: trx.raw('case when excluded.symbolicated and not error_groups.symbolicated then excluded.frames else error_groups.frames end'),
        symbolicated: trx.raw('error_groups.symbolicated or excluded.symbolicated'),
      })
      .returning([
        'id', 'org_id', 'workspace_id', 'fingerprint', 'status', 'affected_users', 'resolved_in_release', 'resolved_at', 'ticket_id',
        'trigger', 'critical_path_hit', 'noise', 'held_reason', 'triggered_at', 'sources', 'environments',
      ])) as GroupRow[];
    return new Map(result.map((g) => [`${g.workspace_id}\n${g.fingerprint}`, g]));
  }

  private async insertEvents(trx: Knex, prepared: Prepared[], groups: Map<string, GroupRow>, now: Date): Promise<Set<string>> {
    const rows = prepared.map((p) => ({
      id: p.id,
      org_id: p.orgId,
      workspace_id: p.workspaceId,
      group_id: groups.get(`${p.workspaceId}\n${p.fingerprint}`)!.id,
      connector_id: p.connectorId,
      source: p.source,
      external_id: p.connectorId ? (p.event.external_id ?? null) : null,
      type: p.event.type.slice(0, 200),
      level: p.event.level,
      message: p.event.message,
      stack: p.event.stack ?? null,
      frames: p.event.frames?.length ? JSON.stringify(p.frames) : null,
      symbolicated: p.symbolicated === true,
      url: p.event.url ?? null,
      browser: p.event.browser ? JSON.stringify(p.event.browser) : null,
      release: p.event.release ?? null,
      environment: p.event.environment ?? null,
      user: p.event.user ? JSON.stringify(p.event.user) : null,
      user_key: p.userKey,
      occurred_at: p.occurred,
      received_at: now,
    }));
    const out = (await trx('error_events')
      .insert(rows)
      .onConflict(trx.raw('(connector_id, external_id) where external_id is not null'))
      .ignore()
      .returning('id')) as Array<{ id: string }>;
    return new Set(out.map((r) => r.id));
  }

  private async count(trx: Knex, fresh: Prepared[], groups: Map<string, GroupRow>, workspaces: Map<string, WorkspaceProactive>, now: Date): Promise<void> {
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
    const releases = new Map<string, { group_id: string; org_id: string; release: string; n: number; first: Date; last: Date }>();
    const users = new Map<string, { group_id: string; org_id: string; user_key: string; first: Date; last: Date }>();
    const hours = new Map<string, { group_id: string; org_id: string; hour: Date; n: number }>();
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

      const rk = `${g.id}\n${p.release}`;
      const r = releases.get(rk);
      if (r) {
        r.n++;
        if (p.occurred < r.first) r.first = p.occurred;
        if (p.occurred > r.last) r.last = p.occurred;
      } else releases.set(rk, { group_id: g.id, org_id: p.orgId, release: p.release, n: 1, first: p.occurred, last: p.occurred });

      if (p.userKey) {
        const uk = `${g.id}\n${p.userKey}`;
        const u = users.get(uk);
        if (u) {
          if (p.occurred < u.first) u.first = p.occurred;
          if (p.occurred > u.last) u.last = p.occurred;
        } else users.set(uk, { group_id: g.id, org_id: p.orgId, user_key: p.userKey, first: p.occurred, last: p.occurred });
      }

      const hour = hourOf(p.occurred);
      const hk = `${g.id}\n${hour.getTime()}`;
      const h = hours.get(hk);
      if (h) h.n++;
      else hours.set(hk, { group_id: g.id, org_id: p.orgId, hour, n: 1 });
    }

    // Users, releases and hours in one round trip (data-modifying CTEs); rows in a fixed order.
    const userRows = [...users.values()].sort((a, b) => (a.group_id + a.user_key < b.group_id + b.user_key ? -1 : 1));
    const relRows = [...releases.values()].sort((a, b) => (a.group_id + a.release < b.group_id + b.release ? -1 : 1));
    const hourRows = [...hours.values()].sort((a, b) => (a.group_id < b.group_id ? -1 : a.group_id > b.group_id ? 1 : a.hour.getTime() - b.hour.getTime()));
    const res = (await trx.raw(
      `with u as (
         insert into error_group_users (group_id, user_key, org_id, first_seen, last_seen)
         select * from unnest(?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::timestamptz[])
         on conflict (group_id, user_key) do update set last_seen = greatest(error_group_users.last_seen, excluded.last_seen)
         returning group_id, (xmax = 0) as inserted
       ), r as (
         insert into error_group_releases (group_id, release, org_id, status, event_count, first_seen, last_seen)
         select g, r, o, 'watching', n, f, l from unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::timestamptz[], ?::timestamptz[]) as v(g, r, o, n, f, l)
         on conflict (group_id, release) do update set event_count = error_group_releases.event_count + excluded.event_count,
           first_seen = least(error_group_releases.first_seen, excluded.first_seen), last_seen = greatest(error_group_releases.last_seen, excluded.last_seen)
         returning 1
       ), h as (
         insert into error_group_hours (group_id, hour, org_id, count)
         select * from unnest(?::text[], ?::timestamptz[], ?::text[], ?::int[])
         on conflict (group_id, hour) do update set count = error_group_hours.count + excluded.count
         returning 1
       )
       select u.group_id, count(*)::int as n from u where u.inserted group by u.group_id
       union all select null, ((select count(*) from r) + (select count(*) from h))::int`,
      [
        userRows.map((r) => r.group_id), userRows.map((r) => r.user_key), userRows.map((r) => r.org_id), userRows.map((r) => r.first.toISOString()), userRows.map((r) => r.last.toISOString()),
        relRows.map((r) => r.group_id), relRows.map((r) => r.release), relRows.map((r) => r.org_id), relRows.map((r) => r.n), relRows.map((r) => r.first.toISOString()), relRows.map((r) => r.last.toISOString()),
        hourRows.map((r) => r.group_id), hourRows.map((r) => r.hour.toISOString()), hourRows.map((r) => r.org_id), hourRows.map((r) => r.n),
      ],
    )) as { rows: Array<{ group_id: string | null; n: number }> };
    const newUsers = new Map<string, number>();
    for (const r of res.rows) if (r.group_id) newUsers.set(r.group_id, Number(r.n));

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
    await trx.raw(
      `update error_groups g set
         event_count = g.event_count + v.n, affected_users = g.affected_users + v.users,
         first_seen = least(g.first_seen, v.f), last_seen = greatest(g.last_seen, v.l),
         release = case when v.rel is not null and v.l >= g.last_seen then v.rel else g.release end,
         sources = v.src::jsonb, environments = v.env::jsonb, status = v.st, trigger = v.trg, critical_path_hit = v.crit,
         regressed_at = coalesce(v.reg, g.regressed_at), triggered_at = case when v.reg is not null then v.tat else coalesce(v.tat, g.triggered_at) end,
         updated_at = ?
       from unnest(?::text[], ?::int[], ?::int[], ?::timestamptz[], ?::timestamptz[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::boolean[], ?::timestamptz[], ?::timestamptz[])
         as v(id, n, users, f, l, rel, src, env, st, trg, crit, reg, tat)
       where g.id = v.id`,
      [
        now.toISOString(),
        updates.map((u) => u.id), updates.map((u) => u.n), updates.map((u) => u.users), updates.map((u) => u.first.toISOString()), updates.map((u) => u.last.toISOString()),
        updates.map((u) => u.release), updates.map((u) => u.sources), updates.map((u) => u.environments), updates.map((u) => u.status), updates.map((u) => u.trigger),
        updates.map((u) => u.critical), updates.map((u) => u.regressed?.toISOString() ?? null), updates.map((u) => u.triggered?.toISOString() ?? null),
      ] as unknown as readonly Knex.RawBinding[],
    );
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
