import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { PlanId } from '../../../core/contracts/index.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import {
  ClaimSchema,
  planIdSchema,
  StaffClaimPage,
  StaffOrganizationDetail,
  StaffOrganizationPage,
} from '../schemas.js';
import type { BillingServices } from '../services/index.js';

// Operations beyond the spec (marked x-extension): the operator's desk of a self-hosted
// installation. Only staff reach them (users.staff, or accounts.staffEmails in config).
const TAG = 'staff';
const STAFF = (why: string) => ({ patchwell: { staff: true, extension: why } });
const WHY_ORGS =
  'A self-hosted installation needs its operator to see every organization with its plan and credits; the spec has no operator section.';
const WHY_GRANT =
  'Enterprise, the only plan with single sign-on, is sold by no checkout: without this, reaching it meant editing the database (issue 27).';
const WHY_CLAIMS =
  'Claims of review and case-study credits are "reviewed by staff", and the spec names no operation to do it.';
type ClaimDecision = { decision: 'approve' | 'reject'; note?: string | null };
const idParams = Joi.object({ id: Joi.string().max(100).required() });

export function staffRoutes(s: BillingServices): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/staff/organizations',
      options: {
        id: 'listStaffOrganizations',
        tags: [TAG],
        description: 'Every organization of the installation with its plan and live credits (staff)',
        notes:
          'Newest first. `q` matches the name or slug (case-insensitive, anywhere) or the exact id; `plan` filters.',
        validate: {
          query: Joi.object({ q: Joi.string().trim().max(200).allow(''), plan: planIdSchema, ...paginationQuery }),
        },
        response: { status: { 200: StaffOrganizationPage } },
        plugins: STAFF(WHY_ORGS),
        handler: async (request) => s.staff.organizations(request.query),
      },
    },
    {
      method: 'GET',
      path: '/v1/staff/organizations/{id}',
      options: {
        id: 'getStaffOrganization',
        tags: [TAG],
        description: 'One organization: plan, subscription, members, workspaces and credits by source (staff)',
        validate: { params: idParams },
        response: { status: { 200: StaffOrganizationDetail } },
        plugins: STAFF(WHY_ORGS),
        handler: async (request) => s.staff.organization((request.params as { id: string }).id),
      },
    },
    {
      method: 'PUT',
      path: '/v1/staff/organizations/{id}/plan',
      options: {
        id: 'grantStaffPlan',
        tags: [TAG],
        description: 'Puts an organization on a plan without a payment, e.g. enterprise (staff; audited)',
        notes:
          "The plan's monthly fixes are granted at once. `none` takes a granted plan back. 409 subscription_exists while a " +
          "subscription runs (it would bill the old plan: it is canceled first). The organization's audit log records " +
          '`billing.plan_granted` with the staff member and the reason.',
        validate: {
          params: idParams,
          payload: Joi.object({
            plan: planIdSchema.required(),
            reason: Joi.string().trim().min(3).max(500).required().description('Why: kept in the audit entry'),
          }),
        },
        response: { status: { 200: StaffOrganizationDetail } },
        plugins: STAFF(WHY_GRANT),
        handler: async (request) =>
          s.staff.grantPlan(
            request.actor(),
            (request.params as { id: string }).id,
            request.payload as { plan: PlanId; reason: string },
          ),
      },
    },
    {
      method: 'GET',
      path: '/v1/staff/claims',
      options: {
        id: 'listStaffClaims',
        tags: [TAG],
        description: 'Credit claims of every organization, newest first (staff)',
        validate: {
          query: Joi.object({ status: Joi.string().valid('pending', 'approved', 'rejected'), ...paginationQuery }),
        },
        response: { status: { 200: StaffClaimPage } },
        plugins: STAFF(WHY_CLAIMS),
        handler: async (request) => s.staff.claimQueue(request.query),
      },
    },
    {
      method: 'POST',
      path: '/v1/staff/claims/{id}/decision',
      options: {
        id: 'decideStaffClaim',
        tags: [TAG],
        description: 'Approves (granting its credits) or rejects a credit claim (staff; audited)',
        notes: '409 claim_decided when it was decided already.',
        validate: {
          params: idParams,
          payload: Joi.object({
            decision: Joi.string().valid('approve', 'reject').required(),
            note: Joi.string().trim().max(2000).allow('', null),
          }),
        },
        response: { status: { 200: ClaimSchema } },
        plugins: STAFF(WHY_CLAIMS),
        handler: async (request) =>
          s.staff.decideClaim(request.actor(), (request.params as { id: string }).id, request.payload as ClaimDecision),
      },
    },
  ];
}
