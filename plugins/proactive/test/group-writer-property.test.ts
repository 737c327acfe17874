import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import type { Knex } from 'knex';
import { Outbox } from '../../../core/bus/outbox.js';
import { GroupWriter, type IncomingEvent, type WorkspaceProactive } from '../services/group-writer.js';
import { applyBatch, type GroupState, type GroupsState, type GroupStatus } from '../services/group-rules.js';
import { startProactive, type ProactiveHarness } from './helpers.js';

// The ingest statement (GroupWriter) against its plain-TypeScript reference (group-rules.ts):
// random histories of batches and group actions, on fresh workspaces of two organizations, must
// leave exactly the rows the reference computes from the same inputs.

let h: ProactiveHarness;
let orgs: string[] = [];
let endpointId = '';
t.before(async () => {
  h = await startProactive(t);
  const a = await h.owner();
  const b = await h.owner();
  orgs = [a.organization.id, b.organization.id];
  const ws = await h.workspace(a);
  endpointId = (await h.endpoint(a, ws.id)).id;
});

const KINDS = [
  { type: 'TypeError', message: "Cannot read properties of undefined (reading 'total') for order 42" },
  // Another number: the same group as the first.
  { type: 'TypeError', message: "Cannot read properties of undefined (reading 'total') for order 97" },
  {
    type: 'RangeError',
    message: 'Invalid array length',
    stack: 'RangeError: x\n    at pay (https://shop.example.com/static/checkout.js:3:9)',
  },
  // Noise: counted, never triggers.
  { type: 'Error', message: 'ResizeObserver loop limit exceeded' },
  { type: 'Error', message: 'explicit', fingerprint: 'checkout-timeout' },
];
const RELEASES = [undefined, '1.0.0', '1.2.0', '2.0.0', 'shop@1.10.0', 'v2', 'beta', 'nightly'];

const eventArb = fc.record({
  ws: fc.constantFrom(0, 0, 0, 1, 2),
  conn: fc.nat(2), // the organization's endpoint, a connector of this run (no row), none
  source: fc.constantFrom('endpoint', 'widget', 'error_tracker'),
  kind: fc.constantFrom(0, 0, 1, 2, 3, 4),
  release: fc.constantFrom(...RELEASES),
  environment: fc.constantFrom(undefined, 'production', 'staging'),
  user: fc.constantFrom(undefined, 'u1', 'u2', 'u3'),
  url: fc.constantFrom(undefined, 'https://shop.example.com/checkout/pay', 'https://shop.example.com/home'),
  // Minutes from the batch's time: late deliveries, out of order, now and then in the future (then now).
  offset: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: -30, max: 5 }) }, fc.integer({ min: -240, max: 10 })),
  invalidTime: fc.nat(9).map((n) => n === 0),
  externalId: fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom('x1', 'x2', 'x3', 'x4') },
  ),
  symbolicated: fc.boolean(),
  // A redelivery: an exact copy of an event sent before in this history.
  copyOf: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, fc.nat()),
});
type EventSpec = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

// A batch, then what people do to its workspace's groups before the next one.
const actionArb = fc.record({
  action: fc.constantFrom('resolve', 'resolve', 'resolve', 'ignore', 'unignore', 'ticket', 'hold'),
  release: fc.constantFrom(...RELEASES),
  target: fc.nat(),
});
const stepArb = fc.record({
  // Minutes since the step before.
  gap: fc.integer({ min: 1, max: 60 }),
  events: fc.array(eventArb, { minLength: 1, maxLength: 8 }),
  actions: fc.array(actionArb, { maxLength: 2 }),
});

const historyArb = fc.record({
  settings: fc.array(
    fc.record({
      known: fc.boolean(),
      enabled: fc.boolean(),
      threshold: fc.integer({ min: 0, max: 3 }),
      criticalPaths: fc.constantFrom([], ['/checkout']),
    }),
    { minLength: 3, maxLength: 3 },
  ),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 5 }),
});
type History = typeof historyArb extends fc.Arbitrary<infer T> ? T : never;

void t.test('the ingest statement applies exactly the rules of group-rules.ts', async (t) => {
  let runs = 0;
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(historyArb, async (history) => {
      runs++;
      await check(history);
    }),
    // FC_SEED and FC_PATH (printed with a failure) replay a failing history.
    {
      numRuns: 50,
      ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}),
    },
  );
  t.pass(`${runs} histories (shrinking included) in ${Date.now() - started} ms`);
  // What the histories went through, so a generator that stops reaching a rule shows here.
  t.comment(JSON.stringify(seen));
  // A replayed failure (FC_SEED) is one history: it need not reach every rule.
  if (!process.env.FC_SEED)
    t.ok(
      seen.regressions > 0 && seen.lateOrOlder > 0 && seen.duplicates > 0 && seen.announced > 0,
      'the histories reach the rules',
    );
});

const seen = { batches: 0, events: 0, duplicates: 0, regressions: 0, lateOrOlder: 0, announced: 0, emptyGroups: 0 };

async function check(history: History): Promise<void> {
  const db = h.app.db;
  const tag = randomBytes(4).toString('hex');
  const wsOrgs = [orgs[0], orgs[0], orgs[1]];
  const wsIds = wsOrgs.map((_, i) => `ws_prop${tag}${i}`);
  await db('workspaces').insert(
    wsIds.map((id, i) => ({ id, org_id: wsOrgs[i], name: `Prop ${i}`, slug: `prop-${tag}-${i}` })),
  );
  const connectors = [endpointId, `con_prop${tag}`, null];
  const settings = new Map<string, WorkspaceProactive>();
  history.settings.forEach((s, i) => {
    if (s.known)
      settings.set(wsIds[i], {
        id: wsIds[i],
        proactive_enabled: s.enabled,
        proactive_threshold_users: s.threshold,
        critical_paths: [...s.criticalPaths],
      });
  });

  const scope = { wsIds, connectorIds: connectors.filter((c): c is string => c !== null) };
  let model = await readState(db, scope);
  let announced: string[] = [];
  const writer = new GroupWriter(new Outbox());
  const sent: IncomingEvent[] = [];
  // Within an hour of the real clock's past, so retention never sweeps what a history wrote.
  let now = Math.floor((Date.now() - 10 * 3_600_000) / 60_000) * 60_000;

  for (const step of history.steps) {
    now += step.gap * 60_000;
    const batch = step.events.map((spec) => {
      const ev =
        spec.copyOf !== undefined && sent.length > 0
          ? sent[spec.copyOf % sent.length]
          : incoming(spec, tag, wsIds, wsOrgs, connectors, now);
      sent.push(ev);
      return ev;
    });
    // Two events of one batch with one connector and external id: the statement keeps the first, as the
    // reference does (a seed once showed the kept copy deciding the group's release); the copies are one event.
    const firstByDedup = new Map<string, IncomingEvent>();
    const written = batch.map((ev) => {
      if (!ev.connectorId || ev.event.external_id === undefined) return ev;
      const k = `${ev.connectorId}\n${ev.event.external_id}`;
      if (!firstByDedup.has(k)) firstByDedup.set(k, ev);
      return firstByDedup.get(k)!;
    });

    const expected = applyBatch(model, written, settings, now);
    const outcomes = await writer.write(db, written, settings, new Date(now));
    const ids = await groupKeys(db, wsIds);
    // Of the copies of one event in a batch, which one is stored is not set: they compare as a set.
    const byDelivery = (list: Array<{ groupKey: string | undefined; duplicate: boolean }>) => {
      const out = new Map<string, string[]>();
      list.forEach((o, i) => {
        const ev = written[i];
        const k =
          ev.connectorId && ev.event.external_id !== undefined ? `${ev.connectorId} ${ev.event.external_id}` : `#${i}`;
        out.set(k, [...(out.get(k) ?? []), `${o.groupKey} ${o.duplicate}`].sort());
      });
      return out;
    };
    assert.deepEqual(
      byDelivery(outcomes.map((o) => ({ groupKey: ids.get(o.groupId), duplicate: o.duplicate }))),
      byDelivery(expected.outcomes),
      'each event names its group and whether it was a duplicate',
    );
    seen.batches++;
    seen.events += written.length;
    seen.duplicates += expected.outcomes.filter((o) => o.duplicate).length;
    seen.announced += expected.announced.length;
    for (const [gk, g] of model.groups) {
      if (g.status !== 'resolved') continue;
      const after = expected.state.groups.get(gk)!;
      if (after.status === 'watching') seen.regressions++;
      else if (after.eventCount > g.eventCount) seen.lateOrOlder++;
    }
    seen.emptyGroups += [...expected.state.groups.values()].filter((g) => g.eventCount === 0).length;
    model = expected.state;
    announced = [...announced, ...expected.announced.map((a) => `${a.groupKey}\n${a.trigger}`)];
    const actual = await readState(db, scope);
    assert.deepEqual(plain(actual), plain(model), 'the rows the statement left are the reference ones');
    assert.deepEqual(await announcements(db, wsIds), announced.sort(), 'each trigger that fired is announced once');

    for (const a of step.actions) {
      const keys = [...model.groups.keys()].sort();
      const gk = keys[a.target % keys.length];
      const row = await db<{ id: string; workspace_id: string; fingerprint: string }>('error_groups')
        .where(splitKey(gk))
        .first('id');
      // Half a minute after the batch: the next one's late events occurred before it.
      await act(db, row!.id, model.groups.get(gk)!, model, gk, a.action, a.release ?? null, now + 30_000);
    }
  }
}

function incoming(
  spec: EventSpec,
  tag: string,
  wsIds: string[],
  wsOrgs: string[],
  connectors: Array<string | null>,
  now: number,
): IncomingEvent {
  const kind = KINDS[spec.kind];
  return {
    orgId: wsOrgs[spec.ws],
    workspaceId: wsIds[spec.ws],
    connectorId: connectors[spec.conn]!,
    source: spec.source,
    symbolicated: spec.symbolicated,
    event: {
      type: kind.type,
      message: kind.message,
      level: 'error',
      ...(kind.stack ? { stack: kind.stack } : {}),
      ...(kind.fingerprint ? { fingerprint: kind.fingerprint } : {}),
      ...(spec.release !== undefined ? { release: spec.release } : {}),
      ...(spec.environment !== undefined ? { environment: spec.environment } : {}),
      ...(spec.user !== undefined ? { user: { id: spec.user } } : {}),
      ...(spec.url !== undefined ? { url: spec.url } : {}),
      // Per history: the organization's endpoint outlives histories, and its external ids with it.
      ...(spec.externalId !== undefined ? { external_id: `${spec.externalId}-${tag}` } : {}),
      occurred_at: spec.invalidTime ? 'yesterday-ish' : new Date(now + spec.offset * 60_000).toISOString(),
    },
  };
}

/** A person's action on a group between batches, on the database and on the reference state alike (error-groups.ts). */
async function act(
  db: Knex,
  id: string,
  g: GroupState,
  model: GroupsState,
  gk: string,
  action: string,
  release: string | null,
  now: number,
): Promise<void> {
  const releasesTo = async (status: string) => {
    await db('error_group_releases').where({ group_id: id }).update({ status });
    for (const [rk, r] of model.releases) if (rk.startsWith(`${gk}\n`)) r.status = status;
  };
  let patch: Partial<GroupState> = {};
  if (action === 'resolve') {
    await releasesTo('resolved');
    patch = { status: 'resolved', resolvedAt: now, resolvedInRelease: release, heldReason: null, triggeredAt: null };
  } else if (action === 'ignore') patch = { status: 'ignored', heldReason: null };
  else if (action === 'unignore' && (g.status === 'ignored' || g.status === 'resolved')) {
    await releasesTo('watching');
    patch = { status: 'watching', triggeredAt: null };
  } else if (action === 'ticket' && g.status === 'watching') patch = { status: 'ticketed', ticketId: `tk_${id}` };
  else if (action === 'hold' && g.status === 'watching') patch = { heldReason: 'proactive_cap_reached' };
  Object.assign(g, patch);
  const columns: Record<string, string> = {
    status: 'status',
    resolvedAt: 'resolved_at',
    resolvedInRelease: 'resolved_in_release',
    heldReason: 'held_reason',
    triggeredAt: 'triggered_at',
    ticketId: 'ticket_id',
  };
  const row = Object.fromEntries(
    Object.entries(patch).map(([k, v]) => [columns[k], k === 'resolvedAt' && typeof v === 'number' ? new Date(v) : v]),
  );
  if (Object.keys(row).length) await db('error_groups').where({ id }).update(row);
}

const splitKey = (gk: string) => {
  const [workspace_id, fingerprint] = gk.split('\n');
  return { workspace_id: workspace_id, fingerprint: fingerprint };
};
const ms = (v: unknown): number | null => (v === null || v === undefined ? null : new Date(v as string).getTime());
const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

async function groupKeys(db: Knex, wsIds: string[]): Promise<Map<string, string>> {
  const rows = await db<{ id: string; workspace_id: string; fingerprint: string }>('error_groups')
    .whereIn('workspace_id', wsIds)
    .select('id', 'workspace_id', 'fingerprint');
  return new Map(rows.map((r) => [r.id, `${r.workspace_id}\n${r.fingerprint}`]));
}

type Time = Date | string;
interface GroupRow {
  id: string;
  org_id: string;
  workspace_id: string;
  fingerprint: string;
  status: GroupStatus;
  type: string;
  title: string;
  normalized_message: string;
  sample_stack: string | null;
  frames: unknown;
  symbolicated: boolean;
  noise: boolean;
  event_count: string | number;
  affected_users: number;
  first_seen: Time;
  last_seen: Time;
  release: string | null;
  sources: unknown;
  environments: unknown;
  trigger: string | null;
  critical_path_hit: boolean;
  held_reason: string | null;
  resolved_in_release: string | null;
  resolved_at: Time | null;
  regressed_at: Time | null;
  ticket_id: string | null;
  triggered_at: Time | null;
  created_at: Time;
  updated_at: Time;
}
interface ReleaseRow {
  group_id: string;
  release: string;
  status: string;
  event_count: string | number;
  affected_users: string | number;
  first_seen: Time;
  last_seen: Time;
}
interface UserRow {
  group_id: string;
  user_key: string;
  first_seen: Time;
  last_seen: Time;
}
interface ReleaseUserRow {
  group_id: string;
  release: string;
  user_key: string;
}
interface HourRow {
  group_id: string;
  connector_id: string;
  hour: Time;
  count: string | number;
}
interface ConnectorRow {
  id: string;
  last_delivery_at: Time | null;
  last_activity_at: Time | null;
}
interface EventRow {
  group_id: string;
  connector_id: string | null;
  external_id: string | null;
  source: string;
  release: string | null;
  environment: string | null;
  user_key: string | null;
  occurred_at: Time;
  received_at: Time;
}

/** The rows of the statement's tables for the given workspaces and connectors, as the reference keeps them. */
async function readState(db: Knex, scope: { wsIds: string[]; connectorIds: string[] }): Promise<GroupsState> {
  const keys = await groupKeys(db, scope.wsIds);
  const ids = [...keys.keys()];
  const groupKey = (id: unknown) => keys.get(id as string)!;
  const [groups, releases, users, releaseUsers, hours, connectorHours, connectors, events] = (await Promise.all([
    db('error_groups').whereIn('id', ids),
    db('error_group_releases').whereIn('group_id', ids),
    db('error_group_users').whereIn('group_id', ids),
    db('error_group_release_users').whereIn('group_id', ids),
    db('error_group_hours').whereIn('group_id', ids),
    db('connector_hours').whereIn('connector_id', scope.connectorIds),
    db('connectors').whereIn('id', scope.connectorIds).select('id', 'last_delivery_at', 'last_activity_at'),
    db('error_events').whereIn('workspace_id', scope.wsIds),
  ])) as [GroupRow[], ReleaseRow[], UserRow[], ReleaseUserRow[], HourRow[], HourRow[], ConnectorRow[], EventRow[]];
  const state: GroupsState = {
    groups: new Map(
      groups.map((r) => [
        groupKey(r.id),
        {
          orgId: r.org_id,
          workspaceId: r.workspace_id,
          fingerprint: r.fingerprint,
          status: r.status,
          type: r.type,
          title: r.title,
          normalizedMessage: r.normalized_message,
          sampleStack: r.sample_stack,
          frames: json(r.frames),
          symbolicated: r.symbolicated,
          noise: r.noise,
          eventCount: Number(r.event_count),
          affectedUsers: r.affected_users,
          firstSeen: ms(r.first_seen)!,
          lastSeen: ms(r.last_seen)!,
          release: r.release,
          sources: json(r.sources),
          environments: json(r.environments),
          trigger: r.trigger,
          criticalPathHit: r.critical_path_hit,
          heldReason: r.held_reason,
          resolvedInRelease: r.resolved_in_release,
          resolvedAt: ms(r.resolved_at),
          regressedAt: ms(r.regressed_at),
          ticketId: r.ticket_id,
          triggeredAt: ms(r.triggered_at),
          createdAt: ms(r.created_at)!,
          updatedAt: ms(r.updated_at)!,
        },
      ]),
    ),
    releases: new Map(
      releases.map((r) => [
        `${groupKey(r.group_id)}\n${r.release}`,
        {
          status: r.status,
          eventCount: Number(r.event_count),
          affectedUsers: Number(r.affected_users),
          firstSeen: ms(r.first_seen)!,
          lastSeen: ms(r.last_seen)!,
        },
      ]),
    ),
    users: new Map(
      users.map((r) => [
        `${groupKey(r.group_id)}\n${r.user_key}`,
        { firstSeen: ms(r.first_seen)!, lastSeen: ms(r.last_seen)! },
      ]),
    ),
    releaseUsers: new Set(releaseUsers.map((r) => `${groupKey(r.group_id)}\n${r.release}\n${r.user_key}`)),
    hours: new Map(hours.map((r) => [`${groupKey(r.group_id)}\n${ms(r.hour)}`, Number(r.count)])),
    connectorHours: new Map(connectorHours.map((r) => [`${r.connector_id}\n${ms(r.hour)}`, Number(r.count)])),
    connectors: new Map(
      connectors.map((r) => {
        assert.equal(ms(r.last_activity_at), ms(r.last_delivery_at), 'a delivery is activity');
        return [r.id, ms(r.last_delivery_at)];
      }),
    ),
    events: events.map((r) => ({
      groupKey: groupKey(r.group_id),
      connectorId: r.connector_id,
      externalId: r.external_id,
      source: r.source,
      release: r.release,
      environment: r.environment,
      userKey: r.user_key,
      occurredAt: ms(r.occurred_at)!,
      receivedAt: ms(r.received_at)!,
    })),
  };
  return state;
}

async function announcements(db: Knex, wsIds: string[]): Promise<string[]> {
  const rows = await db<{ type: string; payload: unknown }>('outbox')
    .where({ type: 'proactive.group_triggered' })
    .select('payload');
  const keys = await groupKeys(db, wsIds);
  return rows
    .map((r) => json<{ group_id: string; trigger: string }>(r.payload))
    .filter((p) => keys.has(p.group_id))
    .map((p) => `${keys.get(p.group_id)}\n${p.trigger}`)
    .sort();
}

/** The state as sorted plain values, so that a difference reads as one. */
function plain(s: GroupsState): Record<string, unknown> {
  const sorted = <V>(m: Map<string, V>) => Object.fromEntries([...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  const order = (e: GroupsState['events'][number]) => JSON.stringify(e);
  return JSON.parse(
    JSON.stringify({
      groups: sorted(s.groups),
      releases: sorted(s.releases),
      users: sorted(s.users),
      releaseUsers: [...s.releaseUsers].sort(),
      hours: sorted(s.hours),
      connectorHours: sorted(s.connectorHours),
      connectors: sorted(s.connectors),
      events: s.events.map(order).sort(),
    }),
  ) as Record<string, unknown>;
}
