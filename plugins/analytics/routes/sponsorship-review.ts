import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { paginationQuery } from '../../../core/http/pagination.js';
import type { DecisionInput, SponsorshipReview } from '../services/sponsorship-review.js';
import { isoTime, nullableTime } from '../../../core/http/times.js';

// Staff operations beyond the spec (its `analytics` section has two): the review of the requests
// POST /v1/public/oss-sponsorship-requests stores. See docs/analytics.md.
const tags = ['analytics'];
const STAFF = {
  patchwell: {
    staff: true,
    extension:
      'Staff review the open-source sponsorship requests that POST /v1/public/oss-sponsorship-requests stores ' +
      '("reviewed by hand"); the spec names no operation for it.',
  },
};

const RequestSchema = Joi.object({
  id: Joi.string().required(),
  repository_url: Joi.string().required(),
  repository: Joi.string().required().description('host/owner/name, lower case'),
  name: Joi.string().required(),
  email: Joi.string().required(),
  project_description: Joi.string().allow(null, '').required(),
  monthly_issues: Joi.number().integer().allow(null).required(),
  locale: Joi.string().valid('en', 'it').required(),
  status: Joi.string().valid('received', 'approved', 'declined').required(),
  created_at: isoTime().required(),
  decided_at: nullableTime(),
  decided_by: Joi.string().allow(null).required().description('Email of the staff member who decided'),
  note: Joi.string().allow(null).required(),
  organization_id: Joi.string().allow(null).required(),
  fixes_granted: Joi.number().integer().allow(null).required(),
  credits_expire_at: nullableTime(),
}).id('OssSponsorshipReview');

export function sponsorshipReviewRoutes(review: () => SponsorshipReview): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/analytics/oss-sponsorship-requests',
      options: {
        id: 'listOssSponsorshipRequests',
        tags,
        description: 'Open-source sponsorship requests to review (staff)',
        notes: 'Newest first; `status` filters (received = waiting for review).',
        validate: {
          query: Joi.object({ status: Joi.string().valid('received', 'approved', 'declined'), ...paginationQuery }),
        },
        response: {
          status: {
            200: Joi.object({
              items: Joi.array().items(RequestSchema).required(),
              next_cursor: Joi.string().allow(null).required(),
            }).id('OssSponsorshipReviewPage'),
          },
        },
        plugins: STAFF,
        handler: async (request) => review().list(request.query),
      },
    },
    {
      method: 'POST',
      path: '/v1/analytics/oss-sponsorship-requests/{id}/decision',
      options: {
        id: 'decideOssSponsorshipRequest',
        tags,
        description: 'Approve or decline an open-source sponsorship request (staff)',
        notes:
          'Approving with organization_id grants `fixes` sponsored credits (default 20, expiring after ' +
          'expires_in_days, default 365) to that organization through billing when billing is on; without it ' +
          "the decision is recorded and the requester is told to write from the project's account. The " +
          'requester is emailed the decision in their language. 409 already_decided; 422 ' +
          'organization_not_found.',
        validate: {
          params: Joi.object({ id: Joi.string().max(100).required() }),
          payload: Joi.object({
            decision: Joi.string().valid('approve', 'decline').required(),
            organization_id: Joi.string().max(100).allow(null),
            fixes: Joi.number().integer().min(1).max(1000),
            expires_in_days: Joi.number().integer().min(1).max(3650),
            note: Joi.string().trim().max(2000).allow(null, ''),
          }).required(),
        },
        response: { status: { 200: RequestSchema } },
        plugins: STAFF,
        handler: async (request) =>
          review().decide(request.actor(), (request.params as { id: string }).id, request.payload as DecisionInput),
      },
    },
  ];
}
