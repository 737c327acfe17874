import type { Request, ServerRoute } from '@hapi/hapi';
import type Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import {
  FixDiffSchema,
  approvePayload,
  backToApprovalPayload,
  retryPayload,
  fixAttemptParams,
  openPrPayload,
  rejectPayload,
  requestChangesPayload,
  ticketParams,
} from '../schemas.js';
import type { FixActions } from '../services/fix-actions.js';
import type { Releases } from '../services/releases.js';

const TAG = 'tickets';
/** Client viewers read; the others work fixes (approver roles are checked where the spec asks). */
const WORKERS = { roles: ['owner', 'admin', 'reviewer'] };

/**
 * The fix operations of the tickets section built so far. Their answer is the tickets plugin's
 * Ticket (validated by its schema when the tickets plugin registers it as `Ticket`).
 */
export function ticketFixRoutes(
  actions: () => FixActions,
  releases: () => Releases,
  ticketSchema: Joi.Schema | null,
): ServerRoute[] {
  const id = (r: Request) => (r.params as { id: string }).id;
  const ticketAnswer = ticketSchema ? { response: { status: { 200: ticketSchema } } } : {};
  return [
    {
      method: 'POST',
      path: '/v1/tickets/{id}/fix-in-managed',
      options: {
        id: 'fixTicketInManaged',
        tags: [TAG],
        description: 'Fixes an escalated ticket in the managed sandbox for one fix credit',
        notes:
          'Approver roles. Empty body. A queued fix job is replaced; 409 fix_job_active while a fix job is at ' +
          'work; 402 plan_limit_reached without a fix credit (billing); 409 no_fix_executor without ' +
          'agent-managed; 422 no_repository.',
        validate: { params: ticketParams },
        ...ticketAnswer,
        plugins: { patchwell: WORKERS },
        handler: async (request) => actions().fixInManaged(request.actor(), id(request)),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/release/retry',
      options: {
        id: 'retryTicketRelease',
        tags: [TAG],
        description: 'Resumes a stopped release with the same approvals and commit',
        notes:
          'Approver roles. Resumes at the step that stopped (merge, tag, release and CI, notice); `version` ' +
          'sets the version of a manual release not yet tagged. 409 invalid_transition without a stopped ' +
          'release.',
        validate: { params: ticketParams, payload: retryPayload.allow(null) },
        ...ticketAnswer,
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          releases().retry(request.actor(), id(request), (request.payload ?? {}) as { version?: string | null }),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/back-to-approval',
      options: {
        id: 'backTicketFixToApproval',
        tags: [TAG],
        description: 'Puts a verified fix whose release stopped before the merge back to approval',
        notes:
          'Approver roles. escalated → awaiting_approval; the open pull request is kept; earlier approvals are void. 409 invalid_transition otherwise.',
        validate: { params: ticketParams, payload: backToApprovalPayload },
        ...ticketAnswer,
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          releases().backToApproval(
            request.actor(),
            id(request),
            request.payload as { fix_attempt_id: string; comment?: string | null },
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/approve',
      options: {
        id: 'approveTicketFix',
        tags: [TAG],
        description: 'Approves the fix at its exact head commit; merge, tag and release follow',
        notes:
          'Approver roles (governance). The approval counts only at approved_sha (409 sha_mismatch when the ' +
          'fix moved; a new push voids earlier approvals); when the governance minimum of distinct approvers ' +
          "is reached the ticket moves to releasing and the release runs: merge with the workspace's " +
          'merge_method at that commit, tag (release_strategy: semver bumps the patch, calver is YYYY.MM.DD, ' +
          'manual takes `version`, else the release waits for POST /v1/releases/{id}/version after the merge), ' +
          'code-host release when github_release_enabled, release notice email to the customer and the ' +
          'subscribers, ticket customer_notified (public state resolved). 409 no_pull_request, ' +
          'invalid_transition.',
        validate: { params: ticketParams, payload: approvePayload },
        ...ticketAnswer,
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          releases().approve(
            request.actor(),
            id(request),
            request.payload as {
              fix_attempt_id: string;
              approved_sha: string;
              comment?: string | null;
              version?: string | null;
              public_summary?: string | null;
            },
          ),
      },
    },
    {
      method: 'GET',
      path: '/v1/tickets/{id}/fix-attempts/{fixAttemptId}/diff',
      options: {
        id: 'getTicketFixDiff',
        tags: [TAG],
        description: 'The diff of a fix attempt',
        notes:
          "From the pull request, or a compare of the attempt's branch with the default branch; `unavailable` " +
          'says why there is none (no_pull_request, no_repository, github_unavailable, github_not_configured, ' +
          'not_loaded).',
        validate: { params: fixAttemptParams },
        response: { status: { 200: FixDiffSchema } },
        handler: async (request) =>
          actions().diff(
            requirePrincipal(request),
            id(request),
            (request.params as { fixAttemptId: string }).fixAttemptId,
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/open-pr',
      options: {
        id: 'openTicketFixPullRequest',
        tags: [TAG],
        description: 'Opens the pull request of a verified fix (copilot mode)',
        notes: 'Idempotent: an attempt that has a pull request keeps it. 409 fix_not_verified.',
        validate: { params: ticketParams, payload: openPrPayload },
        ...ticketAnswer,
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          actions().openPr(request.actor(), id(request), request.payload as { fix_attempt_id: string; draft: boolean }),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/reject',
      options: {
        id: 'rejectTicketFix',
        tags: [TAG],
        description: 'Rejects a fix: its pull request is closed and the ticket goes to the team',
        notes: 'Approver roles (governance). 409 invalid_transition unless the ticket awaits approval.',
        validate: { params: ticketParams, payload: rejectPayload },
        ...ticketAnswer,
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          actions().reject(
            request.actor(),
            id(request),
            request.payload as { fix_attempt_id: string; comment?: string | null },
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/request-changes',
      options: {
        id: 'requestTicketFixChanges',
        tags: [TAG],
        description: "Starts a new fix attempt with the reviewer's notes; the old pull request is closed",
        notes:
          "409 invalid_transition unless the ticket awaits approval; 409 no_fix_executor when no executor writes fixes for the workspace's execution mode.",
        validate: { params: ticketParams, payload: requestChangesPayload },
        ...ticketAnswer,
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          actions().requestChanges(
            request.actor(),
            id(request),
            request.payload as { fix_attempt_id: string; comment: string },
          ),
      },
    },
  ];
}
