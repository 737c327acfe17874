import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { Knex } from 'knex';
import { requirePrincipal, type Principal } from '../../../core/http/auth.js';
import { paginate, paginationQuery, pageSchema } from '../../../core/http/pagination.js';
import type { GovernancePort } from '../services/deps.js';
import { isoTime } from '../../../core/http/times.js';

export const ApprovalItemSchema = Joi.object({
  kind: Joi.string()
    .valid('fix', 'release')
    .required()
    .description('`fix`: a verified fix attempt of one ticket; `release`: an open batched release proposal'),
  ticket_id: Joi.string().allow(null).required().description('The ticket of a fix; null for a release'),
  workspace_id: Joi.string().required(),
  subject: Joi.string().allow('', null).required().description("The ticket's subject for a fix; null for a release"),
  fix_attempt_id: Joi.string().allow(null).required().description('Null for a release'),
  release_id: Joi.string()
    .allow(null)
    .required()
    .description('The batched proposal (POST /v1/releases/{id}/approve); null for a fix'),
  head_sha: Joi.string()
    .required()
    .description("The commit to approve: the fix's head, or the default branch's head the proposal was last moved to"),
  pull_request_url: Joi.string().allow(null).required().description('Null for a release'),
  tickets: Joi.number()
    .integer()
    .required()
    .description('Tickets the approval releases: 1 for a fix, the merged fixes of a proposal'),
  approvals: Joi.number().integer().required(),
  min_approvers: Joi.number().integer().required(),
  waiting_since: isoTime().required(),
}).id('ApprovalItem');

const ListSchema = pageSchema(ApprovalItemSchema).id('ApprovalQueue');

/**
 * The caller's queue, as one keyset-ordered list: verified fixes (with a pull request, ticket
 * awaiting approval) not approved by the caller at their head, and open batched proposals with a
 * head not approved by the caller at it; in workspaces the caller opens.
 */
function queueQuery(db: Knex, p: Principal & { userId: string }): Knex.QueryBuilder {
  // The approvals that still count: given on the item's current head and not voided.
  const approvalsOf = (column: 'fix_attempt_id' | 'release_id', table: 'fix_attempts' | 'fix_releases') =>
    db('fix_approvals').whereRaw(
      `fix_approvals.${column} = ${table}.id and fix_approvals.sha = ${table}.head_sha and fix_approvals.voided_at is null`,
    );
  const fixes = db('fix_attempts')
    .join('tickets', 'tickets.id', 'fix_attempts.ticket_id')
    .where('fix_attempts.org_id', p.orgId)
    .where('tickets.org_id', p.orgId)
    .where('fix_attempts.status', 'verified')
    .whereNotNull('fix_attempts.pr_number')
    .where('tickets.state', 'awaiting_approval')
    .whereNotExists(
      approvalsOf('fix_attempt_id', 'fix_attempts').select(db.raw('1')).where('fix_approvals.user_id', p.userId),
    )
    .select(
      db.raw("'fix'::text as kind"),
      'fix_attempts.id as id',
      'fix_attempts.ticket_id',
      'fix_attempts.workspace_id',
      'tickets.subject',
      'fix_attempts.id as fix_attempt_id',
      db.raw('null::text as release_id'),
      'fix_attempts.head_sha',
      'fix_attempts.pr_url',
      db.raw('1 as tickets'),
      approvalsOf('fix_attempt_id', 'fix_attempts').count('*').as('approvals'),
      'fix_attempts.updated_at as waiting_since',
    );
  const releases = db('fix_releases')
    .where('fix_releases.org_id', p.orgId)
    .where({ 'fix_releases.kind': 'batched', 'fix_releases.status': 'proposed' })
    .whereNotNull('fix_releases.head_sha')
    .whereNotExists(
      approvalsOf('release_id', 'fix_releases').select(db.raw('1')).where('fix_approvals.user_id', p.userId),
    )
    .select(
      db.raw("'release'::text as kind"),
      'fix_releases.id as id',
      db.raw('null::text as ticket_id'),
      'fix_releases.workspace_id',
      db.raw('null::text as subject'),
      db.raw('null::text as fix_attempt_id'),
      'fix_releases.id as release_id',
      'fix_releases.head_sha',
      db.raw('null::text as pr_url'),
      db('fix_releases as m').count('*').whereRaw('m.batch_id = fix_releases.id').as('tickets'),
      approvalsOf('release_id', 'fix_releases').count('*').as('approvals'),
      'fix_releases.updated_at as waiting_since',
    );
  if (p.workspaceIds) {
    fixes.whereIn('fix_attempts.workspace_id', p.workspaceIds);
    releases.whereIn('fix_releases.workspace_id', p.workspaceIds);
  }
  return db.from(db.raw('(? union all ?) as q', [fixes, releases])).select('q.*');
}

/**
 * Section `approvals` (1): what waits for the caller's approval, oldest first — fixes (verified
 * attempts of tickets awaiting approval, with a pull request) and batched release proposals (at
 * the default branch's head they last moved to) — in workspaces the caller opens, not yet approved
 * by the caller at that commit; empty for a caller whose role does not approve.
 */
export function approvalRoutes(s: { db(): Knex; governance(): GovernancePort | null }): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/approvals',
      options: {
        id: 'listApprovals',
        tags: ['approvals'],
        description: "Fixes and batched release proposals waiting for the current user's approval, oldest first",
        notes:
          'A fix is approved with POST /v1/tickets/{id}/approve at `head_sha`, a release proposal with POST /v1/releases/{id}/approve at `head_sha`.',
        validate: { query: Joi.object({ ...paginationQuery }) },
        response: { status: { 200: ListSchema } },
        handler: async (request) => {
          const p: Principal = requirePrincipal(request);
          const q = request.query as { cursor?: string; limit: number };
          const gov = s.governance();
          const policy = gov ? await gov.policy(p.orgId) : { minApprovers: 1, roles: ['owner', 'admin'] };
          if (!policy.roles.includes(p.role) || !p.userId) return { items: [], next_cursor: null };
          const page = await paginate<Record<string, unknown>>(
            queueQuery(s.db(), { ...p, userId: p.userId }),
            [
              { column: 'q.waiting_since', field: 'waiting_since', direction: 'asc', type: 'date' },
              { column: 'q.id', field: 'id', direction: 'asc', type: 'string' },
            ],
            q,
          );
          return {
            items: page.items.map((r) => ({
              kind: r.kind,
              ticket_id: r.ticket_id ?? null,
              workspace_id: r.workspace_id,
              subject: r.subject ?? null,
              fix_attempt_id: r.fix_attempt_id ?? null,
              release_id: r.release_id ?? null,
              head_sha: r.head_sha,
              pull_request_url: r.pr_url ?? null,
              tickets: Number(r.tickets),
              approvals: Number(r.approvals),
              min_approvers: policy.minApprovers,
              waiting_since: new Date(r.waiting_since as string).toISOString(),
            })),
            next_cursor: page.next_cursor,
          };
        },
      },
    },
  ];
}
