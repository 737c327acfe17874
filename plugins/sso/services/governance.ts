import type { Knex } from 'knex';
import type { Principal, Role } from '../../../core/http/auth.js';
import { httpError } from '../../../core/http/errors.js';
import { hasPlanFeature, loadOrg, rolesOf, type OrgRow, type SsoDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';

export const GOVERNANCE_DEFAULTS = { min_approvers: 1, roles: ['owner', 'admin'] as Role[] };

export interface ApprovalPolicy {
  /** Distinct approvals a fix or release needs. */
  minApprovers: number;
  /** Roles whose approval counts. */
  roles: Role[];
}

interface Member {
  id: string;
  role: Role;
}

/**
 * Approval governance, stored on the organization (approval_min_approvers, approval_roles).
 * Container key `approvalGovernance`: the fix loop asks `policy(orgId)` and `canApprove(...)`
 * before counting an approval, and `eligibleApprovers(orgId, workspaceId)` to warn when a
 * workspace cannot reach its minimum. Without the plan feature the defaults apply.
 */
export class ApprovalGovernance {
  constructor(private readonly d: SsoDeps) {}

  private effective(org: OrgRow): ApprovalPolicy {
    if (!hasPlanFeature(this.d, org, 'approval_governance'))
      return { minApprovers: GOVERNANCE_DEFAULTS.min_approvers, roles: [...GOVERNANCE_DEFAULTS.roles] };
    const roles = rolesOf(org);
    return {
      minApprovers: Math.max(1, org.approval_min_approvers || 1),
      roles: roles.length ? roles : [...GOVERNANCE_DEFAULTS.roles],
    };
  }

  /** The policy in force for an organization. */
  async policy(orgId: string, db: Knex = this.d.db): Promise<ApprovalPolicy> {
    return this.effective(await loadOrg(db, orgId));
  }

  /** Whether this caller's approval counts for the workspace (role and workspace access). */
  async canApprove(
    principal: Pick<Principal, 'orgId' | 'role' | 'workspaceIds' | 'userId'>,
    workspaceId: string,
    db: Knex = this.d.db,
  ): Promise<boolean> {
    if (!principal.userId) return false;
    const { roles } = await this.policy(principal.orgId, db);
    if (!roles.includes(principal.role)) return false;
    return principal.workspaceIds === null || principal.workspaceIds.includes(workspaceId);
  }

  private async members(db: Knex, orgId: string): Promise<Member[]> {
    return (await db('users')
      .select('id', 'role')
      .where({ org_id: orgId })
      .whereNull('removed_at')
      .whereNull('disabled_at')) as Member[];
  }

  /** Members whose approval counts in a workspace: approver roles that can open it. */
  async eligibleApprovers(orgId: string, workspaceId: string, db: Knex = this.d.db): Promise<string[]> {
    const { roles } = await this.policy(orgId, db);
    return this.eligibleIn(db, orgId, roles, [workspaceId]).then((m) => m.get(workspaceId) ?? []);
  }

  private async eligibleIn(
    db: Knex,
    orgId: string,
    roles: Role[],
    workspaceIds: string[],
  ): Promise<Map<string, string[]>> {
    const members = (await this.members(db, orgId)).filter((m) => roles.includes(m.role));
    const all = members.filter((m) => m.role === 'owner' || m.role === 'admin').map((m) => m.id);
    const limited = members.filter((m) => m.role !== 'owner' && m.role !== 'admin').map((m) => m.id);
    const grants =
      limited.length && workspaceIds.length
        ? ((await db('user_workspaces')
            .select('user_id', 'workspace_id')
            .where('org_id', orgId)
            .whereIn('user_id', limited)
            .whereIn('workspace_id', workspaceIds)) as Array<{ user_id: string; workspace_id: string }>)
        : [];
    const out = new Map<string, string[]>(workspaceIds.map((w) => [w, [...all]]));
    for (const g of grants) out.get(g.workspace_id)?.push(g.user_id);
    return out;
  }

  /** The Governance answer. */
  async json(orgId: string, db: Knex = this.d.db) {
    const org = await loadOrg(db, orgId);
    const policy = this.effective(org);
    const members = await this.members(db, orgId);
    const workspaces = (await db('workspaces')
      .select('id', 'name')
      .where({ org_id: orgId })
      .whereNull('archived_at')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])) as Array<{ id: string; name: string }>;
    const eligible = await this.eligibleIn(
      db,
      orgId,
      policy.roles,
      workspaces.map((w) => w.id),
    );
    return {
      available: hasPlanFeature(this.d, org, 'approval_governance'),
      min_approvers: policy.minApprovers,
      roles: policy.roles,
      defaults: { min_approvers: GOVERNANCE_DEFAULTS.min_approvers, roles: [...GOVERNANCE_DEFAULTS.roles] },
      eligible_approvers: members.filter((m) => policy.roles.includes(m.role)).length,
      workspaces_below_minimum: workspaces
        .map((w) => ({ id: w.id, name: w.name, eligible: eligible.get(w.id)?.length ?? 0 }))
        .filter((w) => w.eligible < policy.minApprovers),
      max_min_approvers: this.d.ssoOptions.maxMinApprovers,
    };
  }

  async update(principal: Principal, input: { min_approvers: number; roles: Role[] }, actor: SignedInActor) {
    return this.d.db.transaction(async (trx) => {
      const org = await loadOrg(trx, principal.orgId);
      if (!hasPlanFeature(this.d, org, 'approval_governance')) {
        throw httpError(402, 'feature_not_in_plan', 'Approval governance is not part of your plan', {
          feature: 'approval_governance',
          plan: org.plan,
        });
      }
      if (input.min_approvers > this.d.ssoOptions.maxMinApprovers) {
        throw httpError(400, 'invalid_request', `min_approvers must be at most ${this.d.ssoOptions.maxMinApprovers}`, {
          errors: [
            {
              path: 'payload.min_approvers',
              message: `must be less than or equal to ${this.d.ssoOptions.maxMinApprovers}`,
            },
          ],
        });
      }
      const roles = [...new Set(input.roles)].sort(
        (a, b) => ['owner', 'admin', 'reviewer'].indexOf(a) - ['owner', 'admin', 'reviewer'].indexOf(b),
      );
      const before = { min_approvers: org.approval_min_approvers, roles: rolesOf(org) };
      await trx('organizations')
        .where({ id: org.id })
        .update({
          approval_min_approvers: input.min_approvers,
          approval_roles: JSON.stringify(roles),
          updated_at: new Date(),
        });
      const changes: Record<string, { before: unknown; after: unknown }> = {};
      if (before.min_approvers !== input.min_approvers)
        changes.approval_min_approvers = { before: before.min_approvers, after: input.min_approvers };
      if (JSON.stringify(before.roles) !== JSON.stringify(roles))
        changes.approval_roles = { before: before.roles, after: roles };
      if (Object.keys(changes).length) {
        await this.d.audit.record(trx, {
          actor,
          action: 'governance.updated',
          target: { type: 'organization', id: org.id },
          changes,
        });
        await this.d.outbox.add(
          trx,
          'sso.governance_changed',
          { org_id: org.id, min_approvers: input.min_approvers, roles },
          { orgId: org.id },
        );
      }
      return this.json(org.id, trx);
    });
  }
}
