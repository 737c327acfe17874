import Joi from 'joi';
import { ROLES } from '../../core/http/auth.js';
import { SSO_TEST_ERRORS } from '../../core/contracts/index.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

/** Answer shapes of the sso and security section; each `.id()` is one OpenAPI component. */

const uri = () => Joi.string().uri({ scheme: ['http', 'https'] });
const role = Joi.string().valid(...ROLES);

export const SSO_DOMAIN_ERRORS = ['txt_missing', 'txt_mismatch', 'dns_error', 'domain_taken'] as const;
export const BLOCKER_CODES = [
  'plan',
  'no_connection',
  'members_outside_domains',
  'not_signed_in_with_sso',
  'no_owner_with_password',
] as const;
export const APPROVER_ROLES = ['owner', 'admin', 'reviewer'] as const;
export const JIT_ROLES = ['admin', 'reviewer'] as const;

export const SsoConnection = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  protocol: Joi.string().valid('oidc', 'saml').required(),
  issuer: Joi.string().allow(null).required().description('OIDC issuer, or the SAML IdP entity id'),
  client_id: Joi.string().allow(null).required(),
  has_client_secret: Joi.boolean().required().description('The secret itself is never returned'),
  idp_sso_url: uri().allow(null).required(),
  idp_cert: Joi.string().allow(null).required().description('SAML IdP signing certificate (PEM)'),
  has_idp_metadata: Joi.boolean().required(),
  domains: Joi.array().items(Joi.string()).required(),
  enforced: Joi.boolean().required().description('Whether the organization requires single sign-on'),
  default_role: role.required().description('Role of people created on their first sign-in (JIT)'),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
  name: Joi.string().required(),
  jit_enabled: Joi.boolean().required(),
  last_login_at: nullableTime(),
  service_provider: Joi.object({
    redirect_uri: uri().required().description('OIDC redirect URI to register at the IdP'),
    entity_id: Joi.string().required().description('SAML service-provider entity id'),
    acs_url: uri().required().description('SAML assertion consumer service (HTTP-POST)'),
    metadata_url: uri().required(),
    login_url: uri().required().description('IdP app tile URL (IdP-initiated sign-in lands on a confirmation page)'),
  }).required(),
  certificate_expires_at: nullableTime(),
  linked_accounts: Joi.number().integer().min(0).required(),
})
  // Not .required(): as array items that would make an empty list invalid (array.includesRequiredUnknowns).
  .id('SsoConnection')
  .description('A single sign-on connection of the organization');

export const SsoDomain = Joi.object({
  domain: Joi.string().required(),
  status: Joi.string().valid('pending', 'verified').required(),
  verified_at: nullableTime(),
  last_checked_at: nullableTime(),
  last_error: Joi.string()
    .valid(...SSO_DOMAIN_ERRORS)
    .allow(null)
    .required(),
  txt: Joi.object({
    name: Joi.string().required().description('Record name, e.g. _patchwell-challenge.example.com'),
    value: Joi.string().required(),
  }).required(),
  connection_ids: Joi.array().items(Joi.string()).required(),
  created_at: isoTime().required(),
})
  // Not .required(): as array items that would make an empty list invalid (array.includesRequiredUnknowns).
  .id('SsoDomain')
  .description('An email domain claimed for single sign-on; a TXT record proves it');

const BlockerMember = Joi.object({
  id: Joi.string().required(),
  email: Joi.string().required(),
  name: Joi.string().allow('').required(),
  role: role.required(),
});

export const SsoOverview = Joi.object({
  available: Joi.boolean().required().description('Whether the plan includes single sign-on'),
  enforced: Joi.boolean().required(),
  connections: Joi.array().items(SsoConnection).required(),
  domains: Joi.array().items(SsoDomain).required(),
  enforcement: Joi.object({
    can_enable: Joi.boolean().required(),
    blockers: Joi.array()
      .items(
        Joi.object({
          code: Joi.string()
            .valid(...BLOCKER_CODES)
            .required(),
          members: Joi.array().items(BlockerMember),
          total: Joi.number().integer().min(0),
        }),
      )
      .required(),
  }).required(),
  recovery_codes: Joi.object({
    remaining: Joi.number().integer().min(0).required(),
    generated_at: nullableTime(),
  }).required(),
  session_sso: Joi.boolean().required().description("Whether the caller's session came from single sign-on"),
})
  .required()
  .id('SsoOverview');

export const Governance = Joi.object({
  available: Joi.boolean().required().description('Whether the plan includes approval governance'),
  min_approvers: Joi.number().integer().min(1).required(),
  roles: Joi.array()
    .items(Joi.string().valid(...APPROVER_ROLES))
    .required(),
  defaults: Joi.object({
    min_approvers: Joi.number().integer().required(),
    roles: Joi.array()
      .items(Joi.string().valid(...APPROVER_ROLES))
      .required(),
  }).required(),
  eligible_approvers: Joi.number().integer().min(0).required(),
  workspaces_below_minimum: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().required(),
        name: Joi.string().required(),
        eligible: Joi.number().integer().min(0).required(),
      }),
    )
    .required(),
  max_min_approvers: Joi.number().integer().required(),
})
  .required()
  .id('Governance')
  .description('Who approves fixes and releases, and how many approvals each needs');

export const RecoveryCodes = Joi.object({
  codes: Joi.array().items(Joi.string()).required().description('Shown once; each works once'),
  generated_at: nullableTime(),
})
  .required()
  .id('SsoRecoveryCodes');

export const RedirectUrl = Joi.object({ redirect_url: uri().required() }).required().id('SsoRedirect');

export const ConnectionTest = Joi.object({
  ok: Joi.boolean().required(),
  protocol: Joi.string().valid('oidc', 'saml').required(),
  details: Joi.object().unknown(true).required(),
  error: Joi.string()
    .valid(...SSO_TEST_ERRORS)
    .allow(null)
    .required(),
})
  .required()
  .id('SsoConnectionTest');

export const ConnectionTile = Joi.object({
  id: Joi.string().required(),
  protocol: Joi.string().valid('oidc', 'saml').required(),
  name: Joi.string().required(),
  organization: Joi.object({ id: Joi.string().required(), name: Joi.string().required() }).required(),
})
  .required()
  .id('SsoConnectionTile');

export const SecurityOverview = Joi.object({ sso: SsoOverview, governance: Governance })
  .required()
  .id('SecurityOverview');
export const EnforcementAnswer = Joi.object({ sso: SsoOverview, recovery_codes: RecoveryCodes })
  .required()
  .id('SsoEnforcement');
export const Released = Joi.object({
  released: Joi.boolean().valid(true).required(),
  was_verified: Joi.boolean().required(),
})
  .required()
  .id('SsoReleasedAddress');

// ---- inputs

export const domainName = () =>
  Joi.string()
    .trim()
    .lowercase()
    .max(253)
    .pattern(/^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/)
    .message('must be a domain name like example.com');

export const redirectTo = () =>
  Joi.string()
    .max(512)
    .pattern(/^\/(?![/\\])/)
    .message('must be a path on the dashboard, starting with /')
    .description('Dashboard path to land on after signing in');

const pem = () => Joi.string().max(20_000);

export const createConnectionPayload = Joi.object({
  protocol: Joi.string().valid('oidc', 'saml').required(),
  name: Joi.string().trim().min(1).max(100).required(),
  domains: Joi.array().items(domainName()).max(50).unique().default([]),
  default_role: Joi.string()
    .valid(...JIT_ROLES)
    .default('reviewer'),
  jit_enabled: Joi.boolean().default(false),
  issuer: uri().max(500).when('protocol', { is: 'oidc', then: Joi.required(), otherwise: Joi.forbidden() }),
  client_id: Joi.string().max(500).when('protocol', { is: 'oidc', then: Joi.required(), otherwise: Joi.forbidden() }),
  client_secret: Joi.string()
    .max(2000)
    .when('protocol', { is: 'oidc', then: Joi.required(), otherwise: Joi.forbidden() }),
  metadata_xml: Joi.string().max(200_000).when('protocol', { is: 'saml', otherwise: Joi.forbidden() }),
  entity_id: Joi.string().max(500).when('protocol', { is: 'saml', otherwise: Joi.forbidden() }),
  sso_url: uri().max(1000).when('protocol', { is: 'saml', otherwise: Joi.forbidden() }),
  certificate: pem().when('protocol', { is: 'saml', otherwise: Joi.forbidden() }),
}).label('payload');

export const updateConnectionPayload = Joi.object({
  name: Joi.string().trim().min(1).max(100),
  domains: Joi.array().items(domainName()).max(50).unique(),
  default_role: Joi.string().valid(...JIT_ROLES),
  jit_enabled: Joi.boolean(),
  issuer: uri().max(500),
  client_id: Joi.string().max(500),
  client_secret: Joi.string().max(2000).description('Replaces the stored one'),
  metadata_xml: Joi.string().max(200_000),
  entity_id: Joi.string().max(500),
  sso_url: uri().max(1000),
  certificate: pem(),
}).min(1);
