import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { forbidden } from '../../../core/http/errors.js';
import type { WhiteLabelReadiness } from '../services/clients.js';
import { PARTNER_SERVICES, type PartnerInput, type PartnerService } from '../services/partner.js';
import { isoTime, nullableTime } from '../../../core/http/times.js';

const tags = ['agency'];
const OWNERS_ADMINS = { roles: ['owner', 'admin'] };

const WhiteLabelItem = Joi.object({
  workspace_id: Joi.string().required(),
  name: Joi.string().required(),
  client_name: Joi.string().required(),
  brand_profile_id: Joi.string().allow(null).required(),
  effective_profile_id: Joi.string().allow(null).required(),
  status_base_url: Joi.string().uri().required(),
  show_badge: Joi.boolean().required(),
  ready: Joi.boolean().required(),
  missing: Joi.array()
    .items(Joi.string())
    .required()
    .description('Same values as WorkspaceBrand.white_label_missing (docs/brand.md)'),
});
const WhiteLabelSchema = Joi.object({
  items: Joi.array().items(WhiteLabelItem).required(),
  ready: Joi.number().integer().required(),
  total: Joi.number().integer().required(),
}).id('AgencyWhiteLabel');

const code2 = Joi.string().pattern(/^[A-Z]{2}$/);
export const PartnerSchema = Joi.object({
  organization_id: Joi.string().required(),
  exists: Joi.boolean().required(),
  display_name: Joi.string().required(),
  website_url: Joi.string().uri().allow(null).required(),
  description: Joi.string().allow(null).required(),
  contact_email: Joi.string().allow(null).required(),
  countries: Joi.array().items(Joi.string()).required(),
  languages: Joi.array().items(Joi.string()).required(),
  services: Joi.array().items(Joi.string()).required(),
  listed: Joi.boolean().required(),
  public: Joi.boolean().required().description('Shown by GET /v1/public/partners: listed and certified'),
  certification: Joi.object({
    status: Joi.string().valid('none', 'requested', 'certified', 'revoked').required(),
    requested_at: nullableTime(),
    certified_at: nullableTime(),
  }).required(),
  referral_code: Joi.string().allow(null).required(),
  referred_customers: Joi.array()
    .items(
      Joi.object({
        organization_id: Joi.string().required(),
        name: Joi.string().required(),
        plan: Joi.string().required(),
        signed_up_at: isoTime().required(),
      }),
    )
    .required(),
  created_at: nullableTime(),
  updated_at: nullableTime(),
}).id('PartnerProfile');

export interface AgencyRouteServices {
  partner: () => PartnerService;
  whiteLabel: () => WhiteLabelReadiness;
}

/** Route table of the agency section: white-label readiness and the partner profile (see docs/agency.md). */
export function agencyRoutes(s: AgencyRouteServices): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/agency/white-label',
      options: {
        id: 'getAgencyWhiteLabel',
        tags,
        description: 'White-label readiness of every client workspace',
        notes:
          "Client workspaces are the agency's workspaces with a client_name. 403 not_an_agency for other organizations.",
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: WhiteLabelSchema } },
        handler: async (request) => s.whiteLabel().list(requirePrincipal(request)),
      },
    },
    {
      method: 'GET',
      path: '/v1/agency/partner',
      options: {
        id: 'getAgencyPartner',
        tags,
        description: "The agency's partner profile, its certification and referred customers",
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: PartnerSchema } },
        handler: async (request) => s.partner().get(requirePrincipal(request)),
      },
    },
    {
      method: 'PUT',
      path: '/v1/agency/partner',
      options: {
        id: 'putAgencyPartner',
        tags,
        description: 'Creates or changes the public partner profile; certification is decided by staff',
        notes:
          'request_certification asks staff to certify. Staff send organization_id and certification ' +
          '(certified, revoked, none) to decide; anyone else sending them answers 403. Audited.',
        validate: {
          payload: Joi.object({
            display_name: Joi.string().trim().min(1).max(100),
            website_url: Joi.string()
              .trim()
              .uri({ scheme: ['https', 'http'] })
              .max(500)
              .allow(null, ''),
            description: Joi.string().trim().max(2000).allow(null, ''),
            contact_email: Joi.string()
              .trim()
              .email({ tlds: { allow: false } })
              .max(254)
              .allow(null, ''),
            countries: Joi.array().items(code2).max(50).description('ISO 3166-1 alpha-2 codes'),
            languages: Joi.array()
              .items(Joi.string().valid('en', 'it', 'de', 'fr', 'es', 'pt', 'nl'))
              .max(10),
            services: Joi.array()
              .items(Joi.string().valid(...PARTNER_SERVICES))
              .max(PARTNER_SERVICES.length),
            listed: Joi.boolean().description('Show the profile publicly once certified'),
            request_certification: Joi.boolean(),
            organization_id: Joi.string().max(64).description('Staff only'),
            certification: Joi.string().valid('certified', 'revoked', 'none').description('Staff only'),
          }).required(),
        },
        response: { status: { 200: PartnerSchema } },
        handler: async (request) => {
          const p = requirePrincipal(request);
          const input = request.payload as PartnerInput;
          const staffDecision = input.certification !== undefined || input.organization_id !== undefined;
          // Owners and admins edit their profile; staff decide certifications (checked by the service).
          if (!staffDecision && !['owner', 'admin'].includes(p.role)) throw forbidden();
          return s.partner().put(request.actor(), input);
        },
      },
    },
  ];
}
