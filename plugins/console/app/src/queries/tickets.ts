import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { Schema } from '../api/types';
import { approvalKeys } from './approvals';

/** Query keys of tickets: the inbox's lists by filter, one ticket, and what hangs off it. */
export const ticketKeys = {
  all: ['tickets'] as const,
  lists: () => [...ticketKeys.all, 'list'] as const,
  list: (filters: Record<string, unknown>) => [...ticketKeys.lists(), filters] as const,
  // Under lists(): whatever refreshes the inbox's lists refreshes its counts too.
  counts: (filters: Record<string, unknown>) => [...ticketKeys.lists(), 'counts', filters] as const,
  detail: (id: string) => [...ticketKeys.all, 'detail', id] as const,
  subscribers: (id: string) => [...ticketKeys.detail(id), 'subscribers'] as const,
  diff: (id: string, attemptId: string, sha: string | null) =>
    [...ticketKeys.detail(id), 'diff', attemptId, sha] as const,
  events: (id: string, jobId: string) => [...ticketKeys.detail(id), 'events', jobId] as const,
  /** The drafts or jobs beyond the ticket page's newest 50, from the page's `next_cursor` on. */
  older: (id: string, list: 'drafts' | 'jobs', from: string) =>
    [...ticketKeys.detail(id), 'older', list, from] as const,
};

export type Ticket = Schema<'Ticket'>;
export type TicketItem = Schema<'TicketItem'>;
export type FixAttempt = Schema<'TicketFixAttempt'>;
export type TicketJob = Schema<'TicketJob'>;
export type TicketRelease = Schema<'TicketRelease'>;
export type Draft = Schema<'Draft'>;
export type TicketCounts = Schema<'TicketCounts'>;

const RELEASE_AT_WORK: readonly string[] = ['merging', 'tagging', 'releasing', 'notifying'];
// States the service moves out of by itself (the diagnosis, the fix or the release is at work).
const STATES_AT_WORK: readonly string[] = ['received', 'triage', 'fixing', 'releasing'];

/** Whether the service is working on the ticket now: the page polls while it is. */
export function ticketAtWork(t: Ticket | undefined): boolean {
  if (!t) return false;
  if (t.jobs?.items.some((j) => j.status === 'queued' || j.status === 'running')) return true;
  if (t.release && RELEASE_AT_WORK.includes(t.release.status)) return true;
  return STATES_AT_WORK.includes(t.state);
}

/** The interval the ticket page refreshes at while something runs (TanStack Query polling). */
export const LIVE_INTERVAL_MS = 1500;

export const ticketQuery = (id: string) =>
  queryOptions({
    queryKey: ticketKeys.detail(id),
    queryFn: () => data(api.GET('/v1/tickets/{id}', { params: { path: { id } } })),
    refetchInterval: (query) => (ticketAtWork(query.state.data) ? LIVE_INTERVAL_MS : false),
  });

export const subscribersQuery = (id: string) =>
  queryOptions({
    queryKey: ticketKeys.subscribers(id),
    queryFn: () => data(api.GET('/v1/tickets/{id}/subscribers', { params: { path: { id } } })),
  });

export const fixDiffQuery = (id: string, attemptId: string, sha: string | null) =>
  queryOptions({
    queryKey: ticketKeys.diff(id, attemptId, sha),
    queryFn: () =>
      data(
        api.GET('/v1/tickets/{id}/fix-attempts/{fixAttemptId}/diff', {
          params: { path: { id, fixAttemptId: attemptId } },
        }),
      ),
    // A diff at a given head never changes; a new push changes the key.
    staleTime: Infinity,
  });

/**
 * A team action on the ticket whose answer is the Ticket (assign, close, send a draft, approve…):
 * the answer replaces the cached page at once, and the inbox and the approvals queue are refreshed.
 */
export function useTicketAction<V>(id: string, call: (vars: V) => Promise<Ticket>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (ticket) => {
      client.setQueryData(ticketKeys.detail(id), ticket);
      void client.invalidateQueries({ queryKey: ticketKeys.lists() });
      void client.invalidateQueries({ queryKey: approvalKeys.all });
    },
  });
}

/** An action whose answer is not the Ticket (a note, a draft edit, the status link): the page is read again. */
export function useTicketChange<V, R>(id: string, call: (vars: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => client.invalidateQueries({ queryKey: ticketKeys.detail(id) }),
  });
}
