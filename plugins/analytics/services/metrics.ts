import type { Knex } from 'knex';
import type { Cradle } from '../../../core/kernel/cradle.js';

export type Interval = 'day' | 'week' | 'month';

export const ORIGINS = ['email', 'widget', 'codehost', 'proactive'] as const;
export const CATEGORIES = ['usage', 'config', 'docs', 'bug', 'feature_request', 'unknown'] as const;

export interface MetricsQuery {
  orgId: string;
  /** null: every workspace of the organization. */
  workspaceIds: string[] | null;
  from: Date;
  to: Date;
  interval: Interval;
}

interface Durations {
  count: number;
  avg_minutes: number | null;
  median_minutes: number | null;
  p90_minutes: number | null;
  p95_minutes: number | null;
}

const round = (v: unknown, digits = 1): number | null =>
  v === null || v === undefined ? null : Math.round(Number(v) * 10 ** digits) / 10 ** digits;
const int = (v: unknown): number => Number(v ?? 0);

/** The default bucket of a range: days up to ~2 months, weeks up to a year, months beyond. */
export function defaultInterval(from: Date, to: Date): Interval {
  const days = (to.getTime() - from.getTime()) / 86_400_000;
  return days <= 62 ? 'day' : days <= 366 ? 'week' : 'month';
}

/** Bucket starts (UTC) covering [from, to): date_trunc semantics (ISO weeks start on Monday). */
export function buckets(from: Date, to: Date, interval: Interval): Date[] {
  const start = new Date(
    Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), interval === 'month' ? 1 : from.getUTCDate()),
  );
  if (interval === 'week') start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
  const out: Date[] = [];
  for (const d = start; d < to;) {
    out.push(new Date(d));
    if (interval === 'day') d.setUTCDate(d.getUTCDate() + 1);
    else if (interval === 'week') d.setUTCDate(d.getUTCDate() + 7);
    else d.setUTCMonth(d.getUTCMonth() + 1);
  }
  return out;
}

/** The fix loop's totals of a period, through the fixes plugin's `fixRecords` (its tables stay its own). */
export type FixTotalsPort = Pick<Cradle['fixRecords'], 'jobTotals'>;

/**
 * Support metrics of an organization or a workspace over [from, to), computed from the tickets
 * (and the fix loop's jobs when that plugin is on). See docs/analytics.md for each number.
 */
export class MetricsService {
  constructor(
    private readonly db: () => Knex,
    /** null when the fix loop is off. */
    private readonly fixRecords: () => FixTotalsPort | null,
  ) {}

  private tickets(q: MetricsQuery, column = 'created_at'): Knex.QueryBuilder {
    const b = this.db()('tickets')
      .where('tickets.org_id', q.orgId)
      .where('tickets.is_demo', false)
      .where(`tickets.${column}`, '>=', q.from)
      .where(`tickets.${column}`, '<', q.to);
    if (q.workspaceIds) b.whereIn('tickets.workspace_id', q.workspaceIds);
    return b;
  }

  private async durations(q: MetricsQuery, endColumn: string, startExpr = 'created_at'): Promise<Durations> {
    const minutes = `extract(epoch from (tickets.${endColumn} - tickets.${startExpr})) / 60.0`;
    const row = (await this.tickets(q)
      .whereNotNull(`tickets.${endColumn}`)
      .select(
        this.db().raw('count(*) as count'),
        this.db().raw(`avg(${minutes}) as avg`),
        this.db().raw(`percentile_cont(0.5) within group (order by ${minutes}) as p50`),
        this.db().raw(`percentile_cont(0.9) within group (order by ${minutes}) as p90`),
        this.db().raw(`percentile_cont(0.95) within group (order by ${minutes}) as p95`),
      )
      .first()) as { count: string | number; avg: unknown; p50: unknown; p90: unknown; p95: unknown };
    return {
      count: int(row.count),
      avg_minutes: round(row.avg),
      median_minutes: round(row.p50),
      p90_minutes: round(row.p90),
      p95_minutes: round(row.p95),
    };
  }

  async compute(q: MetricsQuery): Promise<Record<string, unknown>> {
    const db = this.db();
    const resolvedAt = 'coalesce(tickets.released_at, tickets.closed_at)';
    const [byOrigin, byCategory, firstResponse, outcome] = await Promise.all([
      this.tickets(q).select('origin').count('* as n').groupBy('origin') as Promise<
        { origin: string; n: string | number }[]
      >,
      this.tickets(q).select('category').count('* as n').groupBy('category') as Promise<
        { category: string; n: string | number }[]
      >,
      this.durations(q, 'first_response_at'),
      this.tickets(q)
        .select(
          db.raw('count(*) as total'),
          db.raw(`count(*) filter (where tickets.state in ('closed', 'customer_notified')) as resolved`),
          db.raw('count(*) filter (where tickets.resolved_version is not null) as fixed'),
          db.raw(
            `count(*) filter (where tickets.first_response_at is not null and tickets.resolved_version is null and tickets.escalated_at is null and tickets.state in ('answered', 'closed')) as answered`,
          ),
          db.raw('count(*) filter (where tickets.escalated_at is not null) as escalated'),
        )
        .first() as Promise<Record<string, string | number>>,
    ]);
    // Resolution: tickets resolved (closed, or released and the customer told) among those opened in the range.
    const resolutionRow = (await this.tickets(q)
      .whereRaw(`${resolvedAt} is not null`)
      .whereIn('tickets.state', ['closed', 'customer_notified'])
      .select(
        db.raw('count(*) as count'),
        db.raw(`avg(extract(epoch from (${resolvedAt} - tickets.created_at)) / 60.0) as avg`),
        db.raw(
          `percentile_cont(0.5) within group (order by extract(epoch from (${resolvedAt} - tickets.created_at)) / 60.0) as p50`,
        ),
        db.raw(
          `percentile_cont(0.9) within group (order by extract(epoch from (${resolvedAt} - tickets.created_at)) / 60.0) as p90`,
        ),
        db.raw(
          `percentile_cont(0.95) within group (order by extract(epoch from (${resolvedAt} - tickets.created_at)) / 60.0) as p95`,
        ),
      )
      .first()) as { count: string | number; avg: unknown; p50: unknown; p90: unknown; p95: unknown };
    const resolution: Durations = {
      count: int(resolutionRow.count),
      avg_minutes: round(resolutionRow.avg),
      median_minutes: round(resolutionRow.p50),
      p90_minutes: round(resolutionRow.p90),
      p95_minutes: round(resolutionRow.p95),
    };

    const total = int(outcome.total);
    const answered = int(outcome.answered);
    const fixed = int(outcome.fixed);
    const fixes = await this.fixes(q);

    const series = await this.series(q, resolvedAt);
    return {
      range: { from: q.from.toISOString(), to: q.to.toISOString(), interval: q.interval },
      volume: {
        total,
        by_origin: Object.fromEntries(ORIGINS.map((o) => [o, int(byOrigin.find((r) => r.origin === o)?.n)])),
        by_category: Object.fromEntries(CATEGORIES.map((c) => [c, int(byCategory.find((r) => r.category === c)?.n)])),
      },
      first_response: firstResponse,
      resolution,
      deflection: {
        answered_without_fix: answered,
        fixed,
        escalated: int(outcome.escalated),
        resolved: int(outcome.resolved),
        answer_rate: total ? round(answered / total, 4) : null,
        fix_rate: total ? round(fixed / total, 4) : null,
      },
      fixes,
      series,
    };
  }

  /** Fix jobs of the range, from the fix loop's `fixRecords`; null when the fix loop is off. */
  private async fixes(q: MetricsQuery): Promise<Record<string, unknown> | null> {
    const records = this.fixRecords();
    if (!records) return null;
    const t = await records.jobTotals(q);
    return {
      attempted: t.attempted,
      succeeded: t.succeeded,
      cost_usd: round(t.cost_usd, 2),
      cost_per_fix_usd: t.succeeded ? round(t.fix_cost_usd / t.succeeded, 2) : null,
    };
  }

  private async series(q: MetricsQuery, resolvedAt: string): Promise<Record<string, unknown>[]> {
    const db = this.db();
    const unit = q.interval;
    const opened: { bucket: Date | string; tickets: string | number; frt: unknown; fixed: string | number }[] =
      await this.tickets(q)
        .select(
          db.raw(`date_trunc('${unit}', tickets.created_at at time zone 'UTC') as bucket`),
          db.raw('count(*) as tickets'),
          db.raw(
            `percentile_cont(0.5) within group (order by extract(epoch from (tickets.first_response_at - tickets.created_at)) / 60.0) filter (where tickets.first_response_at is not null) as frt`,
          ),
          db.raw('count(*) filter (where tickets.resolved_version is not null) as fixed'),
        )
        .groupByRaw('1');
    const resolvedQ = db('tickets')
      .where('org_id', q.orgId)
      .where('is_demo', false)
      .whereIn('state', ['closed', 'customer_notified'])
      .whereRaw(`${resolvedAt.replace(/tickets\./g, '')} >= ? and ${resolvedAt.replace(/tickets\./g, '')} < ?`, [
        q.from,
        q.to,
      ]);
    if (q.workspaceIds) resolvedQ.whereIn('workspace_id', q.workspaceIds);
    const resolved: { bucket: Date | string; resolved: string | number; ttr: unknown }[] = await resolvedQ
      .select(
        db.raw(`date_trunc('${unit}', ${resolvedAt.replace(/tickets\./g, '')} at time zone 'UTC') as bucket`),
        db.raw('count(*) as resolved'),
        db.raw(
          `percentile_cont(0.5) within group (order by extract(epoch from (${resolvedAt.replace(/tickets\./g, '')} - created_at)) / 60.0) as ttr`,
        ),
      )
      .groupByRaw('1');
    // date_trunc of a timestamp without time zone comes back as a local Date; read its wall clock as UTC.
    const key = (b: Date | string) => {
      const d =
        typeof b === 'string'
          ? new Date(`${b.replace(' ', 'T')}Z`)
          : new Date(Date.UTC(b.getFullYear(), b.getMonth(), b.getDate()));
      return d.toISOString().slice(0, 10);
    };
    const o = new Map(opened.map((r) => [key(r.bucket), r]));
    const r = new Map(resolved.map((x) => [key(x.bucket), x]));
    return buckets(q.from, q.to, unit).map((start) => {
      const k = start.toISOString().slice(0, 10);
      return {
        period_start: start.toISOString(),
        tickets: int(o.get(k)?.tickets),
        resolved: int(r.get(k)?.resolved),
        fixed: int(o.get(k)?.fixed),
        median_first_response_minutes: round(o.get(k)?.frt ?? null),
        median_resolution_minutes: round(r.get(k)?.ttr ?? null),
      };
    });
  }
}
