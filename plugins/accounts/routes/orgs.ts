import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { Organization, localeSchema } from '../schemas.js';
import type { UpdateOrganizationInput } from '../services/org-service.js';
import { service } from './common.js';

const tags = ['orgs'];

export function orgRoutes(): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/orgs/current',
      options: {
        id: 'getCurrentOrganization',
        tags,
        description: 'The organization you belong to',
        response: { status: { 200: Organization } },
        handler: (request) => service(request, 'orgService').get(requirePrincipal(request)),
      },
    },
    {
      method: 'PATCH',
      path: '/v1/orgs/current',
      options: {
        id: 'updateCurrentOrganization',
        tags,
        description: 'Change the settings of your organization',
        notes:
          'Every change is audited. Plan and billing fields change through billing, approval governance through security.',
        validate: {
          payload: Joi.object({
            name: Joi.string().trim().min(1).max(120),
            slug: Joi.string()
              .trim()
              .lowercase()
              .pattern(/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/)
              .message('slug: lower-case letters, digits and dashes, at most 40'),
            billing_email: Joi.string().trim().lowercase().email({ tlds: false }).max(254).allow(null),
            locale: localeSchema,
            retention_days: Joi.number().integer().min(7).max(3650),
            patterns_opt_in: Joi.boolean(),
          }).min(1),
        },
        response: { status: { 200: Organization } },
        plugins: { patchwell: { roles: ['owner', 'admin'] } },
        handler: (request) =>
          service(request, 'orgService').update(
            requirePrincipal(request),
            request.payload as UpdateOrganizationInput,
            request.actor(),
          ),
      },
    },
  ];
}
