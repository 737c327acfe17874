import type { Knex } from 'knex';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { notFound } from '../../../core/http/errors.js';
import { clientWorkspaceIds, type BrandDirectoryPort, type WorkspaceReaderPort } from './clients.js';
import { assertAgency } from './partner.js';

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
const num = (v: unknown): number => Number(v ?? 0);
const money = (v: number) => Math.round(v * 100) / 100;

interface ClientRow {
  id: string;
  name: string;
  client_name: string;
  sla_first_response_minutes: number;
  sla_resolution_minutes: number;
  report_recipients: string[] | string;
  report_intro: string | null;
  report_auto_send: boolean;
  share_policy: string;
  patterns_opt_in: boolean;
  notify_affected_users: boolean;
  managed_addon: boolean;
  resale_price: string | number | null;
  collect_via_connect: boolean;
  resale_client_email: string | null;
}

export function monthStart(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/**
 * The agency's console over its client workspaces: overview cards, one client's card (service
 * levels, report settings, consent), the queue of approvals and escalations with SLA timers, and
 * resale (prices, costs, margins). Read models over the workspaces, tickets and fix jobs.
 */
export class AgencyConsole {
  constructor(
    private readonly d: {
      db: () => Knex;
      directory: () => BrandDirectoryPort;
      workspaces: () => WorkspaceReaderPort;
      clock?: () => Date;
    },
  ) {}

  private now(): Date {
    return this.d.clock?.() ?? new Date();
  }

  private async clients(db: Knex, orgId: string, ids: string[]): Promise<ClientRow[]> {
    if (ids.length === 0) return [];
    const rows = (await db('workspaces')
      .where({ org_id: orgId })
      .whereIn('id', ids)
      .orderBy([{ column: 'created_at' }, { column: 'id' }])) as ClientRow[];
    return rows;
  }

  /** Ticket counts per workspace: open, awaiting approval, escalated, overdue, opened and resolved this month. */
  private async counts(db: Knex, orgId: string, ids: string[]): Promise<Map<string, Record<string, number>>> {
    if (ids.length === 0) return new Map();
    const now = this.now();
    const month = monthStart(now);
    const rows: Record<string, unknown>[] = await db('tickets')
      .where({ org_id: orgId, is_demo: false })
      .whereIn('workspace_id', ids)
      .groupBy('workspace_id')
      .select(
        'workspace_id',
        db.raw(`count(*) filter (where state not in ('closed', 'customer_notified')) as open`),
        db.raw(`count(*) filter (where state = 'awaiting_approval') as awaiting_approval`),
        db.raw(`count(*) filter (where state = 'escalated') as escalated`),
        db.raw(
          `count(*) filter (where sla_due_at is not null and sla_due_at < ? and state not in ('closed', 'customer_notified')) as overdue`,
          [now],
        ),
        db.raw('count(*) filter (where created_at >= ?) as opened_this_month', [month]),
        db.raw(
          `count(*) filter (where state in ('closed', 'customer_notified') and coalesce(released_at, closed_at) >= ?) as resolved_this_month`,
          [month],
        ),
      );
    return new Map(
      rows.map((r) => [
        r.workspace_id as string,
        Object.fromEntries(
          Object.entries(r)
            .filter(([k]) => k !== 'workspace_id')
            .map(([k, v]) => [k, num(v)]),
        ),
      ]),
    );
  }

  private async card(
    db: Knex,
    orgId: string,
    ws: ClientRow,
    counts: Record<string, number> | undefined,
  ): Promise<Record<string, unknown>> {
    const full = await this.d.workspaces().get(orgId, ws.id);
    const brand = await this.d.directory().workspaceBrand(db, full);
    const missing = brand.white_label_missing as string[];
    return {
      workspace_id: ws.id,
      name: ws.name,
      client_name: ws.client_name,
      tickets: {
        open: counts?.open ?? 0,
        awaiting_approval: counts?.awaiting_approval ?? 0,
        escalated: counts?.escalated ?? 0,
        overdue: counts?.overdue ?? 0,
        opened_this_month: counts?.opened_this_month ?? 0,
        resolved_this_month: counts?.resolved_this_month ?? 0,
      },
      white_label: { ready: missing.length === 0, missing },
      resale_price_usd: ws.resale_price === null || ws.resale_price === undefined ? null : num(ws.resale_price),
      managed_addon: !!ws.managed_addon,
    };
  }

  async overview(principal: Principal): Promise<Record<string, unknown>> {
    const db = this.d.db();
    const ids = await clientWorkspaceIds(db, principal);
    const rows = await this.clients(db, principal.orgId, ids);
    const counts = await this.counts(db, principal.orgId, ids);
    const clients: Record<string, unknown>[] = [];
    for (const ws of rows) clients.push(await this.card(db, principal.orgId, ws, counts.get(ws.id)));
    const sum = (k: string) => clients.reduce((a, c) => a + (c.tickets as Record<string, number>)[k], 0);
    return {
      clients,
      totals: {
        clients: clients.length,
        open: sum('open'),
        awaiting_approval: sum('awaiting_approval'),
        escalated: sum('escalated'),
        overdue: sum('overdue'),
        white_label_ready: clients.filter((c) => (c.white_label as { ready: boolean }).ready).length,
      },
    };
  }

  /** One client's card with service levels (and how they were met over 30 days), report settings and consent. */
  async client(principal: Principal, id: string): Promise<Record<string, unknown>> {
    const db = this.d.db();
    const org = (await db('organizations').select('type').where({ id: principal.orgId }).first()) as { type: string };
    assertAgency(org);
    const [ws] = await this.clients(db, principal.orgId, [id]);
    if (!ws || !ws.client_name) throw notFound('client workspace');
    if (!canOpenWorkspace(principal, ws.id)) throw notFound('client workspace');
    const counts = await this.counts(db, principal.orgId, [id]);
    const since = new Date(this.now().getTime() - 30 * 86_400_000);
    const fr = `extract(epoch from (first_response_at - created_at)) / 60.0`;
    const res = `extract(epoch from (coalesce(released_at, closed_at) - created_at)) / 60.0`;
    const met = (await db('tickets')
      .where({ org_id: principal.orgId, workspace_id: id, is_demo: false })
      .where('created_at', '>=', since)
      .select(
        db.raw('count(*) filter (where first_response_at is not null) as responded'),
        db.raw(`count(*) filter (where first_response_at is not null and ${fr} <= ?) as responded_in_time`, [
          ws.sla_first_response_minutes,
        ]),
        db.raw(
          `count(*) filter (where state in ('closed', 'customer_notified') and coalesce(released_at, closed_at) is not null) as resolved`,
        ),
        db.raw(
          `count(*) filter (where state in ('closed', 'customer_notified') and coalesce(released_at, closed_at) is not null and ${res} <= ?) as resolved_in_time`,
          [ws.sla_resolution_minutes],
        ),
      )
      .first()) as Record<string, unknown>;
    const rate = (a: unknown, b: unknown) => (num(b) ? Math.round((num(a) / num(b)) * 10_000) / 10_000 : null);
    const recipients =
      typeof ws.report_recipients === 'string'
        ? (JSON.parse(ws.report_recipients) as string[])
        : (ws.report_recipients ?? []);
    return {
      ...(await this.card(db, principal.orgId, ws, counts.get(id))),
      service_levels: {
        first_response_minutes: ws.sla_first_response_minutes,
        resolution_minutes: ws.sla_resolution_minutes,
        last_30_days: {
          responded: num(met.responded),
          first_response_met_rate: rate(met.responded_in_time, met.responded),
          resolved: num(met.resolved),
          resolution_met_rate: rate(met.resolved_in_time, met.resolved),
        },
      },
      report_settings: { recipients, intro: ws.report_intro ?? null, auto_send: !!ws.report_auto_send },
      consent: {
        share_policy: ws.share_policy,
        patterns_opt_in: !!ws.patterns_opt_in,
        notify_affected_users: !!ws.notify_affected_users,
      },
      billing: {
        resale_price_usd: ws.resale_price === null ? null : num(ws.resale_price),
        collect_via_connect: !!ws.collect_via_connect,
        client_email: ws.resale_client_email ?? null,
      },
    };
  }

  /** Approvals and escalations of every client, the most urgent first, with their SLA timers. */
  async queue(principal: Principal, limit = 200): Promise<Record<string, unknown>> {
    const db = this.d.db();
    const ids = await clientWorkspaceIds(db, principal);
    if (ids.length === 0) return { items: [], total: 0 };
    const now = this.now();
    const base = db('tickets')
      .join('workspaces', 'workspaces.id', 'tickets.workspace_id')
      .where('tickets.org_id', principal.orgId)
      .where('tickets.is_demo', false)
      .whereIn('tickets.workspace_id', ids)
      .whereIn('tickets.state', ['awaiting_approval', 'escalated']);
    const total = num(((await base.clone().count('* as n').first()) as { n: unknown }).n);
    const rows = (await base
      .clone()
      .select(
        'tickets.id',
        'tickets.workspace_id',
        'workspaces.client_name',
        'tickets.subject',
        'tickets.state',
        'tickets.priority',
        'tickets.sla_due_at',
        'tickets.escalated_at',
        'tickets.escalation_reason',
        'tickets.updated_at',
        'tickets.created_at',
      )
      .orderByRaw('tickets.sla_due_at asc nulls last, tickets.created_at asc, tickets.id asc')
      .limit(limit)) as Record<string, unknown>[];
    return {
      items: rows.map((r) => {
        const due = r.sla_due_at ? new Date(r.sla_due_at as Date) : null;
        return {
          kind: r.state === 'escalated' ? 'escalation' : 'approval',
          ticket_id: r.id,
          workspace_id: r.workspace_id,
          client_name: r.client_name,
          subject: r.subject,
          state: r.state,
          priority: r.priority,
          reason: (r.escalation_reason as string | null) ?? null,
          waiting_since: iso(((r.state === 'escalated' ? r.escalated_at : null) ?? r.updated_at) as Date | null),
          sla: {
            due_at: iso(due),
            remaining_minutes: due ? Math.round((due.getTime() - now.getTime()) / 60_000) : null,
            overdue: !!due && due < now,
          },
        };
      }),
      total,
    };
  }

  /**
   * Resale of the current month: each client's price (billing's resale settings), the agency's
   * cost of serving it (fix and diagnosis jobs of the month, when the fix loop is installed) and
   * the margin.
   */
  async resale(principal: Principal): Promise<Record<string, unknown>> {
    const db = this.d.db();
    const ids = await clientWorkspaceIds(db, principal);
    const rows = await this.clients(db, principal.orgId, ids);
    const start = monthStart(this.now());
    const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    const costs = new Map<string, number>();
    if (ids.length && (await db.schema.hasTable('fix_jobs'))) {
      const c: {
        workspace_id: string;
        cost: unknown;
      }[] = await db('fix_jobs')
        .where({ org_id: principal.orgId })
        .whereIn('workspace_id', ids)
        .where('created_at', '>=', start)
        .where('created_at', '<', end)
        .groupBy('workspace_id')
        .select('workspace_id', db.raw('coalesce(sum(cost_usd), 0) as cost'));
      for (const r of c) costs.set(r.workspace_id, num(r.cost));
    }
    const items = rows.map((ws) => {
      const price = ws.resale_price === null || ws.resale_price === undefined ? null : num(ws.resale_price);
      const cost = money(costs.get(ws.id) ?? 0);
      const margin = price === null ? null : money(price - cost);
      return {
        workspace_id: ws.id,
        client_name: ws.client_name,
        resale_price_usd: price,
        collect_via_connect: !!ws.collect_via_connect,
        client_email: ws.resale_client_email ?? null,
        cost_usd: cost,
        margin_usd: margin,
        margin_rate: price ? Math.round(((price - cost) / price) * 10_000) / 10_000 : null,
      };
    });
    const priced = items.filter((i) => i.resale_price_usd !== null);
    const revenue = money(priced.reduce((a, i) => a + i.resale_price_usd!, 0));
    const cost = money(items.reduce((a, i) => a + i.cost_usd, 0));
    return {
      currency: 'usd',
      period: { start: start.toISOString(), end: end.toISOString() },
      items,
      totals: {
        clients: items.length,
        priced: priced.length,
        revenue_usd: revenue,
        cost_usd: cost,
        margin_usd: money(revenue - cost),
        margin_rate: revenue ? Math.round(((revenue - cost) / revenue) * 10_000) / 10_000 : null,
      },
    };
  }
}
