import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';

export type Interval = 'day' | 'week' | 'month';

/** What the page asks for: the organization (null) or one workspace, the last `days` days, the bucket size. */
export interface AnalyticsRange {
  workspaceId: string | null;
  days: number;
  interval: Interval | null;
}

/** Query keys of analytics: one set of metrics per scope and range; sponsorship requests (staff). */
export const analyticsKeys = {
  all: ['analytics'] as const,
  metrics: (r: AnalyticsRange) => [...analyticsKeys.all, 'metrics', r] as const,
  sponsorships: (status: string) => [...analyticsKeys.all, 'sponsorships', status] as const,
};

/** `to` is the start of tomorrow (UTC) so a range's key stays the same all day (and the cache with it). */
function rangeOf(days: number): { from: string; to: string } {
  const now = new Date();
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const from = new Date(to.getTime() - days * 86_400_000);
  return { from: from.toISOString(), to: to.toISOString() };
}

export const metricsQuery = (r: AnalyticsRange) =>
  queryOptions({
    queryKey: analyticsKeys.metrics(r),
    queryFn: () => {
      const query = { ...rangeOf(r.days), ...(r.interval ? { interval: r.interval } : {}) };
      return r.workspaceId
        ? data(api.GET('/v1/analytics/workspaces/{id}', { params: { path: { id: r.workspaceId }, query } }))
        : data(api.GET('/v1/analytics', { params: { query } }));
    },
  });
