import type { ServerRoute } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import {
  ErrorGroupDetailSchema,
  ErrorGroupListSchema,
  ErrorGroupTicketSchema,
  errorGroupListQuery,
  idParams,
  resolvePayload,
} from '../schemas.js';
import type { ErrorGroupService, ListQuery } from '../services/error-groups.js';
import type { ProactiveTickets } from '../services/proactive-tickets.js';
import { WORKERS } from './context.js';

const TAG = 'error-groups';

/** Route table of error-groups (6 operations). */
export function errorGroupRoutes(groups: () => ErrorGroupService, tickets: () => ProactiveTickets): ServerRoute[] {
  const idOf = (p: unknown) => (p as { id: string }).id;
  const action = (name: 'ignore' | 'unignore', id: string, description: string, notes: string): ServerRoute => ({
    method: 'POST',
    path: `/v1/error-groups/{id}/${name}`,
    options: {
      id,
      tags: [TAG],
      description,
      notes,
      validate: { params: idParams },
      response: { status: { 200: ErrorGroupDetailSchema } },
      plugins: { patchwell: WORKERS },
      handler: async (request) => groups()[name](request.actor(), idOf(request.params)),
    },
  });
  return [
    {
      method: 'GET',
      path: '/v1/error-groups',
      options: {
        id: 'listErrorGroups',
        tags: [TAG],
        description: 'Lists error groups, most recently seen first, with the proactive overview',
        notes: 'Without workspace_id the overview sums the workspaces the caller can open (workspace_id null).',
        validate: { query: errorGroupListQuery },
        response: { status: { 200: ErrorGroupListSchema } },
        handler: async (request) => groups().list(requirePrincipal(request), request.query as unknown as ListQuery),
      },
    },
    {
      method: 'GET',
      path: '/v1/error-groups/{id}',
      options: {
        id: 'getErrorGroup',
        tags: [TAG],
        description: 'An error group with frames, masked sample events, releases and what can be done',
        validate: { params: idParams },
        response: { status: { 200: ErrorGroupDetailSchema } },
        handler: async (request) => groups().detail(requirePrincipal(request), idOf(request.params)),
      },
    },
    action(
      'ignore',
      'ignoreErrorGroup',
      'Ignores a group in every release (kept and counted, never ticketed)',
      '409 group_has_open_ticket while an open ticket follows the group.',
    ),
    {
      method: 'POST',
      path: '/v1/error-groups/{id}/resolve',
      options: {
        id: 'resolveErrorGroup',
        tags: [TAG],
        description: 'Marks a group resolved, optionally in a release; a later event is a regression',
        notes: 'An event from a release older than resolved_in_release does not regress the group.',
        validate: { params: idParams, payload: resolvePayload },
        response: { status: { 200: ErrorGroupDetailSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          groups().resolve(
            request.actor(),
            idOf(request.params),
            (request.payload as { release?: string } | null)?.release ?? null,
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/error-groups/{id}/ticket',
      options: {
        id: 'openErrorGroupTicket',
        tags: [TAG],
        description: 'Opens a proactive ticket for a watching group, or joins the open ticket that already reports it',
        notes:
          '402 plan_limit_reached (details.reason proactive_cap_reached, plan_feature, tickets_per_month or ' +
          'spend_cap; the group is held with that reason), 422 no_repository, 409 group_not_watching.',
        validate: { params: idParams },
        response: { status: { 201: ErrorGroupTicketSchema } },
        plugins: { patchwell: { ...WORKERS, successStatus: 201 } },
        handler: async (request, h) => {
          const actor = request.actor();
          const g = await groups().load(actor.principal, idOf(request.params));
          const out = await tickets().open(actor.principal.orgId, g.id, actor);
          return h
            .response({
              outcome: out.outcome,
              ticket_id: out.ticketId,
              detail: await groups().detail(actor.principal, g.id),
            })
            .code(201);
        },
      },
    },
    action(
      'unignore',
      'unignoreErrorGroup',
      'Puts an ignored or resolved group back to watching',
      '409 group_not_ignored for a ticketed group.',
    ),
  ];
}
