import Joi from 'joi';
import { ROLES } from '../../core/http/auth.js';
import { SUBSCRIPTION_STATUSES } from '../../core/contracts/index.js';
import { AUTONOMY_LEVELS, EXECUTION_MODES, PLAN_FEATURES, PLAN_IDS } from './plans.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

/**
 * Shared answer shapes of the accounts plugin. Each `.id()` schema is one OpenAPI component; use
 * these very objects everywhere (other plugins get them from the container as `accountSchemas`).
 */

export const LOCALES = ['en', 'it'] as const;
export const ORG_TYPES = ['direct', 'agency'] as const;
export const SIGNUP_SOURCES = ['direct', 'badge', 'referral', 'sibling_product', 'open_source', 'partner'] as const;

const email = () => Joi.string().email({ tlds: false });

export const roleSchema = Joi.string().valid(...ROLES);
export const localeSchema = Joi.string().valid(...LOCALES);

export const User = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  email: email().required(),
  name: Joi.string().allow('').required(),
  role: roleSchema.required(),
  workspace_ids: Joi.array()
    .items(Joi.string())
    .required()
    .description('Workspaces the user can open (owners and admins: all of them)'),
  email_verified_at: nullableTime(),
  code_host_login: Joi.string().allow(null).required(),
  locale: localeSchema.required(),
  last_login_at: nullableTime(),
  disabled_at: nullableTime(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
})
  .required()
  .id('User')
  .description('A person of an organization');

export const Organization = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  type: Joi.string()
    .valid(...ORG_TYPES)
    .required(),
  plan: Joi.string()
    .valid(...PLAN_IDS)
    .required(),
  subscription_status: Joi.string()
    .valid(...SUBSCRIPTION_STATUSES)
    .required(),
  trial_ends_at: nullableTime(),
  current_period_end: nullableTime(),
  plan_activated_at: nullableTime(),
  billing_email: email().allow(null).required(),
  spend_cap_usd: Joi.number().allow(null).required(),
  show_engine_brand: Joi.boolean().required(),
  patterns_opt_in: Joi.boolean().required(),
  badge_removal_addon: Joi.boolean().required(),
  overage_enabled: Joi.boolean().required(),
  retention_days: Joi.number().integer().required(),
  signup_source: Joi.string()
    .valid(...SIGNUP_SOURCES)
    .required(),
  referral_code: Joi.string().allow(null).required().description("The organization's own referral code, to share"),
  locale: localeSchema.required(),
  sso_enforced: Joi.boolean().required(),
  approval_min_approvers: Joi.number().integer().required(),
  approval_roles: Joi.array().items(roleSchema).required(),
  payment_connect_account_id: Joi.string().allow(null).required(),
  connect_charges_enabled: Joi.boolean().required(),
  demo_used_at: nullableTime(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
})
  .required()
  .id('Organization')
  .description('The customer account that owns workspaces');

export const WorkspaceSummary = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  client_name: Joi.string().allow(null).required(),
  execution_mode: Joi.string()
    .valid(...EXECUTION_MODES)
    .required(),
  autonomy: Joi.string()
    .valid(...AUTONOMY_LEVELS)
    .required(),
  archived_at: nullableTime(),
})
  .required()
  .id('WorkspaceSummary');

export const Plan = Joi.object({
  id: Joi.string()
    .valid(...PLAN_IDS)
    .required(),
  name: Joi.string().required(),
  features: Joi.array()
    .items(Joi.string().valid(...PLAN_FEATURES))
    .required(),
  autonomy: Joi.array()
    .items(Joi.string().valid(...AUTONOMY_LEVELS))
    .required(),
  execution_modes: Joi.array()
    .items(Joi.string().valid(...EXECUTION_MODES))
    .required(),
  limits: Joi.object({
    tickets_per_month: Joi.number().integer().required(),
    repositories_per_workspace: Joi.number().integer().required(),
    public_repos_only: Joi.boolean().required(),
    workspaces_included: Joi.number().integer().required(),
    extra_workspace_price_usd: Joi.number().required(),
    included_fixes_per_month: Joi.number().integer().required(),
    overage_fix_price_usd: Joi.number().required(),
  }).required(),
})
  .required()
  .id('Plan');

const SessionInfo = Joi.object({
  expires_at: isoTime().required(),
  sso: Joi.boolean().required(),
})
  .required()
  .id('SessionInfo');

const authContextKeys = {
  user: User,
  organization: Organization,
  // Array items must not be .required() (joi would then demand at least one).
  workspaces: Joi.array().items(WorkspaceSummary.optional()).required(),
  session: SessionInfo,
  staff: Joi.boolean().required(),
  plan: Plan,
};

export const AuthContext = Joi.object(authContextKeys)
  .required()
  .id('AuthContext')
  .description('Who is signed in, their organization, workspaces, session and plan');

export const SignupAuthContext = Joi.object({
  ...authContextKeys,
  email_verification_required: Joi.boolean().required(),
})
  .required()
  .id('SignupAuthContext')
  .description('AuthContext plus email_verification_required');

export const Sent = Joi.object({ sent: Joi.boolean().valid(true).required() })
  .required()
  .id('Sent');
export const Ok = Joi.object({ ok: Joi.boolean().valid(true).required() })
  .required()
  .id('Ok');

export const PersonRef = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().allow('').required(),
  email: email().required(),
})
  .required()
  .id('PersonRef');

export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;

export const Invitation = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  email: email().required(),
  role: roleSchema.required(),
  workspace_ids: Joi.array().items(Joi.string()).required(),
  status: Joi.string()
    .valid(...INVITATION_STATUSES)
    .required(),
  invited_by: Joi.alternatives(PersonRef, null).required(),
  expires_at: isoTime().required(),
  accepted_at: nullableTime(),
  revoked_at: nullableTime(),
  created_at: isoTime().required(),
})
  .required()
  .id('Invitation');

export const InvitationPreview = Joi.object({
  email: email().required(),
  role: roleSchema.required(),
  organization: Joi.object({ id: Joi.string().required(), name: Joi.string().required() }).required(),
  invited_by: Joi.object({ name: Joi.string().allow('').required(), email: email().required() })
    .allow(null)
    .required(),
  expires_at: isoTime().required(),
  existing_account: Joi.boolean()
    .required()
    .description('Whether an account with this address exists (accepting needs no password then)'),
})
  .required()
  .id('InvitationPreview');

const apiTokenKeys = {
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  name: Joi.string().required(),
  role: roleSchema.required(),
  workspace_ids: Joi.array().items(Joi.string()).allow(null).required().description("null: the creator's workspaces"),
  user: PersonRef,
  last4: Joi.string().required(),
  expires_at: isoTime().required(),
  last_used_at: nullableTime(),
  created_at: isoTime().required(),
};

export const ApiToken = Joi.object(apiTokenKeys).required().id('ApiToken');
export const ApiTokenCreated = Joi.object({
  ...apiTokenKeys,
  token: Joi.string().required().description('The token, shown once'),
})
  .required()
  .id('ApiTokenCreated');

export const page = (item: Joi.Schema, id: string) =>
  Joi.object({ items: Joi.array().items(item.optional()).required(), next_cursor: Joi.string().allow(null).required() })
    .required()
    .id(id);

/** Password rules: 10 to 200 characters. */
export const passwordSchema = Joi.string().min(10).max(200);
export const emailInput = () => Joi.string().trim().lowercase().email({ tlds: false }).max(254);

/** The shapes other plugins reuse (container key `accountSchemas`). */
export const accountSchemas = { User, Organization, WorkspaceSummary, Plan, AuthContext, SignupAuthContext, Sent, Ok };
export type AccountSchemas = typeof accountSchemas;
