import Joi from 'joi';
import { JOB_STATUSES, TICKET_CATEGORIES } from '../../core/contracts/index.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

const id = Joi.string().max(100);
const sha = Joi.string().pattern(/^[0-9a-f]{40,64}$/);

export const RunnerSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  name: Joi.string().required(),
  token: Joi.string().allow(null).required().description('The runner token, shown once (at registration and rotation)'),
  token_last4: Joi.string().required(),
  runner_transport: Joi.string().valid('github_actions', 'container').allow(null).required(),
  created_at: isoTime().required(),
  rotated_at: nullableTime(),
  revoked_at: nullableTime(),
  last_seen_at: nullableTime(),
}).id('Runner');

export const registerPayload = Joi.object({
  workspace_id: id.required(),
  name: Joi.string()
    .trim()
    .min(1)
    .max(100)
    .pattern(/^[A-Za-z0-9._-]+$/)
    .default('default'),
  revoke: Joi.boolean().default(false),
  agent_login: Joi.string().min(4).max(65_536).allow(null),
});

export const claimPayload = Joi.object({ job_id: id }).allow(null);

export const RunnerClaimSchema = Joi.object({
  job_id: Joi.string().required(),
  kind: Joi.string().valid('diagnose', 'fix').required(),
  ticket_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  attempt: Joi.number().integer().required(),
  job_token: Joi.string().required(),
  agent_token: Joi.string().required(),
  expires_at: isoTime().required(),
  lease_expires_at: nullableTime(),
}).id('RunnerClaim');

export const jobParams = Joi.object({ id: id.required() });

const reference = Joi.object({
  path: Joi.string().max(1000).required(),
  line_start: Joi.number().integer().min(0),
  line_end: Joi.number().integer().min(0),
  symbol: Joi.string().max(500),
  url: Joi.string().max(2000),
});

export const JobPayloadSchema = Joi.object({
  id: Joi.string().required(),
  kind: Joi.string().valid('diagnose', 'fix').required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  ticket: Joi.object({
    id: Joi.string().required(),
    subject: Joi.string().allow('').required(),
    body: Joi.string().allow('').required(),
    origin: Joi.string().required(),
    category: Joi.string(),
    language: Joi.string().allow(null),
    error_context: Joi.object().unknown(true),
  }).required(),
  repository: Joi.object({
    id: Joi.string().required(),
    full_name: Joi.string().required(),
    default_branch: Joi.string().required(),
    base_sha: Joi.string(),
    is_public: Joi.boolean(),
  })
    .allow(null)
    .required(),
  instructions: Joi.string().allow('').required(),
  limits: Joi.object({ max_minutes: Joi.number().required(), max_cost_usd: Joi.number().required() }).required(),
  branch: Joi.string(),
  test_command: Joi.string().allow(null, ''),
  agent: Joi.object({ agent_id: Joi.string().required(), model: Joi.string(), effort: Joi.string() }).required(),
  attempt: Joi.number().integer().required(),
  lease_expires_at: nullableTime(),
  deadline_at: nullableTime(),
  heartbeat_interval_seconds: Joi.number().integer().required(),
  token_kind: Joi.string().valid('job', 'agent').required(),
  agent_credential: Joi.boolean().required(),
}).id('JobPayload');

export const AgentCredentialSchema = Joi.object({
  kind: Joi.string().required(),
  credential: Joi.string().allow(null).required().description('The agent login file in clear (GET only)'),
  last4: Joi.string().required(),
  locked_by_job_id: Joi.string().allow(null).required(),
  rotated_at: nullableTime(),
}).id('AgentCredential');

export const credentialPayload = Joi.object({ credential: Joi.string().min(4).max(65_536).allow(null).default(null) });

const eventItem = Joi.object({
  level: Joi.string().valid('info', 'warn', 'error').default('info'),
  type: Joi.string()
    .trim()
    .min(1)
    .max(64)
    .pattern(/^[a-z0-9_.-]+$/)
    .required(),
  message: Joi.string().allow('').max(8000).required(),
  data: Joi.object().unknown(true).default({}),
});

export const eventsPayload = Joi.alternatives().try(
  Joi.object({ events: Joi.array().items(eventItem).min(1).max(200).required() }),
  eventItem,
);

export const EventsAcceptedSchema = Joi.object({ accepted: Joi.number().integer().required() }).id('JobEventsAccepted');

export const gitTokenPayload = Joi.object({ write: Joi.boolean() }).allow(null);

export const GitTokenSchema = Joi.object({
  token: Joi.string().required(),
  clone_url: Joi.string().required(),
  expires_at: isoTime().required(),
  write: Joi.boolean().required(),
}).id('JobGitToken');

export const HeartbeatSchema = Joi.object({
  cancelled: Joi.boolean().required(),
  status: Joi.string().required(),
  lease_expires_at: nullableTime(),
}).id('JobHeartbeat');

export const pullRequestPayload = Joi.object({
  branch: Joi.string().max(255),
  head_sha: sha.required(),
  tests_ran: Joi.boolean().required(),
  tests_passed: Joi.boolean().required(),
  verify_passed: Joi.boolean().required(),
  draft: Joi.boolean().default(false),
});

export const JobPullRequestSchema = Joi.object({
  number: Joi.number().integer().required(),
  url: Joi.string().required(),
  state: Joi.string().required(),
  branch: Joi.string().required(),
  head_sha: Joi.string().required(),
}).id('JobPullRequest');

export const resultPayload = Joi.object({
  status: Joi.string()
    .valid(...JOB_STATUSES)
    .required(),
  diagnosis: Joi.object({
    category: Joi.string()
      .valid(...TICKET_CATEGORIES)
      .required(),
    confidence: Joi.number().min(0).max(1).required(),
    root_cause_md: Joi.string().allow('').max(50_000).required(),
    references: Joi.array().items(reference).max(100).default([]),
    public_summary: Joi.string().max(2000),
  }),
  drafts: Joi.array()
    .items(
      Joi.object({
        kind: Joi.string().valid('reply', 'needs_info', 'interim').required(),
        body_md: Joi.string().min(1).max(50_000).required(),
        language: Joi.string().max(10),
      }),
    )
    .max(5),
  fix: Joi.object({
    branch: Joi.string().max(255).required(),
    head_sha: sha.required(),
    tests_ran: Joi.boolean().required(),
    tests_passed: Joi.boolean().required(),
    verify_passed: Joi.boolean().required(),
    reason: Joi.string()
      .valid('verification_failed', 'tests_failed', 'tests_not_run_without_reason', 'other')
      .allow(null)
      .default(null),
  }),
  cost_usd: Joi.number().min(0).max(100_000).default(0),
  error: Joi.object({ code: Joi.string().max(100).required(), detail: Joi.string().allow('').max(2000).required() }),
});

export const JobResultAnswerSchema = Joi.object({
  job_id: Joi.string().required(),
  status: Joi.string().required(),
  next_job_id: Joi.string().allow(null).required(),
}).id('JobResultAnswer');

export const JobTokenSchema = Joi.object({
  job_token: Joi.string().required(),
  agent_token: Joi.string().required(),
  expires_at: isoTime().required(),
}).id('JobToken');
