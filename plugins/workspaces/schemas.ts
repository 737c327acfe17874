import Joi from 'joi';
import { pageSchema } from '../../core/http/pagination.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

export const LOCALES = ['en', 'it'] as const;
export const EXECUTION_MODES = ['managed', 'runner', 'mcp'] as const;
export const AUTONOMIES = ['copilot', 'approve', 'autopilot'] as const;
export const AGENT_IDS = ['builtin', 'other', ...Array.from({ length: 11 }, (_, i) => `agent_${i + 1}`)] as const;
export const AUTH_METHODS = ['api-key', 'account_login', 'cloud_a', 'cloud_b', 'subscription'] as const;
export const RUNNER_TRANSPORTS = ['github_actions', 'container'] as const;
/** Autopilot categories: the spec leaves the element values open; they are the ticket categories. */
export const CATEGORIES = ['usage', 'config', 'docs', 'bug', 'feature_request', 'unknown'] as const;
export const SHARE_POLICIES = ['snippets', 'references_only'] as const;
export const MERGE_METHODS = ['squash', 'merge', 'rebase'] as const;
export const RELEASE_BATCHINGS = ['per_ticket', 'batched'] as const;
export const RELEASE_STRATEGIES = ['semver', 'calver', 'manual'] as const;

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

const str = Joi.string().allow(null);

const agentConfigOut = Joi.object({
  model: Joi.string().allow(null),
  credential_id: Joi.string().allow(null),
  effort: Joi.string().allow(null),
  max_minutes: Joi.number().integer().allow(null),
  max_cost_usd: Joi.number().allow(null),
});

/** Fields of every Workspace answer (the list form). */
const listFields = {
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  client_name: str.required(),
  brand_profile_id: str.required(),
  resale_price: Joi.number().allow(null).required(),
  locale: Joi.string()
    .valid(...LOCALES)
    .required(),
  execution_mode: Joi.string()
    .valid(...EXECUTION_MODES)
    .required(),
  agent_id: Joi.string()
    .valid(...AGENT_IDS)
    .required(),
  auth_method: Joi.string()
    .valid(...AUTH_METHODS)
    .allow(null)
    .required(),
  runner_transport: Joi.string()
    .valid(...RUNNER_TRANSPORTS)
    .allow(null)
    .required(),
  agent_config: agentConfigOut.required(),
  autonomy: Joi.string()
    .valid(...AUTONOMIES)
    .required(),
  autopilot_categories: Joi.array()
    .items(Joi.string().valid(...CATEGORIES))
    .required(),
  confidence_threshold: Joi.number().required(),
  share_policy: Joi.string()
    .valid(...SHARE_POLICIES)
    .required(),
  test_command: str.required(),
  merge_method: Joi.string()
    .valid(...MERGE_METHODS)
    .required(),
  auto_merge: Joi.boolean().required(),
  release_batching: Joi.string()
    .valid(...RELEASE_BATCHINGS)
    .required(),
  changelog_enabled: Joi.boolean().required(),
  github_release_enabled: Joi.boolean().required(),
  proactive_enabled: Joi.boolean().required(),
  proactive_threshold_users: Joi.number().integer().required(),
  proactive_monthly_fix_cap: Joi.number().integer().required(),
  critical_paths: Joi.array().items(Joi.string()).required(),
  notify_affected_users: Joi.boolean().required(),
  patterns_opt_in: Joi.boolean().required(),
  sla_first_response_minutes: Joi.number().integer().required(),
  sla_resolution_minutes: Joi.number().integer().required(),
  report_recipients: Joi.array()
    .items(Joi.string().email({ tlds: false }))
    .required(),
  report_intro: str.required(),
  report_auto_send: Joi.boolean().required(),
  managed_addon: Joi.boolean().required(),
  collect_via_connect: Joi.boolean().required(),
  managed_fixes_with_credits: Joi.boolean().required(),
  auto_close_days: Joi.number().integer().required(),
  oss_auto_close_issues: Joi.boolean().required(),
  oss_comments_per_hour: Joi.number().integer().required(),
  archived_at: nullableTime(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
};

export const WorkspaceListItemSchema = Joi.object(listFields).id('WorkspaceListItem');

export const WorkspaceSchema = Joi.object({
  ...listFields,
  inbound_address: Joi.string().email({ tlds: false }).allow(null).required(),
  widget: Joi.object({
    public_key: Joi.string().allow(null).required(),
    allowed_origins: Joi.array().items(Joi.string()).required(),
  }).required(),
  release_strategy: Joi.string()
    .valid(...RELEASE_STRATEGIES)
    .required(),
  available_fix_credits: Joi.number().integer().min(0).required(),
}).id('Workspace');

export const WorkspacePageSchema = pageSchema(WorkspaceListItemSchema).id('WorkspacePage');

// ---- input

const trimmed = (max: number) => Joi.string().trim().min(1).max(max);

export const createWorkspacePayload = Joi.object({
  name: trimmed(100).required(),
  slug: Joi.string()
    .lowercase()
    .pattern(SLUG)
    .description('Lower-case letters, digits and hyphens; derived from the name when absent'),
  client_name: Joi.string().trim().max(100).allow(null, ''),
  locale: Joi.string().valid(...LOCALES),
  execution_mode: Joi.string().valid(...EXECUTION_MODES),
});

/** Every field the spec lists for PATCH /v1/workspaces/{id}; all optional, at least one. */
export const updateWorkspacePayload = Joi.object({
  name: trimmed(100),
  client_name: Joi.string().trim().max(100).allow(null, ''),
  locale: Joi.string().valid(...LOCALES),
  brand_profile_id: Joi.string().max(64).allow(null),
  execution_mode: Joi.string().valid(...EXECUTION_MODES),
  agent_id: Joi.string().valid(...AGENT_IDS),
  auth_method: Joi.string()
    .valid(...AUTH_METHODS)
    .allow(null),
  runner_transport: Joi.string()
    .valid(...RUNNER_TRANSPORTS)
    .allow(null),
  agent_config: Joi.object({
    model: Joi.string().trim().min(1).max(100).allow(null),
    credential_id: Joi.string().max(64).allow(null),
    effort: Joi.string().valid('low', 'medium', 'high').allow(null),
    max_minutes: Joi.number().integer().min(1).max(720).allow(null),
    max_cost_usd: Joi.number().min(0).max(1000).precision(2).allow(null),
  }).description('Merged into the stored configuration; a key set to null is removed'),
  managed_fixes_with_credits: Joi.boolean(),
  autonomy: Joi.string().valid(...AUTONOMIES),
  autopilot_categories: Joi.array()
    .items(Joi.string().valid(...CATEGORIES))
    .unique()
    .max(CATEGORIES.length),
  confidence_threshold: Joi.number().min(0).max(1),
  share_policy: Joi.string().valid(...SHARE_POLICIES),
  test_command: Joi.string().trim().max(500).allow(null, ''),
  release_strategy: Joi.string().valid(...RELEASE_STRATEGIES),
  merge_method: Joi.string().valid(...MERGE_METHODS),
  auto_merge: Joi.boolean(),
  release_batching: Joi.string().valid(...RELEASE_BATCHINGS),
  changelog_enabled: Joi.boolean(),
  github_release_enabled: Joi.boolean(),
  auto_close_days: Joi.number().integer().min(0).max(365).description('0 never closes automatically'),
  proactive_enabled: Joi.boolean(),
  proactive_threshold_users: Joi.number().integer().min(1).max(100000),
  proactive_monthly_fix_cap: Joi.number().integer().min(0).max(1000),
  notify_affected_users: Joi.boolean(),
  critical_paths: Joi.array().items(Joi.string().trim().min(1).max(200)).unique().max(50),
  sla_first_response_minutes: Joi.number().integer().min(1).max(43200),
  sla_resolution_minutes: Joi.number().integer().min(1).max(525600),
  report_recipients: Joi.array()
    .items(Joi.string().trim().lowercase().email({ tlds: false }).max(254))
    .unique()
    .max(20),
  report_intro: Joi.string().trim().max(2000).allow(null, ''),
  report_auto_send: Joi.boolean(),
  patterns_opt_in: Joi.boolean(),
  oss_auto_close_issues: Joi.boolean(),
  oss_comments_per_hour: Joi.number().integer().min(0).max(1000),
}).min(1);

/** include_archived: a boolean, or 0/1/true/false in the query string. */
export const includeArchived = Joi.boolean()
  .truthy('1')
  .falsy('0')
  .default(false)
  .description('Also list archived workspaces (boolean, 0 or 1)');
