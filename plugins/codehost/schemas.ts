import Joi from 'joi';
import { isoTime, nullableTime } from '../../core/http/times.js';

const str = Joi.string().allow(null);

export const CodeHostInstallation = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  host: Joi.string().required().description('Adapter of the code host, e.g. codehost-github'),
  external_id: Joi.string().required().description("The code host's installation id"),
  account: Joi.object({
    login: Joi.string().required(),
    type: Joi.string().valid('user', 'organization').required(),
  }).required(),
  repository_selection: Joi.string().valid('all', 'selected').required(),
  permissions: Joi.object().pattern(Joi.string(), Joi.string()).required(),
  suspended_at: nullableTime(),
  removed_at: nullableTime().description('Set when the code host reports the app uninstalled'),
  last_synced_at: nullableTime(),
  repositories_connected: Joi.number().integer().min(0).required(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
}).id('CodeHostInstallation');

export const CodeHostStatus = Joi.object({
  app: Joi.object({
    host: Joi.string().required(),
    install_available: Joi.boolean().required(),
    sign_in_available: Joi.boolean().required(),
    webhook_url: Joi.string().uri().required(),
  }).required(),
  installations: Joi.array().items(CodeHostInstallation).required(),
  link: Joi.object({
    linked: Joi.boolean().required(),
    login: str.required(),
    token_last4: str.required(),
  })
    .required()
    .description("The signed-in user's code-host login"),
}).id('CodeHostStatus');

export const CodeHostInstallUrl = Joi.object({
  url: Joi.string().uri().required(),
  state: Joi.string().required(),
  expires_at: isoTime().required(),
}).id('CodeHostInstallUrl');

// What the code host says of a repository, in an installation's list and on a connected Repository.
const hostRepositoryKeys = {
  external_id: Joi.string().required(),
  full_name: Joi.string().required(),
  html_url: Joi.string().uri().required(),
  default_branch: Joi.string().required(),
  is_public: Joi.boolean().required(),
  archived: Joi.boolean().required(),
};

export const InstallationRepository = Joi.object({
  ...hostRepositoryKeys,
  repository_id: str.required().description('Set when the repository is connected to a workspace'),
  workspace_id: str.required(),
}).id('InstallationRepository');

const guideline = Joi.object({
  path: Joi.string().required(),
  sha: Joi.string().required(),
  html_url: str.required(),
  excerpt: Joi.string().allow('').required(),
}).allow(null);

export const Repository = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  installation_id: Joi.string().required(),
  ...hostRepositoryKeys,
  agent_key: Joi.object({ last4: str.required(), set_at: nullableTime() }).required(),
  onboarding_pr: Joi.object({
    number: Joi.number().integer().allow(null).required(),
    url: str.required(),
    status: Joi.string().valid('none', 'open', 'merged', 'closed').required(),
    requested_at: nullableTime(),
    error: str.required(),
    title: str.required(),
  }).required(),
  runs_on: Joi.array().items(Joi.string()).required(),
  cloud_auth: Joi.object().unknown(true).required(),
  labels_created_at: nullableTime(),
  guidelines: Joi.object({
    contributing: guideline.required(),
    code_of_conduct: guideline.required(),
    read_at: isoTime().required(),
  })
    .allow(null)
    .required(),
  index: Joi.object({
    status: Joi.string().valid('none', 'queued', 'building', 'ready', 'failed').required(),
    indexed_sha: str.required(),
    indexed_at: nullableTime(),
    files: Joi.number().integer().min(0).required(),
    symbols: Joi.number().integer().min(0).required(),
    error: str.required(),
  }).required(),
  last_refreshed_at: nullableTime(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
}).id('Repository');

export const INTAKES = ['opt_in', 'opt_out'] as const;

export const OssSettings = Joi.object({
  workspace_id: Joi.string().required(),
  enabled: Joi.boolean().required().description('Issues and pull requests become tickets (origin codehost)'),
  intake: Joi.string()
    .valid(...INTAKES)
    .required()
    .description('opt_in: only items with the opt-in label; opt_out: every item without the opt-out label'),
  opt_in_label: Joi.string().required(),
  opt_out_label: Joi.string().required(),
  issues: Joi.boolean().required(),
  pull_requests: Joi.boolean().required(),
  follow_guidelines: Joi.boolean()
    .required()
    .description('Tickets and agents get the repository guidelines (CONTRIBUTING, CODE_OF_CONDUCT)'),
  ignore_bots: Joi.boolean().required(),
  auto_close_issues: Joi.boolean().required().description('The workspace setting oss_auto_close_issues'),
  comments_per_hour: Joi.number()
    .integer()
    .min(0)
    .required()
    .description('The workspace setting oss_comments_per_hour'),
  repositories: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().required(),
        full_name: Joi.string().required(),
        is_public: Joi.boolean().required(),
        labels_created_at: nullableTime(),
        guidelines_read_at: nullableTime(),
        contributing_path: str.required(),
        code_of_conduct_path: str.required(),
      }),
    )
    .required(),
  updated_at: nullableTime(),
}).id('OssSettings');

export const WebhookAck = Joi.object({
  ok: Joi.boolean().valid(true).required(),
  delivery_id: Joi.string().required(),
  event: Joi.string().required(),
  duplicate: Joi.boolean().required().description('True for a redelivery: nothing was done again'),
}).id('CodeHostWebhookAck');

export const Ok = Joi.object({ ok: Joi.boolean().valid(true).required() });

export const UnlinkResult = Joi.object({
  ok: Joi.boolean().valid(true).required(),
  disconnected_repository_ids: Joi.array().items(Joi.string()).required(),
}).id('CodeHostUnlinkResult');
