import type { AuthContext } from '../../queries/session';

/**
 * What the signed-in person may do on a ticket, from the routes' role rules: owners, admins and
 * reviewers work tickets (`plugins.patchwell.roles` of the ticket routes); approving, rejecting,
 * fix in managed, back to approval and release retry need an approver role (governance:
 * organization.approval_roles). Deleting a ticket (a privacy request) is for owners and admins.
 * Client viewers read. Buttons a role cannot use are not offered.
 */
export interface TicketPermissions {
  work: boolean;
  approve: boolean;
  erase: boolean;
}

export function ticketPermissions(me: AuthContext | undefined): TicketPermissions {
  if (!me) return { work: false, approve: false, erase: false };
  const role = me.user.role;
  const work = role === 'owner' || role === 'admin' || role === 'reviewer';
  return {
    work,
    approve: work && me.organization.approval_roles.includes(role),
    erase: role === 'owner' || role === 'admin',
  };
}
