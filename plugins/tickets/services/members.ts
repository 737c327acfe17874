import type { Knex } from 'knex';

/**
 * Members of an organization, read from the accounts plugin's `users` and `user_workspaces`
 * tables (owners and admins open every workspace; reviewers and client viewers the ones granted).
 */
export interface Member {
  id: string;
  email: string;
  name: string;
  role: 'owner' | 'admin' | 'reviewer' | 'client_viewer';
  locale: string;
}

const COLUMNS = ['id', 'email', 'name', 'role', 'locale'];

/** An active member (not removed, not disabled) of the organization, or null. */
export async function findMember(db: Knex, orgId: string, userId: string): Promise<Member | null> {
  const row = (await db('users')
    .select(COLUMNS)
    .where({ org_id: orgId, id: userId })
    .whereNull('removed_at')
    .whereNull('disabled_at')
    .first()) as Member | undefined;
  return row ?? null;
}

export async function memberCanOpen(db: Knex, orgId: string, member: Member, workspaceId: string): Promise<boolean> {
  if (member.role === 'owner' || member.role === 'admin') return true;
  return !!(await db('user_workspaces')
    .where({ org_id: orgId, user_id: member.id, workspace_id: workspaceId })
    .first());
}

/** The people told about an escalation: the organization's active owners and admins. */
export async function teamLeads(db: Knex, orgId: string): Promise<Member[]> {
  return (await db('users')
    .select(COLUMNS)
    .where({ org_id: orgId })
    .whereIn('role', ['owner', 'admin'])
    .whereNull('removed_at')
    .whereNull('disabled_at')
    .orderBy('created_at')) as Member[];
}
