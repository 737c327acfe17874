import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { httpError } from '../../../core/http/errors.js';
import { CATEGORIES, defaultInterval, ORIGINS, type Interval, type MetricsService } from '../services/metrics.js';
import { isoTime } from '../../../core/http/times.js';

const tags = ['analytics'];
const MAX_DAYS = 731;
const MAX_BUCKETS = 400;

const durations = Joi.object({
  count: Joi.number().integer().required(),
  avg_minutes: Joi.number().allow(null).required(),
  median_minutes: Joi.number().allow(null).required(),
  p90_minutes: Joi.number().allow(null).required(),
  p95_minutes: Joi.number().allow(null).required(),
})
  .required()
  .id('DurationStats');

export const MetricsSchema = Joi.object({
  scope: Joi.object({
    kind: Joi.string().valid('organization', 'workspace').required(),
    id: Joi.string().required(),
    workspace_ids: Joi.array().items(Joi.string()).allow(null).required(),
  }).required(),
  range: Joi.object({
    from: isoTime().required(),
    to: isoTime().required(),
    interval: Joi.string().valid('day', 'week', 'month').required(),
  }).required(),
  volume: Joi.object({
    total: Joi.number().integer().required(),
    by_origin: Joi.object(Object.fromEntries(ORIGINS.map((o) => [o, Joi.number().integer().required()]))).required(),
    by_category: Joi.object(
      Object.fromEntries(CATEGORIES.map((c) => [c, Joi.number().integer().required()])),
    ).required(),
  }).required(),
  first_response: durations,
  resolution: durations,
  deflection: Joi.object({
    answered_without_fix: Joi.number().integer().required(),
    fixed: Joi.number().integer().required(),
    escalated: Joi.number().integer().required(),
    resolved: Joi.number().integer().required(),
    answer_rate: Joi.number().allow(null).required(),
    fix_rate: Joi.number().allow(null).required(),
  }).required(),
  fixes: Joi.object({
    attempted: Joi.number().integer().required(),
    succeeded: Joi.number().integer().required(),
    cost_usd: Joi.number().required(),
    cost_per_fix_usd: Joi.number().allow(null).required(),
  })
    .allow(null)
    .required()
    .description('null when the fix loop is not installed'),
  series: Joi.array()
    .items(
      Joi.object({
        period_start: isoTime().required(),
        tickets: Joi.number().integer().required(),
        resolved: Joi.number().integer().required(),
        fixed: Joi.number().integer().required(),
        median_first_response_minutes: Joi.number().allow(null).required(),
        median_resolution_minutes: Joi.number().allow(null).required(),
      }),
    )
    .required(),
}).id('Metrics');

const rangeQuery = {
  from: Joi.date().iso().description('Start (inclusive); default 30 days before `to`'),
  to: Joi.date().iso().description('End (exclusive); default now'),
  interval: Joi.string()
    .valid('day', 'week', 'month')
    .description('Series bucket; default day up to 62 days, week up to a year, month beyond'),
};

function range(q: { from?: Date; to?: Date; interval?: Interval }): { from: Date; to: Date; interval: Interval } {
  const to = q.to ?? new Date();
  const from = q.from ?? new Date(to.getTime() - 30 * 86_400_000);
  const bad = (message: string, path: string) =>
    httpError(400, 'invalid_request', message, { errors: [{ path: `query.${path}`, message }] });
  if (from >= to) throw bad('from must be before to', 'from');
  const days = (to.getTime() - from.getTime()) / 86_400_000;
  if (days > MAX_DAYS) throw bad(`a range covers at most ${MAX_DAYS} days`, 'from');
  const interval = q.interval ?? defaultInterval(from, to);
  const perBucket = interval === 'day' ? 1 : interval === 'week' ? 7 : 28;
  if (days / perBucket > MAX_BUCKETS)
    throw bad(`at most ${MAX_BUCKETS} ${interval}s per series; choose a longer interval`, 'interval');
  return { from, to, interval };
}

export interface WorkspaceOpener {
  open(principal: ReturnType<typeof requirePrincipal>, id: string): Promise<{ id: string }>;
}

/** Route table of the analytics section (2 operations). */
export function analyticsRoutes(metrics: () => MetricsService, workspaces: () => WorkspaceOpener): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/analytics',
      options: {
        id: 'getOrganizationAnalytics',
        tags,
        description: 'Support metrics of the organization over a date range, with a time series',
        notes:
          'Volume by origin and category, first-response and resolution times (average, median, p90, p95 in ' +
          'minutes), deflection by answers and fixes, fix jobs and their cost, and a series per day, week or ' +
          'month (UTC). workspace_ids narrows it to some workspaces. Owners and admins; members restricted to ' +
          'some workspaces see only those.',
        validate: {
          query: Joi.object({
            ...rangeQuery,
            workspace_ids: Joi.array().items(Joi.string().max(64)).single().max(100),
          }),
        },
        response: { status: { 200: MetricsSchema } },
        plugins: { patchwell: { roles: ['owner', 'admin'] } },
        handler: async (request) => {
          const p = requirePrincipal(request);
          const q = request.query as { from?: Date; to?: Date; interval?: Interval; workspace_ids?: string[] };
          const r = range(q);
          let ids: string[] | null = null;
          if (q.workspace_ids?.length) {
            for (const id of q.workspace_ids) await workspaces().open(p, id);
            ids = [...new Set(q.workspace_ids)];
          } else if (p.workspaceIds) ids = p.workspaceIds;
          const body = await metrics().compute({ orgId: p.orgId, workspaceIds: ids, ...r });
          return { scope: { kind: 'organization', id: p.orgId, workspace_ids: ids }, ...body };
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/analytics/workspaces/{id}',
      options: {
        id: 'getWorkspaceAnalytics',
        tags,
        description: 'Support metrics of one workspace over a date range, with a time series',
        notes: "The same numbers as the organization's, for one workspace; every member who can open the workspace.",
        validate: { params: Joi.object({ id: Joi.string().max(64).required() }), query: Joi.object(rangeQuery) },
        response: { status: { 200: MetricsSchema } },
        handler: async (request) => {
          const p = requirePrincipal(request);
          const ws = await workspaces().open(p, (request.params as { id: string }).id);
          const r = range(request.query);
          const body = await metrics().compute({ orgId: p.orgId, workspaceIds: [ws.id], ...r });
          return { scope: { kind: 'workspace', id: ws.id, workspace_ids: [ws.id] }, ...body };
        },
      },
    },
  ];
}
