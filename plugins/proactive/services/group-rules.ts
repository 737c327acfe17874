/**
 * The rules of GroupWriter's ingest statement (FLUSH in group-flush.ts), written out in plain
 * TypeScript: given the rows the statement reads and one batch, the rows it leaves behind.
 *
 * Readable over fast, and never on the ingest path: the SQL statement stays the one write path.
 * This file exists so the rules can be read in one place, and the property test
 * (plugins/proactive/test/group-writer-property.test.ts) holds the statement to it.
 *
 * Rows are keyed by group key (`workspace id \n fingerprint`) instead of the group's id, which the
 * writer draws at random; times are epoch milliseconds.
 */
import type { IncomingEvent, WorkspaceProactive } from './group-writer.js';
import { isNoise } from './group-writer.js';
import { type GroupStatus, type GroupState, type GroupsState, type BatchOutcome } from './group-rules-state.js';
// The state's types are part of this module's API: callers name them from here.
export * from './group-rules-state.js';
import {
  criticalPathHit,
  fingerprintOf,
  framesOfEvent,
  isInApp,
  normalizeMessage,
  titleOf,
  userKeyOf,
} from './grouping.js';

const HOUR = 3_600_000;
const hourOf = (ms: number) => Math.floor(ms / HOUR) * HOUR;
const key = (...parts: string[]) => parts.join('\n');

/** A release name's version padded to four numbers ('shop@v2.1' → [2,1,0,0]); null when it is no version. */
export function versionOf(release: string): number[] | null {
  const m = /^(?:[\w.-]+@)?v?(\d+(?:\.\d+){0,3})(?:[-+].*)?$/.exec(release.trim());
  if (!m) return null;
  return [...m[1].split('.').map(Number), 0, 0, 0, 0].slice(0, 4);
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

interface Fresh {
  index: number;
  groupKey: string;
  orgId: string;
  connectorId: string | null;
  source: string;
  release: string;
  environment: string | null;
  userKey: string | null;
  occurred: number;
}

/**
 * Applies one batch written at `now` with the given workspace settings. The batch is atomic: all
 * its rules see the groups as they were before it (one statement).
 */
export function applyBatch(
  before: GroupsState,
  incoming: IncomingEvent[],
  workspaces: Map<string, WorkspaceProactive>,
  now: number,
): BatchOutcome {
  const state = structuredClone(before);
  if (incoming.length === 0) return { state, outcomes: [], announced: [] };

  // Each event: its frames, fingerprint and user key; a time that is invalid or in the future is now.
  const prepared = incoming.map((e, index) => {
    const frames = framesOfEvent(e.event).map((f) => ({ ...f, in_app: isInApp(f) }));
    const t = new Date(e.event.occurred_at).getTime();
    const fingerprint = fingerprintOf({
      type: e.event.type,
      message: e.event.message,
      frames,
      fingerprint: e.event.fingerprint,
    });
    const ws = workspaces.get(e.workspaceId);
    return {
      ...e,
      index,
      frames,
      fingerprint,
      groupKey: key(e.workspaceId, fingerprint),
      userKey: userKeyOf(e.event.user),
      critical: criticalPathHit(ws?.critical_paths ?? [], e.event.url, frames),
      occurred: Number.isNaN(t) || t > now ? now : t,
      externalId: e.connectorId ? (e.event.external_id ?? null) : null,
    };
  });

  // Dedup: an event whose connector and external id are already stored (before, or earlier in the batch) is a duplicate.
  const stored = new Set(
    state.events.filter((e) => e.externalId !== null).map((e) => key(e.connectorId!, e.externalId!)),
  );
  const fresh: Fresh[] = [];
  const outcomes = prepared.map((p) => {
    const dedup = p.externalId !== null ? key(p.connectorId!, p.externalId) : null;
    if (dedup && stored.has(dedup)) return { groupKey: p.groupKey, duplicate: true };
    if (dedup) stored.add(dedup);
    fresh.push({
      index: p.index,
      groupKey: p.groupKey,
      orgId: p.orgId,
      connectorId: p.connectorId,
      source: p.source,
      release: p.event.release ?? '',
      environment: p.event.environment ?? null,
      userKey: p.userKey,
      occurred: p.occurred,
    });
    state.events.push({
      groupKey: p.groupKey,
      connectorId: p.connectorId,
      externalId: p.externalId,
      source: p.source,
      release: p.event.release ?? null,
      environment: p.event.environment ?? null,
      userKey: p.userKey,
      occurredAt: p.occurred,
      receivedAt: now,
    });
    return { groupKey: p.groupKey, duplicate: false };
  });

  // The batch's groups in their first event's order; the first event stands for a new group.
  const firstOf = new Map<string, (typeof prepared)[number]>();
  const criticalKeys = new Set<string>();
  for (const p of prepared) {
    if (!firstOf.has(p.groupKey)) firstOf.set(p.groupKey, p);
    // Any event of the batch counts here, a duplicate too.
    if (p.critical) criticalKeys.add(p.groupKey);
  }
  const prior = new Map([...firstOf.keys()].map((k) => [k, before.groups.get(k)]));

  // Users: a user new to the group counts once; a known one only moves its last seen forward.
  const newUsers = new Map<string, number>();
  for (const f of fresh) {
    if (f.userKey === null) continue;
    const k = key(f.groupKey, f.userKey);
    const u = state.users.get(k);
    if (u && !before.users.has(k)) {
      // First seen in this batch: the batch's earliest and latest time.
      u.firstSeen = Math.min(u.firstSeen, f.occurred);
      u.lastSeen = Math.max(u.lastSeen, f.occurred);
    } else if (u) {
      u.lastSeen = Math.max(u.lastSeen, f.occurred);
    } else {
      state.users.set(k, { firstSeen: f.occurred, lastSeen: f.occurred });
      newUsers.set(f.groupKey, (newUsers.get(f.groupKey) ?? 0) + 1);
    }
  }

  const regressed = regressions(before, prior, fresh);

  // Releases: counts, first/last seen, each user once per release; a regressed group's releases all watch again.
  for (const f of fresh) {
    const rk = key(f.groupKey, f.release);
    const r = state.releases.get(rk);
    let newUser = 0;
    if (f.userKey !== null && !state.releaseUsers.has(key(rk, f.userKey))) {
      state.releaseUsers.add(key(rk, f.userKey));
      newUser = 1;
    }
    if (r) {
      r.eventCount += 1;
      r.affectedUsers += newUser;
      r.firstSeen = Math.min(r.firstSeen, f.occurred);
      r.lastSeen = Math.max(r.lastSeen, f.occurred);
    } else {
      state.releases.set(rk, {
        status: 'watching',
        eventCount: 1,
        affectedUsers: newUser,
        firstSeen: f.occurred,
        lastSeen: f.occurred,
      });
    }
  }
  for (const [rk, r] of state.releases) if (regressed.has(rk.slice(0, rk.lastIndexOf('\n')))) r.status = 'watching';

  // Hourly counters: per group and hour occurred; per connector and hour received.
  for (const f of fresh) {
    const hk = key(f.groupKey, String(hourOf(f.occurred)));
    state.hours.set(hk, (state.hours.get(hk) ?? 0) + 1);
    if (f.connectorId) {
      const ck = key(f.connectorId, String(hourOf(now)));
      state.connectorHours.set(ck, (state.connectorHours.get(ck) ?? 0) + 1);
    }
  }
  // Every connector of the batch delivered now, duplicates included (events of a deleted connector touch no row).
  for (const p of prepared)
    if (p.connectorId && state.connectors.has(p.connectorId)) state.connectors.set(p.connectorId, now);

  // Groups: new ones are inserted from their first event, known ones add the batch's counts.
  const announced: BatchOutcome['announced'] = [];
  for (const [gk, first] of firstOf) {
    const mine = fresh.filter((f) => f.groupKey === gk);
    const n = mine.length;
    const users = newUsers.get(gk) ?? 0;
    const firstSeen = n > 0 ? Math.min(...mine.map((f) => f.occurred)) : first.occurred;
    const lastSeen = n > 0 ? Math.max(...mine.map((f) => f.occurred)) : first.occurred;
    // The latest event's release (batch order breaks a tie); events without one do not count.
    const withRelease = mine.filter((f) => f.release !== '');
    const latest = withRelease.reduce<Fresh | null>(
      (a, f) => (!a || f.occurred > a.occurred || (f.occurred === a.occurred && f.index > a.index) ? f : a),
      null,
    );
    const release = latest ? latest.release : null;
    const sources = [...new Set(mine.map((f) => f.source))].sort();
    const environments = [...new Set(mine.map((f) => f.environment).filter((e): e is string => e !== null))].sort();
    const critical = criticalKeys.has(gk) && n > 0;
    const ws = workspaces.get(first.workspaceId);
    const enabled = ws?.proactive_enabled ?? false;
    const threshold = ws ? ws.proactive_threshold_users : null;
    const g = state.groups.get(gk);

    if (!g) {
      const noise = isNoise(first.event.type, first.event.message, first.frames);
      const fire =
        noise || n === 0
          ? null
          : critical
            ? 'critical_path'
            : threshold !== null && users >= Math.max(1, threshold)
              ? 'user_threshold'
              : null;
      state.groups.set(gk, {
        orgId: first.orgId,
        workspaceId: first.workspaceId,
        fingerprint: first.fingerprint,
        status: 'watching',
        type: first.event.type.slice(0, 200),
        title: titleOf(first.event.type, first.event.message),
        normalizedMessage: normalizeMessage(first.event.message),
        sampleStack: first.event.stack ?? null,
        frames: first.frames.slice(0, 50),
        symbolicated: first.symbolicated === true,
        noise,
        eventCount: n,
        affectedUsers: users,
        firstSeen,
        lastSeen,
        release,
        sources,
        environments,
        trigger: fire,
        criticalPathHit: critical,
        heldReason: null,
        resolvedInRelease: null,
        resolvedAt: null,
        regressedAt: null,
        ticketId: null,
        triggeredAt: fire && enabled ? now : null,
        createdAt: now,
        updatedAt: now,
      });
      if (fire && enabled) announced.push({ groupKey: gk, trigger: fire });
      continue;
    }

    const wasLastSeen = g.lastSeen;
    g.updatedAt = now;
    // A group first seen with bundle frames takes the frames of the batch's first event once it is symbolicated.
    if (first.symbolicated === true && !g.symbolicated) g.frames = first.frames.slice(0, 50);
    g.symbolicated = g.symbolicated || first.symbolicated === true;
    g.eventCount += n;
    g.affectedUsers += users;
    if (n > 0) {
      g.firstSeen = Math.min(g.firstSeen, firstSeen);
      g.lastSeen = Math.max(g.lastSeen, lastSeen);
      g.sources = [...new Set([...g.sources, ...sources])].sort();
      g.environments = [...new Set([...g.environments, ...environments])].sort();
    }
    // The batch's release wins when the batch's last event (with or without a release) is not older than the group's.
    if (release !== null && lastSeen >= wasLastSeen) g.release = release;
    g.criticalPathHit = g.criticalPathHit || critical;

    const reg = regressed.has(gk);
    const status: GroupStatus = reg ? 'watching' : g.status;
    // Triggers: a regression always; otherwise once per watching group that has no ticket, trigger or hold.
    let fire: string | null = null;
    if (n > 0 && reg) fire = 'regression';
    else if (
      n > 0 &&
      status === 'watching' &&
      g.ticketId === null &&
      g.triggeredAt === null &&
      !g.noise &&
      g.heldReason === null
    ) {
      if (g.criticalPathHit) fire = 'critical_path';
      else if (threshold !== null && g.affectedUsers >= Math.max(1, threshold)) fire = 'user_threshold';
    }
    g.status = status;
    g.trigger = fire ?? g.trigger;
    if (reg) g.regressedAt = now;
    if (fire && enabled && !g.noise && status === 'watching') {
      g.triggeredAt = now;
      announced.push({ groupKey: gk, trigger: fire });
    } else if (reg) g.triggeredAt = null;
  }
  return { state, outcomes, announced };
}

/**
 * The resolved groups a fresh event brings back (docs/proactive.md, regression). An event
 * regresses a resolved group unless it occurred before the resolve, or its release is older than
 * the fixed one. Releases compare as versions when both are; otherwise by when the group first saw
 * each (this batch included; unknown counts as newer). No release on either side regresses.
 */
function regressions(before: GroupsState, prior: Map<string, GroupState | undefined>, fresh: Fresh[]): Set<string> {
  const firstSeen = (gk: string, release: string): number | undefined => {
    const times = fresh.filter((f) => f.groupKey === gk && f.release === release).map((f) => f.occurred);
    const known = before.releases.get(key(gk, release))?.firstSeen;
    if (known !== undefined) times.push(known);
    return times.length ? Math.min(...times) : undefined;
  };
  const out = new Set<string>();
  for (const f of fresh) {
    const g = prior.get(f.groupKey);
    if (!g || g.status !== 'resolved') continue;
    if (g.resolvedAt !== null && f.occurred < g.resolvedAt) continue;
    const fixed = g.resolvedInRelease;
    let newer: boolean;
    if (fixed === null || f.release === '' || f.release === fixed) newer = true;
    else {
      const a = versionOf(f.release);
      const b = versionOf(fixed);
      if (a && b) newer = compareVersions(a, b) >= 0;
      else {
        const sa = firstSeen(f.groupKey, f.release);
        const sb = firstSeen(f.groupKey, fixed);
        newer = sa === undefined || sb === undefined || sa >= sb;
      }
    }
    if (newer) out.add(f.groupKey);
  }
  return out;
}
