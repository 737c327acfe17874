import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { Knex } from 'knex';
import { requirePrincipal, type Principal } from '../../../core/http/auth.js';
import { paginate, paginationQuery } from '../../../core/http/pagination.js';
import type { GovernancePort } from '../services/deps.js';

export const ApprovalItemSchema = Joi.object({
  kind: Joi.string().valid('fix').required(),
  ticket_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  subject: Joi.string().allow('').required(),
  fix_attempt_id: Joi.string().required(),
  head_sha: Joi.string().required(),
  pull_request_url: Joi.string().allow(null).required(),
  approvals: Joi.number().integer().required(),
  min_approvers: Joi.number().integer().required(),
  waiting_since: Joi.string().isoDate().required(),
}).id('ApprovalItem');

const ListSchema = Joi.object({ items: Joi.array().items(ApprovalItemSchema).required(), next_cursor: Joi.string().allow(null).required() }).id('ApprovalQueue');

/**
 * Section `approvals` (1): the fixes waiting for the caller's approval — verified attempts of
 * tickets awaiting approval, in workspaces the caller opens, with a pull request, that the caller
 * has not approved at their head commit; empty for a caller whose role does not approve.
 */
export function approvalRoutes(s: { db(): Knex; governance(): GovernancePort | null }): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/approvals',
      options: {
        id: 'listApprovals',
        tags: ['approvals'],
        description: 'Fixes waiting for the current user\'s approval, oldest first',
        validate: { query: Joi.object({ ...paginationQuery }) },
        response: { status: { 200: ListSchema } },
        handler: async (request) => {
          const p: Principal = requirePrincipal(request);
          const q = request.query as { cursor?: string; limit: number };
          const gov = s.governance();
          const policy = gov ? await gov.policy(p.orgId) : { minApprovers: 1, roles: ['owner', 'admin'] };
          if (!policy.roles.includes(p.role) || !p.userId) return { items: [], next_cursor: null };
          const db = s.db();
          const live = db('fix_approvals').count('*').whereRaw('fix_approvals.fix_attempt_id = fix_attempts.id and fix_approvals.sha = fix_attempts.head_sha and fix_approvals.voided_at is null');
          const query = db('fix_attempts')
            .join('tickets', 'tickets.id', 'fix_attempts.ticket_id')
            .where('fix_attempts.org_id', p.orgId)
            .where('tickets.org_id', p.orgId)
            .where('fix_attempts.status', 'verified')
            .whereNotNull('fix_attempts.pr_number')
            .where('tickets.state', 'awaiting_approval')
            .whereNotExists(db('fix_approvals').select(db.raw('1')).whereRaw('fix_approvals.fix_attempt_id = fix_attempts.id and fix_approvals.sha = fix_attempts.head_sha and fix_approvals.voided_at is null').where('fix_approvals.user_id', p.userId))
            .select('fix_attempts.id', 'fix_attempts.ticket_id', 'fix_attempts.workspace_id', 'fix_attempts.head_sha', 'fix_attempts.pr_url', 'fix_attempts.updated_at', 'tickets.subject', live.as('approvals'));
          if (p.workspaceIds) query.whereIn('fix_attempts.workspace_id', p.workspaceIds);
          const page = await paginate<Record<string, unknown>>(query, [{ column: 'fix_attempts.updated_at', field: 'updated_at', direction: 'asc', type: 'date' }, { column: 'fix_attempts.id', field: 'id', direction: 'asc', type: 'string' }], q);
          return {
            items: page.items.map((r) => ({
              kind: 'fix', ticket_id: r.ticket_id, workspace_id: r.workspace_id, subject: r.subject, fix_attempt_id: r.id, head_sha: r.head_sha, pull_request_url: r.pr_url ?? null,
              approvals: Number(r.approvals), min_approvers: policy.minApprovers, waiting_since: new Date(r.updated_at as string).toISOString(),
            })),
            next_cursor: page.next_cursor,
          };
        },
      },
    },
  ];
}
