import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import { User, page, roleSchema } from '../schemas.js';
import type { UpdateMemberInput } from '../services/member-service.js';
import { service } from './common.js';

const tags = ['members'];
const id = Joi.object({ id: Joi.string().max(64).required().description('User id of the member') });

export function memberRoutes(): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/members',
      options: {
        id: 'listMembers',
        tags,
        description: 'Members of your organization, oldest first',
        validate: { query: Joi.object(paginationQuery) },
        response: { status: { 200: page(User, 'MemberPage') } },
        plugins: { patchwell: { roles: ['owner', 'admin', 'reviewer'] } },
        handler: (request) => service(request, 'memberService').list(requirePrincipal(request), request.query),
      },
    },
    {
      method: 'PATCH',
      path: '/v1/members/{id}',
      options: {
        id: 'updateMember',
        tags,
        description: "Change a member's role or workspace access",
        notes:
          'Only owners change owners or make owners; the last owner cannot be demoted (409 last_owner). ' +
          'workspace_ids apply to reviewers and client viewers (owners and admins open every workspace). ' +
          'Audited.',
        validate: {
          params: id,
          payload: Joi.object({
            role: roleSchema,
            workspace_ids: Joi.array().items(Joi.string().max(64)).max(500),
          }).min(1),
        },
        response: { status: { 200: User } },
        plugins: { patchwell: { roles: ['owner', 'admin'] } },
        handler: (request) =>
          service(request, 'memberService').update(
            requirePrincipal(request),
            (request.params as { id: string }).id,
            request.payload as UpdateMemberInput,
            request.actor(),
          ),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/members/{id}',
      options: {
        id: 'removeMember',
        tags,
        description: 'Remove a member',
        notes:
          'Removes their access and closes their sessions, API tokens and emailed links. Only owners remove owners; the last owner cannot be removed. Audited.',
        validate: { params: id },
        plugins: { patchwell: { roles: ['owner', 'admin'], successStatus: 204 } },
        handler: async (request, h) => {
          await service(request, 'memberService').remove(
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
