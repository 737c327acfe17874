import type { Knex } from 'knex';
import type { Role } from '../../../core/http/auth.js';
import { forbidden, httpError } from '../../../core/http/errors.js';
import { acrossOrgs, run, type Statement } from '../../../core/data/statements.js';
import type { CredentialCache } from './credential-cache.js';
import type { WorkspaceRow } from './format.js';

/** Higher ranks include the powers of lower ones. */
export const ROLE_RANK: Record<Role, number> = { owner: 3, admin: 2, reviewer: 1, client_viewer: 0 };

/** Owners and admins open every workspace of their organization; the others only those granted. */
export const seesAllWorkspaces = (role: Role): boolean => role === 'owner' || role === 'admin';

export const lowerRole = (a: Role, b: Role): Role => (ROLE_RANK[a] <= ROLE_RANK[b] ? a : b);

const SUMMARY_COLUMNS = ['id', 'org_id', 'name', 'slug', 'client_name', 'execution_mode', 'autonomy', 'archived_at'];

/** Workspaces a user can open, oldest first. */
export async function accessibleWorkspaces(
  db: Knex,
  user: { id: string; org_id: string; role: Role },
): Promise<WorkspaceRow[]> {
  const q = db('workspaces')
    .select(SUMMARY_COLUMNS.map((c) => `workspaces.${c}`))
    .where('workspaces.org_id', user.org_id);
  if (!seesAllWorkspaces(user.role)) {
    q.join('user_workspaces', 'user_workspaces.workspace_id', 'workspaces.id').where(
      'user_workspaces.user_id',
      user.id,
    );
  }
  return (await q.orderBy([
    { column: 'workspaces.created_at', order: 'asc' },
    { column: 'workspaces.id', order: 'asc' },
  ])) as WorkspaceRow[];
}

/** What an authenticated request needs of its user, read with the credential in one query. */
export interface CredentialUser {
  id: string;
  org_id: string;
  role: Role;
  email: string;
  locale: string;
  staff: boolean;
  removed_at: Date | null;
  disabled_at: Date | null;
  /** Granted workspaces; null for roles that see every workspace. */
  workspace_ids: string[] | null;
}

// What a request needs of each credential kind (explicit columns: these run as prepared statements).
const CREDENTIAL_COLUMNS = {
  sessions: [
    'id',
    'org_id',
    'user_id',
    'token_hash',
    'sso',
    'last_seen_at',
    'idle_expires_at',
    'absolute_expires_at',
    'revoked_at',
    'created_at',
  ],
  api_tokens: [
    'id',
    'org_id',
    'user_id',
    'name',
    'role',
    'workspace_ids',
    'token_hash',
    'last4',
    'expires_at',
    'last_used_at',
    'revoked_at',
    'created_at',
    'updated_at',
  ],
} as const;

const credentialStatements = Object.fromEntries(
  Object.entries(CREDENTIAL_COLUMNS).map(([table, columns]) => [
    table,
    acrossOrgs(
      'a credential found by its token hash',
      `
  select ${columns.map((c) => `c.${c}`).join(', ')},
    u.role as u_role, u.email as u_email, u.locale as u_locale, u.staff as u_staff, u.removed_at as u_removed_at, u.disabled_at as u_disabled_at,
    case when u.role in ('owner', 'admin') then null
      else array(select uw.workspace_id from user_workspaces uw where uw.user_id = u.id and uw.org_id = u.org_id order by uw.workspace_id) end as u_workspace_ids
  from ${table} c join users u on u.id = c.user_id and u.org_id = c.org_id
  where c.token_hash = $1
  limit 1`,
    ),
  ]),
) as Record<keyof typeof CREDENTIAL_COLUMNS, Statement>;

type CredentialRow = Record<string, unknown> & {
  user_id: string;
  org_id: string;
  u_role: Role;
  u_email: string;
  u_locale: string;
  u_staff: boolean | null;
  u_removed_at: Date | null;
  u_disabled_at: Date | null;
  u_workspace_ids: string[] | null;
};

export type FoundCredential = { credential: Record<string, unknown>; user: CredentialUser };

/**
 * Reads a credential row (sessions, api_tokens) together with its user's principal fields and
 * workspace grants: every authenticated request pays for this, so it is one round trip, not
 * three, through a prepared statement.
 */
export async function credentialWithUser(
  db: Knex,
  table: 'sessions' | 'api_tokens',
  tokenHash: string,
): Promise<FoundCredential | null> {
  const [row] = await run<CredentialRow>(db, credentialStatements[table], [tokenHash]);
  if (!row) return null;
  const { u_role, u_email, u_locale, u_staff, u_removed_at, u_disabled_at, u_workspace_ids, ...credential } = row;
  return {
    credential,
    user: {
      id: row.user_id,
      org_id: row.org_id,
      role: u_role,
      email: u_email,
      locale: u_locale,
      staff: u_staff === true,
      removed_at: u_removed_at,
      disabled_at: u_disabled_at,
      workspace_ids: u_workspace_ids,
    },
  };
}

/**
 * The credential lookup of every request, through the credential cache (container key
 * `credentials`): a caller's next request within the cache's lifetime reads nothing.
 */
export class Credentials {
  private readonly db: Knex;
  private readonly cache: CredentialCache<FoundCredential>;

  constructor({ db, credentialCache }: { db: Knex; credentialCache: CredentialCache<FoundCredential> }) {
    this.db = db;
    this.cache = credentialCache;
  }

  find(table: 'sessions' | 'api_tokens', tokenHash: string): Promise<FoundCredential | null> {
    return this.cache.through(`${table}:${tokenHash}`, () => credentialWithUser(this.db, table, tokenHash));
  }
}

/** workspace_ids of many users at once (User.workspace_ids: every workspace for owners and admins). */
export async function workspaceIdsByUser(
  db: Knex,
  orgId: string,
  users: { id: string; role: Role }[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (users.length === 0) return out;
  const all = users.some((u) => seesAllWorkspaces(u.role))
    ? (
        (await db('workspaces')
          .select('id')
          .where('org_id', orgId)
          .orderBy([{ column: 'created_at' }, { column: 'id' }])) as { id: string }[]
      ).map((r) => r.id)
    : [];
  const limited = users.filter((u) => !seesAllWorkspaces(u.role)).map((u) => u.id);
  const grants = limited.length
    ? ((await db('user_workspaces')
        .select('user_id', 'workspace_id')
        .where('org_id', orgId)
        .whereIn('user_id', limited)
        .orderBy('workspace_id')) as { user_id: string; workspace_id: string }[])
    : [];
  for (const u of users) out.set(u.id, seesAllWorkspaces(u.role) ? [...all] : []);
  for (const g of grants) out.get(g.user_id)!.push(g.workspace_id);
  return out;
}

/**
 * A caller limited to some workspaces (an API token scoped to them) manages access within them
 * only: no role that opens every workspace, no grant outside its list. 403 otherwise. Callers
 * that see every workspace (sessions and unscoped tokens of owners and admins) pass.
 */
export function assertWithinScope(scope: string[] | null, role: Role | null, workspaceIds: readonly string[]): void {
  if (!scope) return;
  if (role && seesAllWorkspaces(role))
    throw forbidden('A token limited to some workspaces cannot give access to every workspace');
  if (workspaceIds.some((id) => !scope.includes(id)))
    throw forbidden('A token limited to some workspaces cannot grant others');
}

/**
 * The workspaces an API token is limited to (its own list within its creator's), or null. A
 * session shows what its person may see, as always; a token shows nothing of other workspaces.
 */
export const tokenScope = (p: { kind: string; workspaceIds: string[] | null }): string[] | null =>
  p.kind === 'token' ? p.workspaceIds : null;

/** What a token limited to some workspaces sees of a list of workspace ids: those within its list. */
export const visibleIds = (scope: string[] | null, ids: string[]): string[] =>
  scope ? ids.filter((id) => scope.includes(id)) : ids;

/** 400 invalid_request about one field. */
export const invalidField = (path: string, message: string) =>
  httpError(400, 'invalid_request', message, { errors: [{ path, message }] });

/**
 * Checks that every id names a workspace of the organization; an unknown id (or another
 * organization's) answers 400 invalid_request naming the field.
 */
export async function checkWorkspaceIds(
  db: Knex,
  orgId: string,
  ids: string[],
  path = 'payload.workspace_ids',
): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const found = (
    (await db('workspaces').select('id').where('org_id', orgId).whereIn('id', unique)) as { id: string }[]
  ).map((r) => r.id);
  const missing = unique.filter((id) => !found.includes(id));
  if (missing.length) {
    throw httpError(400, 'invalid_request', `Unknown workspace: ${missing.join(', ')}`, {
      errors: [{ path, message: `unknown workspace ${missing[0]}` }],
    });
  }
  return unique.sort();
}

/** Replaces a user's workspace grants (owners and admins keep none: they see everything). */
export async function setWorkspaceGrants(
  trx: Knex,
  user: { id: string; org_id: string; role: Role },
  ids: string[],
): Promise<void> {
  await trx('user_workspaces').where({ user_id: user.id }).delete();
  if (seesAllWorkspaces(user.role) || ids.length === 0) return;
  await trx('user_workspaces').insert(
    ids.map((workspace_id) => ({ user_id: user.id, workspace_id, org_id: user.org_id, created_at: new Date() })),
  );
}
