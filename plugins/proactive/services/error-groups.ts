import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import { diffFields } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, notFound } from '../../../core/http/errors.js';
import { paginate } from '../../../core/http/pagination.js';
import { ErrorGroup } from '../models.js';
import type { WorkspaceOpener } from './connectors.js';
import { maskEmail, maskText } from './grouping.js';
import type { EventBreadcrumb, EventContext, SignedInActor } from '../../../core/contracts/index.js';
import { proactiveOverview } from './error-group-overview.js';
import { iso } from '../../../core/http/times.js';

export interface TicketRef {
  id: string;
  subject: string | null;
  state: string;
  origin: string;
  resolved_version: string | null;
  released_at: string | null;
}

export interface ErrorGroupDeps {
  db: Knex;
  audit: AuditWriter;
  outbox: Outbox;
  workspaces: () => WorkspaceOpener;
  sampleEvents: number;
  /** Whether the organization's plan includes proactive tickets. */
  planAllows: (trx: Knex, orgId: string) => Promise<boolean>;
}

export interface ListQuery {
  cursor?: string;
  limit: number;
  workspace_id?: string;
  status?: string[];
  q?: string;
}

const HOUR = 3_600_000;

/** The first hour of the 24 that events_24h and trend count: the current hour and the 23 before it. */
export function firstHourOfDay(now: number): Date {
  return new Date(Math.floor(now / HOUR) * HOUR - 23 * HOUR);
}
const WORKERS = new Set(['owner', 'admin', 'reviewer']);

/**
 * Error groups: the list with the workspace's proactive overview, the detail (frames, masked
 * sample events, releases, environments, capabilities) and the team's actions on a group
 * (ignore, resolve, unignore), each audited.
 */
export class ErrorGroupService {
  constructor(private readonly d: ErrorGroupDeps) {}

  async load(principal: Principal, id: string, trx?: Knex, forUpdate = false): Promise<ErrorGroup> {
    const q = ErrorGroup.query(trx ?? this.d.db)
      .forOrg(principal.orgId)
      .findById(id);
    if (forUpdate) q.forUpdate();
    const g = await q;
    if (!g) throw notFound('error group');
    if (!canOpenWorkspace(principal, g.workspace_id)) throw forbidden('You cannot open this workspace');
    return g;
  }

  async list(
    principal: Principal,
    query: ListQuery,
  ): Promise<{ items: Record<string, unknown>[]; next_cursor: string | null; overview: Record<string, unknown> }> {
    if (query.workspace_id) await this.d.workspaces().open(principal, query.workspace_id);
    const q = ErrorGroup.query(this.d.db).forOrg(principal.orgId);
    if (query.workspace_id) q.where('workspace_id', query.workspace_id);
    else if (principal.workspaceIds !== null) q.whereIn('workspace_id', principal.workspaceIds);
    if (query.status?.length) q.whereIn('status', query.status);
    if (query.q) {
      const like = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q.where((w) =>
        w.where('title', 'ilike', like).orWhere('normalized_message', 'ilike', like).orWhere('type', 'ilike', like),
      );
    }
    const page = await paginate<ErrorGroup & Record<string, unknown>>(
      q,
      [
        { column: 'error_groups.last_seen', direction: 'desc', type: 'date' },
        { column: 'error_groups.id', direction: 'desc', type: 'string' },
      ],
      { cursor: query.cursor, limit: query.limit },
    );
    const items = await this.serializeMany(this.d.db, principal.orgId, page.items);
    return {
      items,
      next_cursor: page.next_cursor,
      overview: await this.overview(principal, query.workspace_id ?? null),
    };
  }

  async detail(principal: Principal, id: string, trx?: Knex): Promise<Record<string, unknown>> {
    const g = await this.load(principal, id, trx);
    return this.detailOf(trx ?? this.d.db, g);
  }

  async ignore(a: SignedInActor, id: string): Promise<Record<string, unknown>> {
    return this.act(a, id, 'error_group.ignored', async (trx, g) => {
      const ticket = g.ticket_id ? (await this.tickets(trx, g.org_id, [g.ticket_id])).get(g.ticket_id) : undefined;
      if (ticket && ticket.state !== 'closed') {
        throw conflict(
          'group_has_open_ticket',
          'An open ticket follows this error group; close it before ignoring the group',
          { ticket_id: ticket.id },
        );
      }
      return { status: 'ignored', held_reason: null, held_at: null };
    });
  }

  async resolve(a: SignedInActor, id: string, release: string | null): Promise<Record<string, unknown>> {
    return this.act(a, id, 'error_group.resolved', async (trx, g) => {
      const now = new Date();
      await trx('error_group_releases')
        .where({ group_id: g.id, org_id: g.org_id })
        .update({ status: 'resolved', resolved_in_release: release });
      return {
        status: 'resolved',
        resolved_at: now,
        resolved_in_release: release,
        held_reason: null,
        held_at: null,
        triggered_at: null,
      };
    });
  }

  async unignore(a: SignedInActor, id: string): Promise<Record<string, unknown>> {
    return this.act(a, id, 'error_group.unignored', async (trx, g) => {
      if (g.status === 'watching') return {};
      if (g.status === 'ticketed')
        throw conflict('group_not_ignored', 'Only an ignored or resolved group goes back to watching');
      await trx('error_group_releases').where({ group_id: g.id, org_id: g.org_id }).update({ status: 'watching' });
      return { status: 'watching', triggered_at: null };
    });
  }

  private async act(
    a: SignedInActor,
    id: string,
    action: string,
    change: (trx: Knex, g: ErrorGroup) => Promise<Partial<ErrorGroup>>,
  ): Promise<Record<string, unknown>> {
    if (!WORKERS.has(a.principal.role)) throw forbidden('Client viewers cannot change error groups');
    return this.d.db.transaction(async (trx) => {
      const before = await this.load(a.principal, id, trx, true);
      const patch = await change(trx, before);
      const after = Object.keys(patch).length
        ? await ErrorGroup.query(trx).forOrg(a.principal.orgId).patchAndFetchById(id, patch)
        : before;
      if (Object.keys(patch).length) {
        await this.d.audit.record(trx, {
          actor: a,
          action,
          target: { type: 'error_group', id },
          workspaceId: before.workspace_id,
          changes: diffFields(
            { status: before.status, resolved_in_release: before.resolved_in_release },
            { status: after.status, resolved_in_release: after.resolved_in_release },
          ),
        });
        await this.d.outbox.add(
          trx,
          action.replace('error_group.', 'proactive.group_'),
          { group_id: id, workspace_id: before.workspace_id, status: after.status },
          { orgId: a.principal.orgId },
        );
      }
      return this.detailOf(trx, after);
    });
  }

  // ---- reading

  async tickets(db: Knex, orgId: string, ids: string[]): Promise<Map<string, TicketRef>> {
    if (!ids.length) return new Map();
    const rows: Array<TicketRef & { released_at: Date | null }> = await db('tickets')
      .where({ org_id: orgId })
      .whereIn('id', ids)
      .select('id', 'subject', 'state', 'origin', 'resolved_version', 'released_at');
    return new Map(rows.map((r) => [r.id, { ...r, released_at: iso(r.released_at) }]));
  }

  async serializeMany(db: Knex, orgId: string, groups: ErrorGroup[]): Promise<Record<string, unknown>[]> {
    if (!groups.length) return [];
    const ids = groups.map((g) => g.id);
    const now = Date.now();
    const since = firstHourOfDay(now);
    const currentHour = since.getTime() + 23 * HOUR;
    const hours: Array<{ group_id: string; hour: Date; count: number }> = await db('error_group_hours')
      .where({ org_id: orgId })
      .whereIn('group_id', ids)
      .where('hour', '>=', since)
      .select('group_id', 'hour', 'count');
    const users: Array<{ group_id: string; n: number | string }> = await db('error_group_users')
      .where({ org_id: orgId })
      .whereIn('group_id', ids)
      .where('last_seen', '>', new Date(now - 24 * HOUR))
      .groupBy('group_id')
      .select('group_id')
      .count({ n: '*' });
    const tickets = await this.tickets(
      db,
      orgId,
      groups.map((g) => g.ticket_id).filter((t): t is string => !!t),
    );
    const trend = new Map<string, number[]>();
    for (const h of hours) {
      const slot = 23 - Math.round((currentHour - new Date(h.hour).getTime()) / HOUR);
      if (slot < 0 || slot > 23) continue;
      const arr = trend.get(h.group_id) ?? new Array<number>(24).fill(0);
      arr[slot] = (arr[slot] ?? 0) + Number(h.count);
      trend.set(h.group_id, arr);
    }
    const users24 = new Map(users.map((u) => [u.group_id, Number(u.n)]));
    return groups.map((g) => {
      const t = trend.get(g.id) ?? new Array<number>(24).fill(0);
      return {
        id: g.id,
        workspace_id: g.workspace_id,
        status: g.status,
        type: g.type,
        title: maskText(g.title),
        affected_users: g.affected_users,
        users_24h: users24.get(g.id) ?? 0,
        event_count: Number(g.event_count),
        events_24h: t.reduce((s, n) => s + n, 0),
        trend: t,
        first_seen: iso(g.first_seen),
        last_seen: iso(g.last_seen),
        release: g.release,
        sources: g.sources ?? [],
        trigger: g.trigger,
        critical_path_hit: g.critical_path_hit,
        noise: g.noise,
        held_reason: g.held_reason,
        held_at: iso(g.held_at),
        resolved_in_release: g.resolved_in_release,
        resolved_at: iso(g.resolved_at),
        regressed_at: iso(g.regressed_at),
        ticket: g.ticket_id ? (tickets.get(g.ticket_id) ?? null) : null,
      };
    });
  }

  async detailOf(db: Knex, g: ErrorGroup): Promise<Record<string, unknown>> {
    const [group] = await this.serializeMany(db, g.org_id, [g]);
    const events = (await db('error_events')
      .where({ org_id: g.org_id, group_id: g.id })
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(this.d.sampleEvents)) as Array<Record<string, unknown>>;
    const releases = (await db('error_group_releases')
      .where({ org_id: g.org_id, group_id: g.id })
      .orderBy('last_seen', 'desc')
      .limit(100)) as Array<Record<string, unknown>>;
    const ticket = (group.ticket as TicketRef | null) ?? null;
    const openTicket = !!ticket && ticket.state !== 'closed';
    const frames = g.frames ?? [];
    return {
      group,
      normalized_message: maskText(g.normalized_message),
      sample_stack: maskText(g.sample_stack),
      frames: frames.map((f) => ({
        file: f.file,
        function: f.function ?? null,
        line: f.line ?? null,
        column: f.column ?? null,
        in_app: f.in_app ?? true,
        generated: f.generated ?? null,
      })),
      symbolicated: g.symbolicated,
      events: events.map((e) => ({
        id: e.id as string,
        source: e.source as string,
        external_id: (e.external_id as string | null) ?? null,
        type: e.type as string,
        level: e.level as string,
        message: maskText(e.message as string),
        url: maskText(e.url as string | null),
        browser: parseJson(e.browser),
        release: (e.release as string | null) ?? null,
        environment: (e.environment as string | null) ?? null,
        user: maskUser(parseJson(e.user)),
        occurred_at: iso(e.occurred_at as Date),
        symbolicated: e.symbolicated as boolean,
        context: maskContext(parseJson(e.context) as EventContext | null),
      })),
      releases: releases.map((r) => ({
        group_id: g.id,
        release: (r.release as string) || null,
        status: r.status as string,
        event_count: Number(r.event_count),
        affected_users: Number(r.affected_users),
        first_seen: iso(r.first_seen as Date),
        last_seen: iso(r.last_seen as Date),
        resolved_in_release: (r.resolved_in_release as string | null) ?? null,
      })),
      environments: g.environments ?? [],
      capabilities: {
        ignore: g.status !== 'ignored' && !openTicket,
        unignore: g.status === 'ignored' || g.status === 'resolved',
        resolve: g.status !== 'resolved',
        open_ticket: g.status === 'watching',
      },
    };
  }

  /** The ProactiveOverview of one workspace, or summed over the caller's workspaces (workspace_id null). */
  overview(principal: Principal, workspaceId: string | null): Promise<Record<string, unknown>> {
    return proactiveOverview(this.d, principal, workspaceId);
  }
}

function parseJson(v: unknown): Record<string, unknown> | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') {
    try {
      return JSON.parse(v) as Record<string, unknown>;
    } catch {
      return null;
    }
  }
  return v as Record<string, unknown>;
}

/** Tag values and breadcrumbs' messages and data may name people: their texts are masked as messages are. */
function maskContext(c: EventContext | null): EventContext | null {
  if (!c) return null;
  const maskStrings = <T extends Record<string, unknown>>(o: T): T =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? maskText(v) : v])) as T;
  const crumb = (b: EventBreadcrumb): EventBreadcrumb => ({
    ...b,
    ...(b.message ? { message: maskText(b.message) } : {}),
    ...(b.data ? { data: maskStrings(b.data) } : {}),
  });
  return {
    ...c,
    ...(c.tags ? { tags: maskStrings(c.tags) } : {}),
    ...(c.breadcrumbs ? { breadcrumbs: c.breadcrumbs.map(crumb) } : {}),
  };
}

function maskUser(u: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!u) return null;
  const out: Record<string, unknown> = {};
  if (typeof u.id === 'string') out.id = u.id;
  if (typeof u.username === 'string') out.username = maskText(u.username);
  if (typeof u.email === 'string') out.email = maskEmail(u.email);
  if (typeof u.ip_address === 'string')
    out.ip_address = u.ip_address.replace(/(\d+)\.(\d+)$/, '0.0').replace(/:[0-9a-f]*:[0-9a-f]*$/i, ':0:0');
  return out;
}
