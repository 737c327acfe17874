import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { PublicService, SponsorshipInput } from '../services/public.js';
import { isoTime } from '../../../core/http/times.js';

const tags = ['public'];

const StatsSchema = Joi.object({
  resolved_tickets: Joi.number().integer().required(),
  releases: Joi.number().integer().required(),
  median_resolution_minutes: Joi.number().integer().allow(null).required(),
  updated_at: isoTime().required(),
}).id('PublicStats');

const SponsorshipSchema = Joi.object({
  id: Joi.string().required(),
  repository_url: Joi.string().uri().required(),
  status: Joi.string().valid('received').required(),
  created_at: isoTime().required(),
}).id('OssSponsorshipRequest');

/** The public section's operations served by this plugin (stats, sponsorship requests). */
export function publicRoutes(service: () => PublicService): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/public/stats',
      options: {
        id: 'getPublicStats',
        tags,
        description: 'Landing page counters: resolved tickets, releases, median resolution',
        notes: 'Over every organization, demo tickets excluded; recomputed at most every few minutes. No sign-in.',
        auth: false,
        response: { status: { 200: StatsSchema } },
        handler: async () => service().stats(),
      },
    },
    {
      method: 'POST',
      path: '/v1/public/oss-sponsorship-requests',
      options: {
        id: 'createOssSponsorshipRequest',
        tags,
        description: 'Requests sponsored managed credits for a public repository (reviewed by hand)',
        notes:
          'One open request per repository (409 request_pending); 5 requests per hour per address (429). No sign-in.',
        auth: false,
        validate: {
          payload: Joi.object({
            repository_url: Joi.string().trim().max(300).required(),
            name: Joi.string().trim().min(1).max(100).required(),
            email: Joi.string()
              .trim()
              .email({ tlds: { allow: false } })
              .max(254)
              .required(),
            project_description: Joi.string().trim().max(2000).allow(null, ''),
            monthly_issues: Joi.number().integer().min(0).max(1_000_000).allow(null),
            locale: Joi.string().valid('en', 'it'),
          }).required(),
        },
        plugins: { patchwell: { successStatus: 201 } },
        response: { status: { 201: SponsorshipSchema } },
        handler: async (request, h) =>
          h
            .response(
              await service().requestSponsorship(
                request.payload as SponsorshipInput,
                request.actor({ anonymous: true }),
              ),
            )
            .code(201),
      },
    },
  ];
}
