import Joi from 'joi';
import { PUBLIC_STATES, TICKET_STATES } from './services/state-machine.js';

export const ORIGINS = ['email', 'widget', 'codehost', 'proactive'] as const;
export const CATEGORIES = ['usage', 'config', 'docs', 'bug', 'feature_request', 'unknown'] as const;
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const DRAFT_KINDS = ['reply', 'needs_info', 'interim', 'release_notice', 'proactive_notice'] as const;
export const DRAFT_STATUSES = ['draft', 'approved', 'sent', 'discarded'] as const;
export const DELIVERY_STATUSES = ['queued', 'sent', 'delivered', 'bounced', 'complained', 'failed'] as const;
export const CLOSE_REASONS = ['resolved', 'answered', 'duplicate', 'spam', 'wont_fix', 'other'] as const;
export const SUBSCRIBER_SOURCES = ['duplicate', 'proactive', 'status_page', 'issue'] as const;
export const SORTS = ['newest', 'oldest', 'updated', 'sla'] as const;

const dt = Joi.string().isoDate().allow(null);
const str = Joi.string().allow(null);

const ticketItemFields = {
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  workspace_name: Joi.string().required(),
  client_name: str.required(),
  channel_id: str.required(),
  origin: Joi.string().valid(...ORIGINS).required(),
  external_id: str.required(),
  customer_email: str.required(),
  customer_name: str.required(),
  subject: Joi.string().allow('').required(),
  state: Joi.string().valid(...TICKET_STATES).required(),
  public_state: Joi.string().valid(...PUBLIC_STATES).required(),
  category: Joi.string().valid(...CATEGORIES).required(),
  priority: Joi.string().valid(...PRIORITIES).required(),
  assignee_user_id: str.required(),
  codehost_item_kind: Joi.string().valid('issue', 'pull_request').allow(null).required(),
  codehost_number: Joi.number().integer().allow(null).required(),
  labels: Joi.array().items(Joi.string()).required(),
  language: Joi.string().required(),
  is_demo: Joi.boolean().required(),
  demo: Joi.boolean().required(),
  error_group_id: str.required(),
  duplicate_of_ticket_id: str.required(),
  resolved_version: str.required(),
  latest_confidence: Joi.number().allow(null).required(),
  needs_team_action: Joi.boolean().required(),
  message_count: Joi.number().integer().min(0).required(),
  last_message_at: dt.required(),
  first_response_at: dt.required(),
  released_at: dt.required(),
  closed_at: dt.required(),
  last_customer_message_at: dt.required(),
  sla_due_at: dt.required(),
  reopened_count: Joi.number().integer().min(0).required(),
  created_at: Joi.string().isoDate().required(),
  updated_at: Joi.string().isoDate().required(),
};

export const TicketItemSchema = Joi.object(ticketItemFields).id('TicketItem');

export const TicketPageSchema = Joi.object({
  items: Joi.array().items(TicketItemSchema).required(),
  next_cursor: Joi.string().allow(null).required(),
}).id('TicketPage');

const AttachmentSchema = Joi.object({
  id: Joi.string().required(),
  filename: Joi.string().required(),
  content_type: Joi.string().required(),
  size: Joi.number().integer().min(0).required(),
  url: Joi.string().uri().required(),
  content_id: Joi.string(),
  inline: Joi.boolean(),
});

const WidgetContextSchema = Joi.object({
  console: Joi.array().items(Joi.object({
    level: Joi.string().valid('error', 'warn', 'unhandled_exception', 'unhandled_rejection').required(),
    message: Joi.string().allow('').required(),
    stack: Joi.string().allow(''),
    timestamp: Joi.string().required(),
  })).required(),
  network: Joi.array().items(Joi.object({
    method: Joi.string().required(),
    url: Joi.string().allow('').required(),
    status: Joi.number().integer().required(),
    duration_ms: Joi.number().required(),
    timestamp: Joi.string().required(),
    error: Joi.string().allow(''),
  })).required(),
  browser: Joi.object({
    user_agent: Joi.string().allow('').required(),
    name: Joi.string().allow(''),
    version: Joi.string().allow(''),
    os: Joi.string().allow(''),
    language: Joi.string().allow(''),
    viewport: Joi.object({ width: Joi.number().integer().required(), height: Joi.number().integer().required() }),
    screen: Joi.object({ width: Joi.number().integer().required(), height: Joi.number().integer().required() }),
  }),
  url: Joi.string().allow(''),
  release: Joi.string().allow(''),
  screenshot_url: Joi.string().uri(),
  symbolicated: Joi.boolean(),
});

export const MessageSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  direction: Joi.string().valid('in', 'out').required(),
  from: str.required(),
  to_addresses: Joi.array().items(Joi.string()).required(),
  cc_addresses: Joi.array().items(Joi.string()).required(),
  subject: str.required(),
  body_text: str.allow('').required(),
  body_html: str.allow('').required(),
  email_message_id: str.required(),
  in_reply_to: str.required(),
  references: str.required(),
  attachments: Joi.array().items(AttachmentSchema).required(),
  widget_context: WidgetContextSchema.allow(null).required(),
  delivery_status: Joi.string().valid(...DELIVERY_STATUSES).allow(null).required(),
  sent_by_user_id: str.required(),
  is_internal_note: Joi.boolean().required(),
  created_at: Joi.string().isoDate().required(),
}).id('Message');

export const DraftSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  diagnosis_id: str.required().description('The diagnosis the automation wrote it from; null for a team-written draft'),
  kind: Joi.string().valid(...DRAFT_KINDS).required(),
  body_md: Joi.string().allow('').required(),
  public_summary: str.required().description('The public summary it proposes for the status page (approved when the draft is sent)'),
  status: Joi.string().valid(...DRAFT_STATUSES).required(),
  language: Joi.string().required(),
  sent_message_id: str.required().description('The conversation message it became when sent'),
  created_by_user_id: str.required().description('Who wrote it; null when the automation did'),
  edited_by_user_id: str.required(),
  approved_by_user_id: str.required(),
  approved_at: dt.required(),
  sent_at: dt.required(),
  discarded_at: dt.required(),
  discard_reason: str.required(),
  created_at: Joi.string().isoDate().required(),
  updated_at: Joi.string().isoDate().required(),
}).id('Draft');

// ---- the ticket page (docs/tickets.md, "The ticket page")

/** Statuses of the fixes plugin's records, as the page shows them (plugins/fixes/models). */
export const FIX_ATTEMPT_STATUSES = ['running', 'verified', 'not_verified', 'failed', 'superseded', 'rejected', 'merged'] as const;
export const FIX_REASONS = ['verification_failed', 'tests_failed', 'tests_not_run_without_reason', 'other'] as const;
export const RELEASE_STATUSES = ['proposed', 'batched', 'waiting_version', 'merging', 'tagging', 'releasing', 'notifying', 'released', 'failed'] as const;
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'dead'] as const;
export const DIFF_UNAVAILABLE = ['no_pull_request', 'no_repository', 'github_unavailable', 'github_not_configured', 'not_loaded'] as const;

const count = () => Joi.number().integer().min(0);
const cursor = () => Joi.string().allow(null).required()
  .description('Continues the list with its list operation (`?cursor=`); null when the page holds it all');

export const CodeReferenceSchema = Joi.object({
  path: Joi.string().required().description('File path in the repository'),
  line_start: Joi.number().integer().allow(null).required(),
  line_end: Joi.number().integer().allow(null).required(),
  symbol: str.required().description('Function, class or other symbol at those lines'),
  url: str.required().description('The lines at the code host, when known'),
}).id('CodeReference').description('A place in the repository a diagnosis points at');

export const TicketDiagnosisSchema = Joi.object({
  id: Joi.string().required(),
  job_id: str.required().description('The diagnosis job that wrote it (GET /v1/tickets/{id}/jobs/{jobId}/events for its log)'),
  category: Joi.string().valid(...CATEGORIES).required(),
  confidence: Joi.number().min(0).max(1).required(),
  root_cause_md: Joi.string().allow('').required().description('Notes for the team (Markdown), never shown to the customer'),
  references: Joi.array().items(CodeReferenceSchema).required(),
  public_summary: str.required().description('Proposed one-sentence summary for the status page; public once a person approves it'),
  language: str.required().description('Language of the drafted reply (en, it)'),
  outcome: Joi.string().valid('drafted', 'autopilot', 'escalated', 'fix_queued').required()
    .description('What the loop did with it: a draft waits for a click, autopilot sent it, the team got the ticket, or a fix was queued'),
  duplicate_of_ticket_id: str.required()
    .description('A likely duplicate: the open ticket this report seems to repeat (same error group, or the same places in the code as a bug '
      + 'being fixed); close as duplicate to follow it'),
  created_at: Joi.string().isoDate().required(),
  history_count: count().required().description('Diagnoses of this ticket so far, this one included (a reopened ticket is diagnosed again)'),
}).id('TicketDiagnosis').description('The ticket\'s latest diagnosis (Ticket.diagnosis: null before the first one, or when the fix loop is off)');

export const TicketDraftListSchema = Joi.object({
  items: Joi.array().items(DraftSchema).required().description(`Newest first, at most 50`),
  next_cursor: cursor(),
  total: count().required().description('Drafts of the ticket, every status'),
}).id('TicketDraftList').description('The ticket\'s drafts; GET /v1/tickets/{id}/drafts pages through all of them');

export const FixApprovalSchema = Joi.object({
  id: Joi.string().required(),
  user_id: Joi.string().required(),
  role: Joi.string().required().description('The approver\'s role when approving'),
  sha: Joi.string().required().description('The exact commit approved; it counts only while it is the attempt\'s head'),
  comment: str.required(),
  voided_at: dt.required().description('Set when the approval stopped counting'),
  void_reason: Joi.string().valid('new_push', 'back_to_approval').allow(null).required()
    .description('new_push: a later commit replaced the approved one; back_to_approval: the fix went back to approval'),
  created_at: Joi.string().isoDate().required(),
}).id('FixApproval');

export const FixPullRequestSchema = Joi.object({
  number: Joi.number().integer().required(),
  url: Joi.string().required(),
  state: Joi.string().valid('open', 'closed', 'merged').allow(null).required()
    .description('As last recorded (opened, closed by a rejection or new attempt, merged by the release)'),
}).id('FixPullRequest');

export const FixDiffLinkSchema = Joi.object({
  available: Joi.boolean().required().description('Whether the diff operation should give a text (the code host may still be unavailable)'),
  unavailable: Joi.string().valid(...DIFF_UNAVAILABLE).allow(null).required().description('Why there is no diff, as FixDiff.unavailable'),
  source: Joi.string().valid('pull_request', 'compare').allow(null).required(),
  url: Joi.string().required().description('Path of the diff: GET it for the FixDiff'),
  operation_id: Joi.string().valid('getTicketFixDiff').required(),
}).id('FixDiffLink').description('Where the attempt\'s diff is read (GET /v1/tickets/{id}/fix-attempts/{fixAttemptId}/diff), and whether it exists');

export const TicketFixAttemptSchema = Joi.object({
  id: Joi.string().required(),
  number: Joi.number().integer().min(1).required().description('1, 2, … per ticket'),
  status: Joi.string().valid(...FIX_ATTEMPT_STATUSES).required(),
  job_id: str.required().description('The fix job (see jobs)'),
  repository_id: str.required(),
  branch: Joi.string().required(),
  base_sha: str.required(),
  head_sha: str.required().description('The commit an approval must name'),
  verify_passed: Joi.boolean().required(),
  tests_passed: Joi.boolean().required(),
  tests_ran: Joi.boolean().required(),
  reason: Joi.string().valid(...FIX_REASONS).allow(null).required().description('Why the fix is not verified'),
  reviewer_notes: str.required().description('The change request this attempt answers'),
  pull_request: FixPullRequestSchema.allow(null).required(),
  approvals: Joi.array().items(FixApprovalSchema).required().description('Oldest first, voided ones included'),
  approval_count: count().required().description('Approvals counting now: not voided, at head_sha'),
  min_approvers: Joi.number().integer().min(1).required().description('Distinct approvals the release needs (governance)'),
  diff: FixDiffLinkSchema.required(),
  created_at: Joi.string().isoDate().required(),
  updated_at: Joi.string().isoDate().required(),
}).id('TicketFixAttempt');

export const TicketReleaseSchema = Joi.object({
  id: Joi.string().required().description('The ticket\'s release row'),
  release_id: Joi.string().required()
    .description('The release that ships the fix, for GET /v1/releases/{id} and its actions: the batched release the merge joined, else id'),
  kind: Joi.string().valid('per_ticket', 'batched').required().description('batched: the merge joined a batched release of the workspace'),
  status: Joi.string().valid(...RELEASE_STATUSES).required().description('Of release_id; proposed: the batched release waits for its approval'),
  step: Joi.string().valid('merging', 'waiting_version', 'tagging', 'releasing', 'notifying').allow(null).required()
    .description('The step at work or stopped at (failed: failed_step); null once released and while a batch waits'),
  failed_step: Joi.string().valid(...RELEASE_STATUSES).allow(null).required().description('Where a failed release stopped; retry resumes there'),
  strategy: Joi.string().valid('semver', 'calver', 'manual').required(),
  version: str.required(),
  tag: str.required(),
  approved_sha: str.required(),
  merge_sha: str.required().description('The fix\'s merge commit'),
  ci_state: Joi.string().valid('success', 'failure', 'pending', 'none').allow(null).required().description('CI of the released commit, as last reported'),
  url: str.required().description('The code-host release'),
  notice_sent: Joi.boolean().required()
    .description('Whether the release notice went out (false while the customer\'s notice waits as a draft, e.g. white-label sending not ready)'),
  notice_sent_at: dt.required(),
  notice_draft_id: str.required()
    .description('The customer\'s release notice as a Draft (kind release_notice), once released; send it from the drafts when it waits'),
  error_code: str.required(),
  error_detail: str.required(),
  released_at: dt.required(),
  created_at: Joi.string().isoDate().required(),
  updated_at: Joi.string().isoDate().required(),
}).id('TicketRelease')
  .description('The ticket\'s latest release: merge, tag, code-host release, CI and notice '
    + '(Ticket.release: null before an approval, or when the fix loop is off)');

export const TicketJobSchema = Joi.object({
  id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  kind: Joi.string().valid('diagnose', 'fix').required(),
  executor: Joi.string().required().description('The agent adapter that runs it (agent-builtin, agent-managed, agent-runner, agent-mcp …)'),
  mode: Joi.string().required().description('builtin, managed, runner or mcp'),
  status: Joi.string().valid(...JOB_STATUSES).required(),
  attempts: count().required().description('Runs so far (a crashed or expired run is retried)'),
  max_attempts: Joi.number().integer().min(1).required(),
  cost_usd: Joi.number().min(0).required(),
  fix_attempt_id: str.required(),
  error_code: str.required(),
  error_detail: str.required(),
  run_after: Joi.string().isoDate().required().description('A queued job does not start before'),
  started_at: dt.required(),
  heartbeat_at: dt.required(),
  deadline_at: dt.required(),
  finished_at: dt.required(),
  cancel_requested_at: dt.required(),
  events_url: Joi.string().required().description('Path of the job\'s log (GET /v1/tickets/{id}/jobs/{jobId}/events)'),
  created_at: Joi.string().isoDate().required(),
  updated_at: Joi.string().isoDate().required(),
}).id('TicketJob').description('A diagnosis or fix job of the ticket');

export const TicketJobListSchema = Joi.object({
  items: Joi.array().items(TicketJobSchema).required().description('Newest first, at most 50'),
  next_cursor: cursor(),
  total: count().required(),
}).id('TicketJobList')
  .description('The ticket\'s diagnosis and fix jobs; GET /v1/tickets/{id}/jobs pages through all of them (Ticket.jobs: null when the fix loop is off)');

export const TicketAuditEntrySchema = Joi.object({
  id: Joi.string().required(),
  action: Joi.string().required().description('`<resource>.<verb>`, e.g. fix.approved'),
  actor: Joi.object({
    type: Joi.string().valid('user', 'token', 'staff', 'system', 'job').required(),
    id: str.required(),
    email: str.required(),
  }).required(),
  target: Joi.object({ type: Joi.string().required(), id: str.required() }).allow(null).required()
    .description('The ticket, or one of its drafts, fix attempts or releases'),
  changes: Joi.object().pattern(Joi.string(), Joi.object({ before: Joi.any(), after: Joi.any() })).allow(null).required(),
  metadata: Joi.object().unknown(true).allow(null).required(),
  request_id: str.required(),
  created_at: Joi.string().isoDate().required(),
}).id('TicketAuditEntry').description('An audit entry about the ticket or its records (IP address and user agent: GET /v1/audit)');

export const TicketSchema = Joi.object({
  ...ticketItemFields,
  public_summary: str.required(),
  public_summary_approved_at: dt.required(),
  public_status_url: Joi.string().uri().required(),
  public_token_revoked_at: dt.required(),
  messages: Joi.array().items(MessageSchema).required(),
  // Shared shapes carry their descriptions (a use site's would be lost beside the $ref).
  diagnosis: TicketDiagnosisSchema.allow(null).required(),
  drafts: TicketDraftListSchema.required(),
  fixes: Joi.array().items(TicketFixAttemptSchema).allow(null).required()
    .description('Fix attempts, newest first (at most 50); null when the fix loop is off'),
  release: TicketReleaseSchema.allow(null).required(),
  audit: Joi.array().items(TicketAuditEntrySchema).allow(null).required()
    .description('The newest 50 audit entries about the ticket and its drafts, fix attempts and releases, newest first; null when the audit plugin is off'),
  jobs: TicketJobListSchema.allow(null).required(),
}).id('Ticket').description('A ticket with its conversation and its page: diagnosis, drafts, fixes, release, audit and jobs. '
  + 'A key whose plugin is off (the fix loop: diagnosis, fixes, release, jobs; the audit plugin: audit) is null.');

export const DraftPageSchema = Joi.object({
  items: Joi.array().items(DraftSchema).required(),
  next_cursor: Joi.string().allow(null).required(),
}).id('DraftPage');

export const TicketJobPageSchema = Joi.object({
  items: Joi.array().items(TicketJobSchema).required(),
  next_cursor: Joi.string().allow(null).required(),
}).id('TicketJobPage');

export const SubscriberSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  thread_ticket_id: str.required(),
  email_masked: Joi.string().required(),
  user_hash: str.required(),
  source: Joi.string().valid(...SUBSCRIBER_SOURCES).required(),
  notified_at: dt.required(),
  unsubscribed_at: dt.required(),
  created_at: Joi.string().isoDate().required(),
}).id('Subscriber');

export const SubscriberListSchema = Joi.object({ items: Joi.array().items(SubscriberSchema).required() }).id('SubscriberList');
export const TicketCountsSchema = Joi.object({
  by_state: Joi.object(Object.fromEntries(TICKET_STATES.map((st) => [st, count().required()]))).required()
    .description('Tickets per state, every state present (0 when none)'),
  needs_team_action: count().required().description('Tickets waiting for the team (needs_team_action true)'),
  total: count().required().description('Every ticket the filters match (the sum of by_state)'),
}).id('TicketCounts').description('How many tickets the list\'s filters match, over the workspaces the caller can open');

export const OkSchema = Joi.object({ ok: Joi.boolean().valid(true).required() }).id('Ok');
export const StatusLinkSchema = Joi.object({
  public_status_url: Joi.string().uri().required(),
  public_token_revoked_at: dt.required(),
}).id('StatusLink');

// ---- input

export const ticketIdParams = Joi.object({ id: Joi.string().max(64).required().description('Ticket id') });
export const draftParams = Joi.object({ id: Joi.string().max(64).required().description('Ticket id'), draftId: Joi.string().max(64).required().description('Draft id') });
export const subscriberParams = Joi.object({ id: Joi.string().max(64).required().description('Ticket id'), subscriberId: Joi.string().max(64).required().description('Subscriber id') });

const arrayOf = (values: readonly string[], what: string) =>
  Joi.array().items(Joi.string().valid(...values)).single().unique().description(`Only tickets with one of these ${what}`);

const needsTeamAction = Joi.boolean().description('true: only tickets waiting for the team (needs_team_action); false: only the others');

/** The filters GET /v1/tickets/counts shares with the list (the list's own state, sort and paging aside). */
export const countQuery = {
  origin: arrayOf(ORIGINS, 'origins'),
  category: arrayOf(CATEGORIES, 'categories'),
  priority: arrayOf(PRIORITIES, 'priorities'),
  workspace_id: Joi.string().max(64).description('Only this workspace'),
  q: Joi.string().trim().min(1).max(200).description('Full-text search in subject, customer and the opening message'),
  assignee: Joi.string().max(64).description('`me`, `unassigned` or a user id'),
  needs_team_action: needsTeamAction,
};

export const listQuery = {
  state: arrayOf(TICKET_STATES, 'states'),
  origin: arrayOf(ORIGINS, 'origins'),
  category: arrayOf(CATEGORIES, 'categories'),
  priority: arrayOf(PRIORITIES, 'priorities'),
  workspace_id: Joi.string().max(64).description('Only this workspace'),
  q: Joi.string().trim().min(1).max(200).description('Full-text search in subject, customer and the opening message'),
  assignee: Joi.string().max(64).description('`me`, `unassigned` or a user id'),
  needs_team_action: needsTeamAction,
  sort: Joi.string().valid(...SORTS).default('newest').description('newest (default), oldest, updated (latest change first) or sla (earliest due first)'),
};

const bodyMd = Joi.string().trim().min(1).max(50_000);
const publicSummary = Joi.string().trim().max(2000).allow(null, '');

export const assignPayload = Joi.object({ assignee_user_id: Joi.string().max(64).allow(null).required() });
export const closePayload = Joi.object({
  reason: Joi.string().valid(...CLOSE_REASONS).required(),
  duplicate_of_ticket_id: Joi.string().max(64).when('reason', { is: 'duplicate', then: Joi.required(), otherwise: Joi.allow(null) }),
  comment: Joi.string().trim().max(5000).allow(null, ''),
});
export const reopenPayload = Joi.object({ reason: Joi.string().trim().max(2000).allow(null, '') }).allow(null);
export const escalatePayload = Joi.object({ reason: Joi.string().trim().min(1).max(2000).required(), assignee_user_id: Joi.string().max(64).allow(null) });
export const notePayload = Joi.object({ body_md: bodyMd.required() });
export const createDraftPayload = Joi.object({ kind: Joi.string().valid('reply', 'needs_info').required(), body_md: bodyMd.required(), public_summary: publicSummary });
export const DRAFT_LANGUAGES = ['en', 'it'] as const;
export const editDraftPayload = Joi.object({
  body_md: bodyMd, public_summary: publicSummary, kind: Joi.string().valid('reply', 'needs_info'),
  language: Joi.string().valid(...DRAFT_LANGUAGES)
    .description('Beyond the spec (issue 26): the language of the reply; the email\'s own texts around it follow it when it is sent'),
}).min(1);
export const discardDraftPayload = Joi.object({ reason: Joi.string().trim().max(2000).allow(null, '') }).allow(null);
export const sendDraftPayload = Joi.object({ body_md: bodyMd, public_summary: publicSummary }).allow(null);
export const subscriberPayload = Joi.object({ email: Joi.string().trim().lowercase().email({ tlds: false }).max(254).required() });
export const statusLinkPayload = Joi.object({ action: Joi.string().valid('revoke', 'rotate').required() });
