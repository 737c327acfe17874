import type { Schema } from '../api/types';

/** Query keys of the team: members (shared with the tickets area's assignee list), invitations, API tokens. */
export const memberKeys = {
  all: ['members'] as const,
  list: () => [...memberKeys.all, 'list'] as const,
  page: () => [...memberKeys.list(), 'page'] as const,
};

export const teamInvitationKeys = {
  all: ['team-invitations'] as const,
  list: (status: string) => [...teamInvitationKeys.all, 'list', status] as const,
};

export const tokenKeys = {
  all: ['tokens'] as const,
  list: () => [...tokenKeys.all, 'list'] as const,
};

export type Role = Schema<'User'>['role'];
export const ROLES: readonly Role[] = ['owner', 'admin', 'reviewer', 'client_viewer'];

/** The roles a person may hand out (invite, change to, give a token): their own and below (only owners make owners). */
export function grantableRoles(mine: Role): Role[] {
  return ROLES.slice(ROLES.indexOf(mine));
}

/** Whether a role opens only some workspaces (owners and admins open every one). */
export const scoped = (role: Role) => role === 'reviewer' || role === 'client_viewer';
