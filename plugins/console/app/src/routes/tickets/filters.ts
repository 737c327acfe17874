import type { paths } from '../../api/schema';

/** The query of GET /v1/tickets, as the generated types state it. */
export type ListQuery = NonNullable<paths['/v1/tickets']['get']['parameters']['query']>;
type Sort = NonNullable<ListQuery['sort']>;
/** The query of GET /v1/tickets/counts: the list's filters but state, sort and paging. */
export type CountQuery = NonNullable<paths['/v1/tickets/counts']['get']['parameters']['query']>;

export const STATES = [
  'received',
  'triage',
  'needs_info',
  'draft_ready',
  'answered',
  'fixing',
  'awaiting_approval',
  'releasing',
  'customer_notified',
  'closed',
  'escalated',
] as const;
export const ORIGINS = ['email', 'widget', 'codehost', 'proactive'] as const;
export const CATEGORIES = ['usage', 'config', 'docs', 'bug', 'feature_request', 'unknown'] as const;
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const SORTS = ['newest', 'oldest', 'updated', 'sla'] as const;
/** `needs_team=yes|no` in the address: tickets waiting for the team, or the others. */
export const NEEDS_TEAM = ['yes', 'no'] as const;

/** `workspace=all` in the address: every workspace the person opens (no `workspace_id`). */
export const ALL_WORKSPACES = 'all';

const pick = <T extends string>(values: readonly T[], given: string[]): T[] | undefined => {
  const ok = given.filter((v): v is T => (values as readonly string[]).includes(v));
  return ok.length ? ok : undefined;
};

/**
 * The inbox's filters live in the address (`?state=escalated&priority=urgent&q=cart`), so a
 * filtered inbox can be bookmarked, shared and restored with Back. Unknown values are dropped.
 * Without `workspace`, the workspace chosen in the top bar applies.
 */
export function filtersFrom(params: URLSearchParams, currentWorkspace: string | null): ListQuery {
  const workspace = params.get('workspace');
  const sort = params.get('sort');
  const needsTeam = params.get('needs_team');
  return {
    workspace_id: workspace === ALL_WORKSPACES ? undefined : workspace || currentWorkspace || undefined,
    state: pick(STATES, params.getAll('state')),
    origin: pick(ORIGINS, params.getAll('origin')),
    category: pick(CATEGORIES, params.getAll('category')),
    priority: pick(PRIORITIES, params.getAll('priority')),
    assignee: params.get('assignee') || undefined,
    q: params.get('q')?.trim() || undefined,
    needs_team_action: needsTeam === 'yes' ? true : needsTeam === 'no' ? false : undefined,
    sort: (SORTS as readonly string[]).includes(sort ?? '') ? (sort as Sort) : 'newest',
  };
}

/** The counts' query of a list's filters: the same filters, without state (counted per state) and sort. */
export function countFilters(f: ListQuery): CountQuery {
  const { state: _state, sort: _sort, cursor: _cursor, limit: _limit, ...rest } = f;
  return rest;
}

/** Sets one filter of the address (empty removes it); paging restarts with the new key. */
export function withFilter(params: URLSearchParams, name: string, value: string): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete(name);
  if (value) next.set(name, value);
  return next;
}
