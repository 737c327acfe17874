import type { Knex } from 'knex';
import type { Role } from '../../../core/http/auth.js';
import { httpError } from '../../../core/http/errors.js';
import type { WorkspaceRow } from './format.js';

/** Higher ranks include the powers of lower ones. */
export const ROLE_RANK: Record<Role, number> = { owner: 3, admin: 2, reviewer: 1, client_viewer: 0 };

/** Owners and admins open every workspace of their organization; the others only those granted. */
export const seesAllWorkspaces = (role: Role): boolean => role === 'owner' || role === 'admin';

export const lowerRole = (a: Role, b: Role): Role => (ROLE_RANK[a] <= ROLE_RANK[b] ? a : b);

const SUMMARY_COLUMNS = ['id', 'org_id', 'name', 'slug', 'client_name', 'execution_mode', 'autonomy', 'archived_at'];

/** Workspaces a user can open, oldest first. */
export async function accessibleWorkspaces(db: Knex, user: { id: string; org_id: string; role: Role }): Promise<WorkspaceRow[]> {
  const q = db('workspaces').select(SUMMARY_COLUMNS.map((c) => `workspaces.${c}`)).where('workspaces.org_id', user.org_id);
  if (!seesAllWorkspaces(user.role)) {
    q.join('user_workspaces', 'user_workspaces.workspace_id', 'workspaces.id').where('user_workspaces.user_id', user.id);
  }
  return (await q.orderBy([{ column: 'workspaces.created_at', order: 'asc' }, { column: 'workspaces.id', order: 'asc' }])) as WorkspaceRow[];
}

/** The Principal's workspaceIds: null for owners and admins (every workspace), else the granted ids. */
export async function principalWorkspaceIds(db: Knex, user: { id: string; org_id: string; role: Role }): Promise<string[] | null> {
  if (seesAllWorkspaces(user.role)) return null;
  const rows = await db('user_workspaces').select('workspace_id').where({ user_id: user.id, org_id: user.org_id }).orderBy('workspace_id');
  return rows.map((r: { workspace_id: string }) => r.workspace_id);
}

/** workspace_ids of many users at once (User.workspace_ids: every workspace for owners and admins). */
export async function workspaceIdsByUser(db: Knex, orgId: string, users: { id: string; role: Role }[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (users.length === 0) return out;
  const all = users.some((u) => seesAllWorkspaces(u.role))
    ? ((await db('workspaces').select('id').where('org_id', orgId).orderBy([{ column: 'created_at' }, { column: 'id' }])) as { id: string }[]).map((r) => r.id)
    : [];
  const limited = users.filter((u) => !seesAllWorkspaces(u.role)).map((u) => u.id);
  const grants = limited.length
    ? ((await db('user_workspaces').select('user_id', 'workspace_id').where('org_id', orgId).whereIn('user_id', limited).orderBy('workspace_id')) as { user_id: string; workspace_id: string }[])
    : [];
  for (const u of users) out.set(u.id, seesAllWorkspaces(u.role) ? [...all] : []);
  for (const g of grants) out.get(g.user_id)!.push(g.workspace_id);
  return out;
}

/** 400 invalid_request about one field. */
export const invalidField = (path: string, message: string) => httpError(400, 'invalid_request', message, { errors: [{ path, message }] });

/**
 * Checks that every id names a workspace of the organization; an unknown id (or another
 * organization's) answers 400 invalid_request naming the field.
 */
export async function checkWorkspaceIds(db: Knex, orgId: string, ids: string[], path = 'payload.workspace_ids'): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const found = ((await db('workspaces').select('id').where('org_id', orgId).whereIn('id', unique)) as { id: string }[]).map((r) => r.id);
  const missing = unique.filter((id) => !found.includes(id));
  if (missing.length) {
    throw httpError(400, 'invalid_request', `Unknown workspace: ${missing.join(', ')}`, { errors: [{ path, message: `unknown workspace ${missing[0]}` }] });
  }
  return unique.sort();
}

/** Replaces a user's workspace grants (owners and admins keep none: they see everything). */
export async function setWorkspaceGrants(trx: Knex, user: { id: string; org_id: string; role: Role }, ids: string[]): Promise<void> {
  await trx('user_workspaces').where({ user_id: user.id }).delete();
  if (seesAllWorkspaces(user.role) || ids.length === 0) return;
  await trx('user_workspaces').insert(ids.map((workspace_id) => ({ user_id: user.id, workspace_id, org_id: user.org_id, created_at: new Date() })));
}
