import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { DomainPurpose } from '../../../core/contracts/index.js';
import { requirePrincipal } from '../../../core/http/auth.js';
import { DOMAIN_PURPOSES, DomainListSchema, DomainSchema } from '../schemas.js';
import type { DomainService, RegisterDomainInput } from '../services/domains.js';
import { OWNERS_ADMINS } from './common.js';

const tags = ['domains'];
const keyParams = Joi.object({
  brandProfileId: Joi.string()
    .max(64)
    .required()
    .description('brand_profile_id of the Domain (a brand profile id, or a workspace id for scope workspace)'),
  purpose: Joi.string()
    .valid(...DOMAIN_PURPOSES)
    .required(),
});
type KeyParams = { brandProfileId: string; purpose: DomainPurpose };

/** Route table of the domains section (6 operations). */
export function domainRoutes(service: () => DomainService, ok: Joi.ObjectSchema): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/domains',
      options: {
        id: 'listDomains',
        tags,
        description: "Email domains of a workspace's brand (or of the whole organization)",
        notes:
          'With workspace_id: the sending and receiving domains that workspace uses. Without: every domain of the organization the caller can see.',
        validate: { query: Joi.object({ workspace_id: Joi.string().max(64) }) },
        response: { status: { 200: DomainListSchema } },
        handler: async (request) => ({
          items: await service().list(requirePrincipal(request), request.query),
        }),
      },
    },
    {
      method: 'POST',
      path: '/v1/domains',
      options: {
        id: 'registerDomain',
        tags,
        description: 'Registers a sending or receiving domain with the email provider',
        notes:
          'Answers the DNS records to publish. One domain per purpose and brand (409 domain_exists); a name ' +
          'registered elsewhere answers 409 domain_taken; plans without custom domains answer 402 ' +
          'plan_limit_reached.',
        validate: {
          payload: Joi.object({
            workspace_id: Joi.string().max(64),
            brand_profile_id: Joi.string().max(64),
            purpose: Joi.string()
              .valid(...DOMAIN_PURPOSES)
              .required(),
            domain: Joi.string().max(253).required(),
          })
            .xor('workspace_id', 'brand_profile_id')
            .required(),
        },
        plugins: { patchwell: { ...OWNERS_ADMINS, successStatus: 201 } },
        response: { status: { 201: DomainSchema } },
        handler: async (request, h) =>
          h.response(await service().register(request.actor(), request.payload as RegisterDomainInput)).code(201),
      },
    },
    {
      method: 'GET',
      path: '/v1/domains/{brandProfileId}/{purpose}',
      options: {
        id: 'getDomain',
        tags,
        description: 'A domain and its records; refreshes the status from the provider and DNS when stale',
        validate: { params: keyParams },
        response: { status: { 200: DomainSchema } },
        handler: (request) => {
          const p = request.params as KeyParams;
          return service().get(requirePrincipal(request), p.brandProfileId, p.purpose);
        },
      },
    },
    {
      method: 'DELETE',
      path: '/v1/domains/{brandProfileId}/{purpose}',
      options: {
        id: 'deleteDomain',
        tags,
        description: 'Removes the domain from the provider and forgets it',
        notes: 'Audited. Replies go out from the default address again.',
        validate: { params: keyParams },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: ok } },
        handler: (request) => {
          const p = request.params as KeyParams;
          return service().remove(request.actor(), p.brandProfileId, p.purpose);
        },
      },
    },
    {
      method: 'PATCH',
      path: '/v1/domains/{brandProfileId}/{purpose}/sender',
      options: {
        id: 'updateDomainSender',
        tags,
        description: 'Sets the From address or name (sending), or the public support address (receiving)',
        notes: 'The address must be at the domain (422 sender_domain_mismatch). Audited.',
        validate: {
          params: keyParams,
          payload: Joi.object({
            sender_email: Joi.string().email({ tlds: false }).max(254).allow(null, ''),
            sender_name: Joi.string().max(120).allow(null, ''),
          })
            .min(1)
            .required(),
        },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: DomainSchema } },
        handler: (request) => {
          const p = request.params as KeyParams;
          return service().setSender(
            request.actor(),
            p.brandProfileId,
            p.purpose,
            request.payload as { sender_email?: string | null; sender_name?: string | null },
          );
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/domains/{brandProfileId}/{purpose}/verify',
      options: {
        id: 'verifyDomain',
        tags,
        description: 'Asks the provider and DNS to check the records now',
        notes: 'Ten checks a minute per domain (429). A provider failure answers 502 or 503 provider_error.',
        validate: { params: keyParams },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: DomainSchema } },
        handler: (request) => {
          const p = request.params as KeyParams;
          return service().verify(request.actor(), p.brandProfileId, p.purpose);
        },
      },
    },
  ];
}
