import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import { ClaimPage, ClaimSchema } from '../schemas.js';
import type { BillingServices } from '../services/index.js';

const TAG = 'claims';

/** Claims of review and case-study credits. */
export function claimRoutes(s: BillingServices): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/billing/claims',
      options: {
        id: 'createBillingClaim',
        tags: [TAG],
        description: 'Asks for credits for a published review or case study',
        notes:
          'One claim of each kind while pending or approved (409 claim_exists). Staff review it; approval grants `review` or `case_study` credits.',
        validate: {
          payload: Joi.object({
            kind: Joi.string().valid('review', 'case_study').required(),
            url: Joi.string()
              .trim()
              .uri({ scheme: ['http', 'https'] })
              .max(2000)
              .required()
              .description('Where the review or case study is published'),
            note: Joi.string().trim().max(2000).allow('', null),
          }),
        },
        response: { status: { 201: ClaimSchema } },
        plugins: { patchwell: { roles: ['owner', 'admin'], successStatus: 201 } },
        handler: async (request, h) => {
          const actor = request.actor();
          const input = request.payload as { kind: 'review' | 'case_study'; url: string; note?: string | null };
          const claim = await s.claims.create(actor.orgId, actor.userId, actor, { ...input, note: input.note || null });
          return h.response(s.claims.json(claim)).code(201);
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/billing/claims',
      options: {
        id: 'listBillingClaims',
        tags: [TAG],
        description: 'Claims of the organization, newest first',
        validate: { query: Joi.object(paginationQuery) },
        response: { status: { 200: ClaimPage } },
        plugins: { patchwell: { roles: ['owner', 'admin', 'reviewer'] } },
        handler: async (request) => {
          const { cursor, limit } = request.query as { cursor?: string; limit?: number };
          return s.claims.list(s.db, requirePrincipal(request).orgId, { cursor, limit });
        },
      },
    },
  ];
}
