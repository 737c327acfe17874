import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { AuthContext, emailInput, localeSchema, passwordSchema } from '../schemas.js';
import type { UpdateMeInput } from '../services/me-service.js';
import { service } from './common.js';

export function meRoutes(): ServerRoute[] {
  return [
    {
      method: 'PATCH',
      path: '/v1/me',
      options: {
        id: 'updateMe',
        tags: ['me'],
        description: 'Update your own profile',
        notes:
          'name and locale freely. email and password need current_password (when the account has one) and a session (not an API token). ' +
          'A new password closes your other sessions; a new address must be verified again and the old one is told. Answers the AuthContext.',
        validate: {
          payload: Joi.object({
            name: Joi.string().trim().min(1).max(120),
            locale: localeSchema,
            email: emailInput(),
            password: passwordSchema,
            current_password: Joi.string().max(200),
          }).min(1),
        },
        response: { status: { 200: AuthContext } },
        handler: (request) =>
          service(request, 'meService').update(
            requirePrincipal(request),
            request.payload as UpdateMeInput,
            request.actor(),
          ),
      },
    },
  ];
}
