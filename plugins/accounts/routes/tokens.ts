import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import { ApiToken, ApiTokenCreated, page, roleSchema } from '../schemas.js';
import type { CreateTokenInput } from '../services/token-service.js';
import { service } from './common.js';

const tags = ['tokens'];

export function tokenRoutes(): ServerRoute[] {
  const tokens = (request: Parameters<typeof service>[0]) => service(request, 'tokenService');
  return [
    {
      method: 'GET',
      path: '/v1/tokens',
      options: {
        id: 'listTokens',
        tags,
        description: 'API tokens, newest first',
        notes:
          'Owners and admins see every token of the organization; others see their own. Revoked tokens are left out.',
        validate: { query: Joi.object(paginationQuery) },
        response: { status: { 200: page(ApiToken, 'ApiTokenPage') } },
        handler: (request) => tokens(request).list(requirePrincipal(request), request.query),
      },
    },
    {
      method: 'POST',
      path: '/v1/tokens',
      options: {
        id: 'createToken',
        tags,
        description: 'Create an API token (shown once)',
        notes:
          'Use it as `Authorization: Bearer pwt_…`. role at most your own; workspace_ids (optional) within the workspaces you can open; ' +
          'expires_at defaults to 90 days and is at most 730 days away. The token acts for you: it never exceeds your current role or access. ' +
          'Called with an API token, the new token stays within that token: its role, its workspaces (omitted workspace_ids means the same list) ' +
          'and its expiry. Audited.',
        validate: {
          payload: Joi.object({
            name: Joi.string().trim().min(1).max(100).required(),
            role: roleSchema.required(),
            workspace_ids: Joi.array().items(Joi.string().max(64)).max(500).allow(null),
            expires_at: Joi.date().iso(),
          }),
        },
        response: { status: { 201: ApiTokenCreated } },
        plugins: { patchwell: { successStatus: 201 } },
        handler: async (request, h) => {
          const created = await tokens(request).create(
            requirePrincipal(request),
            request.payload as CreateTokenInput,
            request.actor(),
          );
          return h.response(created).code(201);
        },
      },
    },
    {
      method: 'DELETE',
      path: '/v1/tokens/{id}',
      options: {
        id: 'revokeToken',
        tags,
        description: 'Revoke an API token',
        notes: 'Your own tokens; owners and admins revoke any token of the organization. Audited.',
        validate: { params: Joi.object({ id: Joi.string().max(64).required() }) },
        plugins: { patchwell: { successStatus: 204 } },
        handler: async (request, h) => {
          await tokens(request).revoke(
            requirePrincipal(request),
            (request.params as { id: string }).id,
            request.actor(),
          );
          return h.response().code(204);
        },
      },
    },
  ];
}
