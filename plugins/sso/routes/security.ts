import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal, type Role } from '../../../core/http/auth.js';
import {
  APPROVER_ROLES,
  ConnectionTest,
  EnforcementAnswer,
  Governance,
  RecoveryCodes,
  Released,
  SecurityOverview,
  SsoConnection,
  SsoDomain,
  createConnectionPayload,
  domainName,
  updateConnectionPayload,
} from '../schemas.js';
import type { CreateConnectionInput, UpdateConnectionInput } from '../services/connections.js';
import { emailInputSchema } from './inputs.js';
import { OWNERS, OWNERS_ADMINS, TAG, service } from './common.js';

const idParams = Joi.object({ id: Joi.string().max(64).required().description('Connection id') });
const domainParams = Joi.object({ domain: domainName().required() });
const Ok = Joi.object({ ok: Joi.boolean().valid(true).required() }).required();

const connections = (r: Request) => service(r, 'ssoConnections');
const domains = (r: Request) => service(r, 'ssoDomains');
const enforcement = (r: Request) => service(r, 'ssoEnforcement');
const governance = (r: Request) => service(r, 'approvalGovernance');
const id = (r: Request) => (r.params as { id: string }).id;
const domain = (r: Request) => (r.params as { domain: string }).domain;

/** The signed-in half of the section: connections, domains, enforcement, governance (13 operations). */
export function securityRoutes(okSchema: Joi.ObjectSchema = Ok): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/security',
      options: {
        id: 'getSecurity',
        tags: [TAG],
        description: 'Single sign-on overview and approval governance',
        validate: {},
        response: { status: { 200: SecurityOverview } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) => {
          const p = requirePrincipal(request);
          const db = service(request, 'db');
          return {
            sso: await enforcement(request).overview(db, p),
            governance: await governance(request).json(p.orgId),
          };
        },
      },
    },
    {
      method: 'PUT',
      path: '/v1/security/governance',
      options: {
        id: 'updateGovernance',
        tags: [TAG],
        description: 'Sets how many approvals fixes and releases need, and which roles approve',
        notes:
          'min_approvers from 1 to max_min_approvers; roles among owner, admin, reviewer. Plans without approval governance answer 402 feature_not_in_plan.',
        validate: {
          payload: Joi.object({
            min_approvers: Joi.number().integer().min(1).required(),
            roles: Joi.array()
              .items(Joi.string().valid(...APPROVER_ROLES))
              .min(1)
              .unique()
              .required(),
          }),
        },
        response: { status: { 200: Governance } },
        plugins: { patchwell: OWNERS },
        handler: async (request) =>
          governance(request).update(
            requirePrincipal(request),
            request.payload as { min_approvers: number; roles: Role[] },
            request.actor(),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/security/sso/connections',
      options: {
        id: 'createSsoConnection',
        tags: [TAG],
        description: 'Creates a single sign-on connection',
        notes:
          'OIDC: issuer, client_id and client_secret (sealed; never returned). SAML: metadata_xml, or ' +
          'entity_id, sso_url and certificate. Domains named here are claimed (pending) when not yet. Plans ' +
          'without single sign-on answer 402 feature_not_in_plan.',
        validate: { payload: createConnectionPayload },
        response: { status: { 201: SsoConnection } },
        plugins: { patchwell: { ...OWNERS, successStatus: 201 } },
        handler: async (request, h) =>
          h
            .response(
              await connections(request).create(
                requirePrincipal(request),
                request.payload as CreateConnectionInput,
                request.actor(),
              ),
            )
            .code(201),
      },
    },
    {
      method: 'PATCH',
      path: '/v1/security/sso/connections/{id}',
      options: {
        id: 'updateSsoConnection',
        tags: [TAG],
        description: 'Changes a connection',
        notes:
          'name, default_role and jit_enabled: owners and admins; provider settings and domains: owners. ' +
          'client_secret replaces the stored one. metadata_xml fills entity_id, sso_url and certificate ' +
          '(fields given beside it win).',
        validate: { params: idParams, payload: updateConnectionPayload },
        response: { status: { 200: SsoConnection } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) =>
          connections(request).update(
            requirePrincipal(request),
            id(request),
            request.payload as UpdateConnectionInput,
            request.actor(),
          ),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/security/sso/connections/{id}',
      options: {
        id: 'deleteSsoConnection',
        tags: [TAG],
        description: 'Removes a connection and its secret',
        notes: '409 sso_enforced for the last connection while single sign-on is required.',
        validate: { params: idParams },
        response: { status: { 200: okSchema } },
        plugins: { patchwell: OWNERS },
        handler: async (request) => {
          await connections(request).remove(requirePrincipal(request), id(request), request.actor());
          return { ok: true };
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/security/sso/connections/{id}/test',
      options: {
        id: 'testSsoConnection',
        tags: [TAG],
        description: 'Checks OIDC discovery or the SAML certificate',
        notes:
          'Discovery goes through the SSRF guard: private, loopback, link-local and metadata addresses answer ' +
          'error blocked_address; http issuers insecure_issuer.',
        validate: { params: idParams },
        response: { status: { 200: ConnectionTest } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) => connections(request).test(requirePrincipal(request), id(request)),
      },
    },
    {
      method: 'POST',
      path: '/v1/security/sso/connections/{id}/unlink',
      options: {
        id: 'unlinkSsoAccount',
        tags: [TAG],
        description: 'Forgets the link of one person to the connection; their next sign-in links again',
        validate: { params: idParams, payload: Joi.object({ email: emailInputSchema().required() }) },
        response: { status: { 200: SsoConnection } },
        plugins: { patchwell: OWNERS },
        handler: async (request) =>
          connections(request).unlink(
            requirePrincipal(request),
            id(request),
            (request.payload as { email: string }).email,
            request.actor(),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/security/sso/domains',
      options: {
        id: 'claimSsoDomain',
        tags: [TAG],
        description: 'Claims an email domain; answers the TXT record that proves it',
        validate: { payload: Joi.object({ domain: domainName().required() }) },
        response: { status: { 201: SsoDomain } },
        plugins: { patchwell: { ...OWNERS, successStatus: 201 } },
        handler: async (request, h) =>
          h
            .response(
              await domains(request).claim(
                requirePrincipal(request),
                (request.payload as { domain: string }).domain,
                request.actor(),
              ),
            )
            .code(201),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/security/sso/domains/{domain}',
      options: {
        id: 'deleteSsoDomain',
        tags: [TAG],
        description: 'Gives up a claimed domain',
        validate: { params: domainParams },
        response: { status: { 200: okSchema } },
        plugins: { patchwell: OWNERS },
        handler: async (request) => {
          await domains(request).remove(requirePrincipal(request), domain(request), request.actor());
          return { ok: true };
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/security/sso/domains/{domain}/verify',
      options: {
        id: 'verifySsoDomain',
        tags: [TAG],
        description: 'Looks up the TXT record now',
        notes:
          'verified when `_patchwell-challenge.<domain>` holds the value; else last_error is txt_missing, ' +
          'txt_mismatch, dns_error or domain_taken (verified by another organization).',
        validate: { params: domainParams },
        response: { status: { 200: SsoDomain } },
        plugins: { patchwell: OWNERS },
        handler: async (request) =>
          domains(request).verify(requirePrincipal(request), domain(request), request.actor()),
      },
    },
    {
      method: 'PUT',
      path: '/v1/security/sso/enforcement',
      options: {
        id: 'setSsoEnforcement',
        tags: [TAG],
        description: 'Requires single sign-on for the organization, or stops requiring it',
        notes:
          'Enabling answers fresh recovery codes (shown once) and ends the password sessions of other members; ' +
          '409 enforcement_blocked with details.blockers when it cannot be enabled yet.',
        validate: { payload: Joi.object({ enforced: Joi.boolean().required() }) },
        response: { status: { 200: EnforcementAnswer } },
        plugins: { patchwell: OWNERS },
        handler: async (request) =>
          enforcement(request).setEnforced(
            requirePrincipal(request),
            (request.payload as { enforced: boolean }).enforced,
            request.actor(),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/security/sso/recovery-codes',
      options: {
        id: 'regenerateSsoRecoveryCodes',
        tags: [TAG],
        description: 'Replaces the recovery codes; old ones stop working',
        validate: {},
        response: { status: { 200: RecoveryCodes } },
        plugins: { patchwell: OWNERS },
        handler: async (request) => enforcement(request).regenerate(requirePrincipal(request), request.actor()),
      },
    },
    {
      method: 'POST',
      path: '/v1/security/sso/released-addresses',
      options: {
        id: 'releaseSsoAddress',
        tags: [TAG],
        description: 'Frees an address of a verified domain from an account of another organization, which is closed',
        notes:
          "422 domain_not_verified when the address is outside the organization's verified domains; 404 when no other organization has an account with it.",
        validate: { payload: Joi.object({ email: emailInputSchema().required() }) },
        response: { status: { 200: Released } },
        plugins: { patchwell: OWNERS },
        handler: async (request) =>
          domains(request).releaseAddress(
            requirePrincipal(request),
            (request.payload as { email: string }).email,
            request.actor(),
          ),
      },
    },
  ];
}
