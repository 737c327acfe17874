/** The ticket page's sections (docs/tickets.md, "The ticket page"): diagnosis, drafts, fixes, release, jobs, audit. */
import Joi from 'joi';
import { count, cursor, str } from './common.js';
import { DraftSchema } from './message.js';
import {
  CATEGORIES,
  DIFF_UNAVAILABLE,
  FIX_ATTEMPT_STATUSES,
  FIX_JOB_STATUSES,
  FIX_REASONS,
  RELEASE_STATUSES,
} from './values.js';
import { pageSchema } from '../../../core/http/pagination.js';
import { isoTime, nullableTime } from '../../../core/http/times.js';

export const CodeReferenceSchema = Joi.object({
  path: Joi.string().required().description('File path in the repository'),
  line_start: Joi.number().integer().allow(null).required(),
  line_end: Joi.number().integer().allow(null).required(),
  symbol: str.required().description('Function, class or other symbol at those lines'),
  url: str.required().description('The lines at the code host, when known'),
})
  .id('CodeReference')
  .description('A place in the repository a diagnosis points at');

export const TicketDiagnosisSchema = Joi.object({
  id: Joi.string().required(),
  job_id: str
    .required()
    .description('The diagnosis job that wrote it (GET /v1/tickets/{id}/jobs/{jobId}/events for its log)'),
  category: Joi.string()
    .valid(...CATEGORIES)
    .required(),
  confidence: Joi.number().min(0).max(1).required(),
  root_cause_md: Joi.string()
    .allow('')
    .required()
    .description('Notes for the team (Markdown), never shown to the customer'),
  references: Joi.array().items(CodeReferenceSchema).required(),
  public_summary: str
    .required()
    .description('Proposed one-sentence summary for the status page; public once a person approves it'),
  language: str.required().description('Language of the drafted reply (en, it)'),
  outcome: Joi.string()
    .valid('drafted', 'autopilot', 'escalated', 'fix_queued')
    .required()
    .description(
      'What the loop did with it: a draft waits for a click, autopilot sent it, the team got the ticket, or a fix was queued',
    ),
  duplicate_of_ticket_id: str
    .required()
    .description(
      'A likely duplicate: the open ticket this report seems to repeat (same error group, or the same places in the code as a bug ' +
        'being fixed); close as duplicate to follow it',
    ),
  created_at: isoTime().required(),
  history_count: count()
    .required()
    .description('Diagnoses of this ticket so far, this one included (a reopened ticket is diagnosed again)'),
})
  .id('TicketDiagnosis')
  .description(
    "The ticket's latest diagnosis (Ticket.diagnosis: null before the first one, or when the fix loop is off)",
  );

export const TicketDraftListSchema = Joi.object({
  items: Joi.array().items(DraftSchema).required().description(`Newest first, at most 50`),
  next_cursor: cursor(),
  total: count().required().description('Drafts of the ticket, every status'),
})
  .id('TicketDraftList')
  .description("The ticket's drafts; GET /v1/tickets/{id}/drafts pages through all of them");

export const FixApprovalSchema = Joi.object({
  id: Joi.string().required(),
  user_id: Joi.string().required(),
  role: Joi.string().required().description("The approver's role when approving"),
  sha: Joi.string().required().description("The exact commit approved; it counts only while it is the attempt's head"),
  comment: str.required(),
  voided_at: nullableTime().description('Set when the approval stopped counting'),
  void_reason: Joi.string()
    .valid('new_push', 'back_to_approval')
    .allow(null)
    .required()
    .description('new_push: a later commit replaced the approved one; back_to_approval: the fix went back to approval'),
  created_at: isoTime().required(),
}).id('FixApproval');

export const FixPullRequestSchema = Joi.object({
  number: Joi.number().integer().required(),
  url: Joi.string().required(),
  state: Joi.string()
    .valid('open', 'closed', 'merged')
    .allow(null)
    .required()
    .description('As last recorded (opened, closed by a rejection or new attempt, merged by the release)'),
}).id('FixPullRequest');

export const FixDiffLinkSchema = Joi.object({
  available: Joi.boolean()
    .required()
    .description('Whether the diff operation should give a text (the code host may still be unavailable)'),
  unavailable: Joi.string()
    .valid(...DIFF_UNAVAILABLE)
    .allow(null)
    .required()
    .description('Why there is no diff, as FixDiff.unavailable'),
  source: Joi.string().valid('pull_request', 'compare').allow(null).required(),
  url: Joi.string().required().description('Path of the diff: GET it for the FixDiff'),
  operation_id: Joi.string().valid('getTicketFixDiff').required(),
})
  .id('FixDiffLink')
  .description(
    "Where the attempt's diff is read (GET /v1/tickets/{id}/fix-attempts/{fixAttemptId}/diff), and whether it exists",
  );

export const TicketFixAttemptSchema = Joi.object({
  id: Joi.string().required(),
  number: Joi.number().integer().min(1).required().description('1, 2, … per ticket'),
  status: Joi.string()
    .valid(...FIX_ATTEMPT_STATUSES)
    .required(),
  job_id: str.required().description('The fix job (see jobs)'),
  repository_id: str.required(),
  branch: Joi.string().required(),
  base_sha: str.required(),
  head_sha: str.required().description('The commit an approval must name'),
  verify_passed: Joi.boolean().required(),
  tests_passed: Joi.boolean().required(),
  tests_ran: Joi.boolean().required(),
  reason: Joi.string()
    .valid(...FIX_REASONS)
    .allow(null)
    .required()
    .description('Why the fix is not verified'),
  reviewer_notes: str.required().description('The change request this attempt answers'),
  pull_request: FixPullRequestSchema.allow(null).required(),
  approvals: Joi.array().items(FixApprovalSchema).required().description('Oldest first, voided ones included'),
  approval_count: count().required().description('Approvals counting now: not voided, at head_sha'),
  min_approvers: Joi.number()
    .integer()
    .min(1)
    .required()
    .description('Distinct approvals the release needs (governance)'),
  diff: FixDiffLinkSchema.required(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
}).id('TicketFixAttempt');

export const TicketReleaseSchema = Joi.object({
  id: Joi.string().required().description("The ticket's release row"),
  release_id: Joi.string()
    .required()
    .description(
      'The release that ships the fix, for GET /v1/releases/{id} and its actions: the batched release the merge joined, else id',
    ),
  kind: Joi.string()
    .valid('per_ticket', 'batched')
    .required()
    .description('batched: the merge joined a batched release of the workspace'),
  status: Joi.string()
    .valid(...RELEASE_STATUSES)
    .required()
    .description('Of release_id; proposed: the batched release waits for its approval'),
  step: Joi.string()
    .valid('merging', 'waiting_version', 'tagging', 'releasing', 'notifying')
    .allow(null)
    .required()
    .description('The step at work or stopped at (failed: failed_step); null once released and while a batch waits'),
  failed_step: Joi.string()
    .valid(...RELEASE_STATUSES)
    .allow(null)
    .required()
    .description('Where a failed release stopped; retry resumes there'),
  strategy: Joi.string().valid('semver', 'calver', 'manual').required(),
  version: str.required(),
  tag: str.required(),
  approved_sha: str.required(),
  merge_sha: str.required().description("The fix's merge commit"),
  ci_state: Joi.string()
    .valid('success', 'failure', 'pending', 'none')
    .allow(null)
    .required()
    .description('CI of the released commit, as last reported'),
  url: str.required().description('The code-host release'),
  notice_sent: Joi.boolean()
    .required()
    .description(
      "Whether the release notice went out (false while the customer's notice waits as a draft, e.g. white-label sending not ready)",
    ),
  notice_sent_at: nullableTime(),
  notice_draft_id: str
    .required()
    .description(
      "The customer's release notice as a Draft (kind release_notice), once released; send it from the drafts when it waits",
    ),
  error_code: str.required(),
  error_detail: str.required(),
  released_at: nullableTime(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
})
  .id('TicketRelease')
  .description(
    "The ticket's latest release: merge, tag, code-host release, CI and notice " +
      '(Ticket.release: null before an approval, or when the fix loop is off)',
  );

export const TicketJobSchema = Joi.object({
  id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  kind: Joi.string().valid('diagnose', 'fix').required(),
  executor: Joi.string()
    .required()
    .description('The agent adapter that runs it (agent-builtin, agent-managed, agent-runner, agent-mcp …)'),
  mode: Joi.string().required().description('builtin, managed, runner or mcp'),
  status: Joi.string()
    .valid(...FIX_JOB_STATUSES)
    .required(),
  attempts: count().required().description('Runs so far (a crashed or expired run is retried)'),
  max_attempts: Joi.number().integer().min(1).required(),
  cost_usd: Joi.number().min(0).required(),
  fix_attempt_id: str.required(),
  error_code: str.required(),
  error_detail: str.required(),
  run_after: isoTime().required().description('A queued job does not start before'),
  started_at: nullableTime(),
  heartbeat_at: nullableTime(),
  deadline_at: nullableTime(),
  finished_at: nullableTime(),
  cancel_requested_at: nullableTime(),
  events_url: Joi.string().required().description("Path of the job's log (GET /v1/tickets/{id}/jobs/{jobId}/events)"),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
})
  .id('TicketJob')
  .description('A diagnosis or fix job of the ticket');

export const TicketJobListSchema = Joi.object({
  items: Joi.array().items(TicketJobSchema).required().description('Newest first, at most 50'),
  next_cursor: cursor(),
  total: count().required(),
})
  .id('TicketJobList')
  .description(
    "The ticket's diagnosis and fix jobs; GET /v1/tickets/{id}/jobs pages through all of them (Ticket.jobs: null when the fix loop is off)",
  );

export const TicketAuditEntrySchema = Joi.object({
  id: Joi.string().required(),
  action: Joi.string().required().description('`<resource>.<verb>`, e.g. fix.approved'),
  actor: Joi.object({
    type: Joi.string().valid('user', 'token', 'staff', 'system', 'job').required(),
    id: str.required(),
    email: str.required(),
  }).required(),
  target: Joi.object({ type: Joi.string().required(), id: str.required() })
    .allow(null)
    .required()
    .description('The ticket, or one of its drafts, fix attempts or releases'),
  changes: Joi.object()
    .pattern(Joi.string(), Joi.object({ before: Joi.any(), after: Joi.any() }))
    .allow(null)
    .required(),
  metadata: Joi.object().unknown(true).allow(null).required(),
  request_id: str.required(),
  created_at: isoTime().required(),
})
  .id('TicketAuditEntry')
  .description('An audit entry about the ticket or its records (IP address and user agent: GET /v1/audit)');

export const TicketJobPageSchema = pageSchema(TicketJobSchema).id('TicketJobPage');
