import Joi from 'joi';
import { isoTime, nullableTime } from '../../core/http/times.js';

export const EXECUTION_MODES = ['managed', 'runner', 'mcp'] as const;
export const AGENT_IDS = ['builtin', 'other', ...Array.from({ length: 11 }, (_, i) => `agent_${i + 1}`)] as const;
export const AUTH_METHODS = ['api-key', 'account_login', 'cloud_a', 'cloud_b', 'subscription'] as const;
export const TRANSPORTS = ['github_actions', 'container'] as const;
// The execution choice's values, one schema each wherever the choice is read or answered.
const executionMode = Joi.string().valid(...EXECUTION_MODES);
const agentId = Joi.string().valid(...AGENT_IDS);
const authMethod = Joi.string().valid(...AUTH_METHODS);
const transport = Joi.string().valid(...TRANSPORTS);
export const ANSWERS = [
  'no_agent',
  'api_key_only',
  'agent_1_api',
  'agent_1_subscription',
  'agent_2',
  'ide_agent',
] as const;
export const CREDENTIAL_KINDS = [
  'model_key_a',
  'model_key_b',
  'agent_login_file',
  'cloud_a',
  'cloud_b',
  'model_router_key',
  'code_host_user_token',
  'error_tracker_client_secret',
  'error_tracker_auth_token',
  'metrics_keys',
  'cloud_credentials',
  'endpoint_token',
  'sso_client_secret',
] as const;
export const CASE_KINDS = ['real_error', 'github_issue', 'plausible_defect', 'readme_question'] as const;
export const STEP_IDS = ['repository', 'channels', 'agent', 'logs'] as const;

const str = Joi.string().allow(null);
// The agent step's answer and its detail, as the wizard takes them and as the onboarding answers them.
const agentAnswer = Joi.string()
  .valid(...ANSWERS)
  .required();
const agentDetail = Joi.object({
  codex_auth: Joi.string().valid('account_login', 'api-key'),
  claude_auth: Joi.string().valid('api-key', 'cloud_a', 'cloud_b'),
  ide_agent: agentId,
});
const int = Joi.number().integer().allow(null);

export const CredentialSchema = Joi.object({
  id: Joi.string().required(),
  kind: Joi.string()
    .valid(...CREDENTIAL_KINDS)
    .required(),
  last4: Joi.string().required(),
  workspace_id: Joi.string().required(),
  created_at: isoTime().required(),
  rotated_at: nullableTime(),
  in_use: Joi.boolean().required(),
}).id('Credential');

export const OnboardingRepositorySchema = Joi.object({
  id: Joi.string().required(),
  full_name: Joi.string().required(),
  html_url: Joi.string().required(),
  default_branch: Joi.string().required(),
  is_public: Joi.boolean().required(),
  onboarding_pr: Joi.object({
    number: int.required(),
    url: str.required(),
    status: Joi.string().valid('none', 'open', 'merged', 'closed').required(),
    requested_at: nullableTime(),
    error: str.required(),
    title: str.required(),
  }).required(),
  agent_key: Joi.object({ last4: str.required(), set_at: nullableTime() }).required(),
  runs_on: Joi.array().items(Joi.string()).required(),
  cloud_auth: Joi.object().unknown(true).required(),
}).id('OnboardingRepository');

export const DemoRunSchema = Joi.object({
  id: Joi.string().required(),
  status: Joi.string().valid('pending', 'indexing', 'choosing_case', 'running', 'completed', 'failed').required(),
  mode: Joi.string().valid('managed', 'workspace').required(),
  phase: Joi.string()
    .valid('choosing_case', 'reading_code', 'indexing', 'diagnosing', 'fixing', 'waiting_runner', 'done', 'failed')
    .required(),
  outcome: Joi.string()
    .valid('answer', 'pull_request', 'fix_ready', 'fix_not_verified', 'escalated')
    .allow(null)
    .required(),
  done: Joi.boolean().required(),
  case_kind: Joi.string()
    .valid(...CASE_KINDS)
    .allow(null)
    .required(),
  source: Joi.object({
    kind: Joi.string()
      .valid(...CASE_KINDS)
      .required(),
    error_group_id: str,
    issue_number: int,
    issue_url: str,
    path: str,
    line_start: int,
    line_end: int,
    readme_path: str,
  })
    .allow(null)
    .required(),
  started_at: isoTime().required(),
  first_diagnosis_at: nullableTime(),
  completed_at: nullableTime(),
  cost_usd: Joi.number().required(),
  cap_usd: Joi.number().required(),
  error: Joi.object({
    code: Joi.string()
      .valid('budget_exhausted', 'repository_unavailable', 'no_case', 'job_failed', 'timed_out', 'internal')
      .required(),
    detail: str.required(),
  })
    .allow(null)
    .required(),
  retry: Joi.object({ allowed: Joi.boolean().required(), reason: str.required() }).required(),
  attempts: Joi.number().integer().required(),
  repository: Joi.object({ full_name: Joi.string().required(), html_url: Joi.string().required() })
    .allow(null)
    .required(),
  email: Joi.object({
    from_name: Joi.string().required(),
    from_address: Joi.string().required(),
    subject: Joi.string().required(),
    body: Joi.string().required(),
    received_at: isoTime().required(),
  })
    .allow(null)
    .required(),
  ticket: Joi.object({
    id: Joi.string().required(),
    state: Joi.string().required(),
    public_state: Joi.string().required(),
  })
    .allow(null)
    .required(),
  status_page_url: str.required(),
  indexed: Joi.boolean().required(),
  diagnosis: Joi.object({
    category: Joi.string().required(),
    confidence: Joi.number().required(),
    root_cause_md: Joi.string().allow('').required(),
    references: Joi.array()
      .items(
        Joi.object({
          path: Joi.string().required(),
          line_start: int.required(),
          line_end: int.required(),
          symbol: str.required(),
          url: str.required(),
        }),
      )
      .required(),
    public_summary: str.required(),
    created_at: isoTime().required(),
  })
    .allow(null)
    .required(),
  draft: Joi.object({
    kind: Joi.string().required(),
    body_md: Joi.string().allow('').required(),
    created_at: isoTime().required(),
  })
    .allow(null)
    .required(),
  fix: Joi.object({
    status: Joi.string().valid('running', 'verified', 'not_verified').required(),
    verify_passed: Joi.boolean().required(),
    tests_passed: Joi.boolean().required(),
    tests_ran: Joi.boolean().required(),
    reason: Joi.string()
      .valid('verification_failed', 'tests_failed', 'tests_not_run_without_reason', 'other')
      .allow(null)
      .required(),
  })
    .allow(null)
    .required(),
  pull_request: Joi.object({
    number: Joi.number().integer().required(),
    url: str.required(),
    title: str.required(),
    branch: str.required(),
    draft: Joi.boolean().required(),
    labeled: Joi.boolean().required(),
  })
    .allow(null)
    .required(),
  ticket_closed: Joi.boolean().required(),
}).id('DemoRun');

export const OnboardingSchema = Joi.object({
  workspace: Joi.object({
    id: Joi.string().required(),
    name: Joi.string().required(),
    client_name: str.required(),
    slug: Joi.string().required(),
    locale: Joi.string().valid('it', 'en').required(),
    execution_mode: executionMode.required(),
    agent_id: agentId.required(),
    auth_method: authMethod.allow(null).required(),
    runner_transport: transport.allow(null).required(),
    inbound_address: str.required(),
  })
    .allow(null)
    .required(),
  repository: OnboardingRepositorySchema.allow(null).required(),
  current: Joi.string().valid('repository', 'channels', 'agent', 'logs', 'done').required(),
  steps: Joi.array()
    .items(
      Joi.object({
        id: Joi.string()
          .valid(...STEP_IDS)
          .required(),
        status: Joi.string().valid('todo', 'done', 'skipped').required(),
        completed_at: nullableTime(),
        available: Joi.boolean().required(),
        optional: Joi.boolean().required(),
      }),
    )
    .required(),
  agent: Joi.object({
    answer: agentAnswer,
    detail: agentDetail.required(),
    mode: executionMode.required(),
    agent: agentId.required(),
    auth: authMethod.required(),
    transport: transport.allow(null).required(),
    credential_pending: Joi.boolean().required(),
    confirmed_at: isoTime().required(),
  })
    .allow(null)
    .required(),
  requirements: Joi.array().items(Joi.string()).required(),
  credentials: Joi.array().items(CredentialSchema).required(),
  demo: Joi.object({
    consent: Joi.string().valid('granted', 'refused').allow(null).required(),
    consent_at: nullableTime(),
    consent_required: Joi.boolean().required(),
    consent_reason: Joi.string().valid('runs_elsewhere', 'not_chosen').allow(null).required(),
    used: Joi.boolean().required(),
    can_start: Joi.boolean().required(),
    start_blocker: str.required(),
    workspace_demo: Joi.object({ available: Joi.boolean().required(), blocker: str.required() }).required(),
    cap_usd: Joi.number().required(),
    run: DemoRunSchema.allow(null).required(),
  }).required(),
}).id('Onboarding');

export const ExecutionSettingsSchema = Joi.object({
  workspace_id: Joi.string().required(),
  mode: executionMode.required(),
  agent: agentId.required(),
  auth: authMethod.allow(null).required(),
  transport: transport.allow(null).required(),
  allowed_modes: Joi.array().items(executionMode).required(),
  managed_available: Joi.boolean().required(),
  requirements: Joi.array().items(Joi.string()).required(),
  credentials: Joi.array().items(CredentialSchema).required(),
  repositories: Joi.array().items(OnboardingRepositorySchema).required(),
  runs_on: Joi.array().items(Joi.string()).required(),
  cloud_auth: Joi.object().unknown(true).required(),
  preview: Joi.object({
    files: Joi.array()
      .items(Joi.object({ path: Joi.string().required(), content: Joi.string().allow('').required() }))
      .required(),
    includes_workflow: Joi.boolean().required(),
    needs_agent_key: Joi.boolean().required(),
    missing_variables: Joi.array().items(Joi.string()).required(),
    repository_id: str.required(),
  }).required(),
}).id('ExecutionSettings');

export const OnboardingMetricsSchema = Joi.object({
  from: isoTime().required(),
  to: isoTime().required(),
  signups: Joi.number().integer().required(),
  demos_started: Joi.number().integer().required(),
  demos_completed: Joi.number().integer().required(),
  demos_failed: Joi.number().integer().required(),
  time_to_first_diagnosis: Joi.object({
    count: Joi.number().integer().required(),
    median_s: Joi.number().allow(null).required(),
    p90_s: Joi.number().allow(null).required(),
    under_target_ratio: Joi.number().required(),
  }).required(),
  target_s: Joi.number().integer().required(),
  by_case: Joi.array()
    .items(
      Joi.object({
        kind: Joi.string()
          .valid(...CASE_KINDS)
          .required(),
        count: Joi.number().integer().required(),
      }),
    )
    .required(),
  cost: Joi.object({ total_usd: Joi.number().required(), average_usd: Joi.number().required() }).required(),
  recent: Joi.array()
    .items(
      Joi.object({
        org_id: Joi.string().required(),
        status: Joi.string().required(),
        case_kind: Joi.string()
          .valid(...CASE_KINDS)
          .allow(null)
          .required(),
        cost_usd: Joi.number().required(),
        signup_at: isoTime().required(),
        first_diagnosis_at: nullableTime(),
        seconds_to_first_diagnosis: Joi.number().integer().allow(null).required(),
      }),
    )
    .required(),
}).id('OnboardingMetrics');

// ---- input

const executionFields = {
  mode: executionMode.required(),
  agent: agentId.required(),
  auth: authMethod.required(),
  transport: transport.allow(null),
  agent_key: Joi.string().trim().min(8).max(500),
  codex_auth_json: Joi.string()
    .max(64 * 1024)
    .description('Content of the agent login file (JSON); stored encrypted'),
  cloud_auth: Joi.object().unknown(true).max(50),
  runs_on: Joi.array().items(Joi.string().trim().min(1).max(100)).max(20),
  credential_later: Joi.boolean(),
};

export const executionPayload = Joi.object(executionFields);
export const agentPayload = Joi.object({
  ...executionFields,
  answer: agentAnswer,
  detail: agentDetail,
});
