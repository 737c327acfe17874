import { api, data } from '../api/client';
import type { Schema } from '../api/types';

/** Query keys of the approvals queue (GET /v1/approvals). */
export const approvalKeys = {
  all: ['approvals'] as const,
  list: () => [...approvalKeys.all, 'list'] as const,
};

export type ApprovalItem = Schema<'ApprovalItem'>;

/** One page of the caller's queue, oldest first. */
export const fetchApprovals = (cursor: string | undefined) =>
  data(api.GET('/v1/approvals', { params: { query: { cursor, limit: 50 } } }));
