import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { renderNotFound, renderStatusPage, STATUS_PAGE_HEADERS } from '../services/status-page.js';
import type { WorkspaceReader } from '../services/deps.js';
import type { TicketRouteServices } from './context.js';

/**
 * The public status page, `GET /status/{token}`: an HTML page for the customer, not an API
 * operation, so it has no operationId and stays out of the OpenAPI document. Unknown, revoked
 * and rotated tokens answer 404 with the same page.
 */
export function statusPageRoutes(s: TicketRouteServices, workspaces: () => WorkspaceReader): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/status/{token}',
      options: {
        auth: false,
        validate: { params: Joi.object({ token: Joi.string().max(100).required() }), failAction: 'ignore' },
        handler: async (request, h) => {
          const token = String((request.params as { token?: string }).token ?? '');
          const ticket = await s.tickets().findByStatusToken(token);
          let res;
          if (!ticket) {
            res = h.response(renderNotFound(request.headers['accept-language'] as string | undefined)).code(404);
          } else {
            const ws = await workspaces().get(ticket.org_id, ticket.workspace_id);
            res = h.response(renderStatusPage(ticket, ws.client_name || ws.name));
          }
          res.type('text/html; charset=utf-8');
          for (const [k, v] of Object.entries(STATUS_PAGE_HEADERS)) res.header(k, v);
          return res;
        },
      },
    },
  ];
}
