import type { Principal } from '../../../core/http/auth.js';
import { httpError } from '../../../core/http/errors.js';
import { decodeCursor, encodeCursor, invalidCursor, type SortKey } from '../../../core/http/pagination.js';
import { forOrg, type Statement } from '../../../core/data/statements.js';
import { PUBLIC_STATE, type TicketState } from './state-machine.js';

/**
 * The ticket list as one prepared statement per filter shape (docs/tickets.md, Performance).
 * Each sort has its index led by the tenant (tickets_org_*_idx); the keyset condition is a
 * row-value comparison, so a page deep in the list costs what the first page costs.
 */
export type ListSort = 'newest' | 'oldest' | 'updated' | 'sla';

/** The filters the list and its counts share (GET /v1/tickets, GET /v1/tickets/counts). */
export interface TicketFilters {
  state?: string[];
  origin?: string[];
  category?: string[];
  priority?: string[];
  workspace_id?: string;
  q?: string;
  assignee?: string;
  /** true: only tickets waiting for the team; false: only the others (a literal in the text: the partial index tickets_needs_team_idx). */
  needs_team_action?: boolean;
}

export interface ListFilters extends TicketFilters {
  sort: ListSort;
  cursor?: string;
  limit: number;
}

const SORTS: Record<ListSort, { column: string; direction: 'asc' | 'desc' }> = {
  newest: { column: 'created_at', direction: 'desc' },
  oldest: { column: 'created_at', direction: 'asc' },
  updated: { column: 'updated_at', direction: 'desc' },
  sla: { column: 'sla_sort_at', direction: 'asc' },
};

/**
 * A row of the list statement: the ticket's TicketItem as JSON text (`ticket_items.item_json`,
 * kept by a trigger: migrations/1050_tickets_item_json.ts), what the item takes from elsewhere (the
 * workspace's names, the state for public_state) and the cursor key.
 */
export interface ListRow {
  id: string;
  state: TicketState;
  item_json: string;
  workspace_name: string;
  workspace_client_name: string | null;
  /** The sort column in Postgres' own text form, full precision, for the next cursor. */
  cursor_key: string;
}

// `,"public_state":"…"}` per state: the end of each item, from the state machine's table.
const ITEM_END = new Map(
  Object.entries(PUBLIC_STATE).map(([state, shown]) => [state, `,"public_state":${JSON.stringify(shown)}}`]),
);

/**
 * The item of a list row as JSON text: the stored item with the fields that are not the row's own
 * appended. Equal to `ticketItem` of the same ticket once parsed (plugins/tickets/test/item-json.test.ts).
 */
export function itemJson(row: ListRow): string {
  const client = row.workspace_client_name === null ? 'null' : JSON.stringify(row.workspace_client_name);
  return `${row.item_json.slice(0, -1)},"workspace_name":${JSON.stringify(row.workspace_name)},"client_name":${client}${ITEM_END.get(row.state)}`;
}

/** A page (`limit + 1` rows at most) as the JSON text of a TicketPage. */
export function pageJson(rows: ListRow[], limit: number): string {
  let items = '';
  for (let i = 0; i < rows.length && i < limit; i++) items += (i ? ',' : '') + itemJson(rows[i]);
  const next = nextCursor(rows, limit);
  return `{"items":[${items}],"next_cursor":${next === null ? 'null' : JSON.stringify(next)}}`;
}

/** The items of a page as objects, for callers that read them. */
export function pageItems(rows: ListRow[], limit: number): Record<string, unknown>[] {
  return rows.slice(0, limit).map((r) => JSON.parse(itemJson(r)) as Record<string, unknown>);
}

export function nextCursor(rows: ListRow[], limit: number): string | null {
  const last = rows[limit - 1];
  return rows.length > limit && last ? encodeCursor([last.cursor_key, last.id]) : null;
}

const CURSOR_KEYS: SortKey[] = [
  { column: 'sort key', direction: 'desc', type: 'date' },
  { column: 'id', direction: 'desc', type: 'string' },
];

/** The cursor's [sort key, id], or 400 invalid_request. */
function decode(cursor: string): [string, string] {
  const [key, id] = decodeCursor(cursor, CURSOR_KEYS);
  if (typeof key !== 'string' || typeof id !== 'string' || id.length === 0 || id.length > 64) throw invalidCursor();
  return [key, id];
}

/**
 * The WHERE conditions (on `tickets t`) and values of the filters, the organization as `$1`;
 * `param` adds a value and answers its placeholder. Returns null when the caller can open no
 * workspace at all. Workspace access for an explicit workspace_id is the caller's to check.
 */
export function ticketWhere(
  principal: Principal,
  f: TicketFilters,
): { where: string[]; values: unknown[]; param: (v: unknown) => string } | null {
  const values: unknown[] = [principal.orgId];
  const where: string[] = ['t.org_id = $1'];
  const param = (v: unknown) => `$${values.push(v)}`;
  if (f.workspace_id) where.push(`t.workspace_id = ${param(f.workspace_id)}`);
  else if (principal.workspaceIds !== null) {
    if (principal.workspaceIds.length === 0) return null;
    where.push(`t.workspace_id = any(${param(principal.workspaceIds)}::text[])`);
  }
  for (const key of ['state', 'origin', 'category', 'priority'] as const) {
    const list = f[key];
    if (!list?.length) continue;
    where.push(list.length === 1 ? `t.${key} = ${param(list[0])}` : `t.${key} = any(${param(list)}::text[])`);
  }
  if (f.assignee === 'unassigned') where.push('t.assignee_user_id is null');
  else if (f.assignee === 'me') {
    if (!principal.userId)
      throw httpError(400, 'invalid_request', 'assignee=me needs a signed-in user', {
        errors: [{ path: 'query.assignee', message: 'no user behind this credential' }],
      });
    where.push(`t.assignee_user_id = ${param(principal.userId)}`);
  } else if (f.assignee) where.push(`t.assignee_user_id = ${param(f.assignee)}`);
  // Written out, not a value: a generic plan can use the partial index only for the literal predicate.
  if (f.needs_team_action === true) where.push('t.needs_team_action');
  else if (f.needs_team_action === false) where.push('not t.needs_team_action');
  if (f.q) where.push(`t.search_vector @@ websearch_to_tsquery('simple', ${param(f.q)})`);
  return { where, values, param };
}

/**
 * The statement and values of one page: `limit + 1` rows (the extra one says a next page exists).
 * Returns null when the caller can open no workspace at all. Workspace access for an explicit
 * workspace_id is the caller's to check.
 */
export function listStatement(principal: Principal, f: ListFilters): { stmt: Statement; values: unknown[] } | null {
  const built = ticketWhere(principal, f);
  if (!built) return null;
  const { where, values, param } = built;
  const sort = SORTS[f.sort];
  const op = sort.direction === 'asc' ? '>' : '<';
  if (f.cursor) {
    const [key, id] = decode(f.cursor);
    where.push(`(t.${sort.column}, t.id) ${op} (${param(key)}::timestamptz, ${param(id)})`);
  }
  // The limit is part of the text (a bounded set of shapes): with `limit $n` Postgres cannot
  // cost a generic plan and plans every execution again (~0.2 ms).
  const limit = f.limit + 1;
  if (!Number.isInteger(limit) || limit < 2 || limit > 1000) throw new RangeError(`list limit ${f.limit}`);
  const text = `select t.id, t.state, i.item_json, t.${sort.column}::text as cursor_key, ws.name as workspace_name, ws.client_name as workspace_client_name
    from tickets t join ticket_items i on i.ticket_id = t.id join workspaces ws on ws.id = t.workspace_id
    where ${where.join(' and ')}
    order by t.${sort.column} ${sort.direction}, t.id ${sort.direction}
    limit ${limit}`;
  // Full text: how many rows match depends on the words, so each search is planned for its own
  // words (a generic plan could walk the whole created_at index for a rare word).
  return { stmt: forOrg(text, { customPlan: !!f.q }), values };
}

/** A row of the counts statement: a state's count, or `needs_team_action` for the tickets waiting for the team. */
export interface CountRow {
  key: string;
  n: number;
}

/**
 * The counts of the tickets the filters match (GET /v1/tickets/counts), one statement: per state
 * (an index-only walk of tickets_org_state_created_idx when only the organization filters) and
 * the tickets waiting for the team (the partial index tickets_needs_team_idx). The state filter,
 * sort and cursor are the list's own and do not apply. Null when the caller can open no workspace.
 */
export function countStatement(
  principal: Principal,
  f: Omit<TicketFilters, 'state'>,
): { stmt: Statement; values: unknown[] } | null {
  const built = ticketWhere(principal, { ...f, state: undefined });
  if (!built) return null;
  const where = built.where.join(' and ');
  const needs = f.needs_team_action === undefined ? `${where} and t.needs_team_action` : where;
  // With needs_team_action=false no ticket of the answer waits for the team: nothing to count.
  const needsPart =
    f.needs_team_action === false
      ? "select 'needs_team_action' as key, 0 as n"
      : `select 'needs_team_action' as key, count(*)::int as n from tickets t where ${needs}`;
  const text = `select t.state as key, count(*)::int as n from tickets t where ${where} group by t.state
    union all
    ${needsPart}`;
  return { stmt: forOrg(text, { customPlan: !!f.q }), values: built.values };
}
