import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { PartnerService } from '../services/partner.js';
import { nullableTime } from '../../../core/http/times.js';

const PartnerListing = Joi.object({
  name: Joi.string().required(),
  website_url: Joi.string().uri().allow(null).required(),
  description: Joi.string().allow(null).required(),
  countries: Joi.array().items(Joi.string()).required(),
  languages: Joi.array().items(Joi.string()).required(),
  services: Joi.array().items(Joi.string()).required(),
  certified_at: nullableTime(),
});

/** GET /v1/public/partners (section `public`). */
export function publicPartnerRoutes(partner: () => PartnerService): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/public/partners',
      options: {
        id: 'listPublicPartners',
        tags: ['public'],
        description: 'Certified partner agencies, by name',
        notes: 'Agencies whose partner profile is listed and certified by staff. No sign-in.',
        auth: false,
        response: {
          status: { 200: Joi.object({ items: Joi.array().items(PartnerListing).required() }).id('PublicPartners') },
        },
        handler: async () => ({ items: await partner().listed() }),
      },
    },
  ];
}
