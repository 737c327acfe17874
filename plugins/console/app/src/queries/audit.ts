import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';
import { isApiError } from '../api/errors';
import type { operations } from '../api/schema';
import type { Schema } from '../api/types';

/** The audit log's filters as GET /v1/audit names them (empty ones are left out); paging is the list's. */
export type AuditFilters = Omit<NonNullable<operations['listAuditEntries']['parameters']['query']>, 'cursor' | 'limit'>;

/** Query keys of the audit area: the log by filters, the stream. */
export const auditKeys = {
  all: ['audit'] as const,
  list: (filters: AuditFilters) => [...auditKeys.all, 'list', filters] as const,
  stream: () => [...auditKeys.all, 'stream'] as const,
};

export type AuditStream = Schema<'AuditStream'>;

/** The stream without its secret: the cache never keeps a secret the API shows once. */
export const withoutSecret = ({ secret: _secret, ...stream }: AuditStream): AuditStream => stream;

/** The organization's stream, or null when it has none (the API's 404 not_found). */
export const auditStreamQuery = () =>
  queryOptions({
    queryKey: auditKeys.stream(),
    queryFn: async (): Promise<AuditStream | null> => {
      try {
        return await data(api.GET('/v1/audit/stream'));
      } catch (e) {
        if (isApiError(e) && e.status === 404) return null;
        throw e;
      }
    },
    // Entries waiting or a failing destination: the delivery state moves on its own, so it is polled.
    refetchInterval: (q) =>
      q.state.data && (q.state.data.delivery.pending > 0 || q.state.data.status === 'failing') ? 5000 : false,
  });
