import type { ResponseObject, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { renderNotFound, renderUnsubscribe, UNSUBSCRIBE_PAGE_HEADERS } from '../services/status-page.js';
import type { WorkspaceReader } from '../services/deps.js';
import type { TicketRouteServices } from './context.js';

/**
 * The unsubscribe link every notice carries (docs/links.md): `GET /unsubscribe/{token}` asks
 * (a GET changes nothing: mail scanners open links), `POST` stops the notices, from the page's
 * button or a mail client's one-click (RFC 8058, `List-Unsubscribe=One-Click`). HTML for the
 * customer, not an API operation: no operationId, outside the OpenAPI document, like the status page.
 */
export function unsubscribeRoutes(s: TicketRouteServices, workspaces: () => WorkspaceReader): ServerRoute[] {
  const headers = (res: ResponseObject) => {
    res.type('text/html; charset=utf-8');
    for (const [k, v] of Object.entries(UNSUBSCRIBE_PAGE_HEADERS)) res.header(k, v);
    return res;
  };
  const params = Joi.object({ token: Joi.string().max(1000).required() });
  return [
    {
      method: 'GET',
      path: '/unsubscribe/{token}',
      options: {
        auth: false,
        validate: { params, failAction: 'ignore' },
        handler: async (request, h) => {
          const token = String((request.params as { token?: string }).token ?? '');
          const found = await s.subscribers().ticketOfToken(token);
          if (!found)
            return headers(
              h.response(renderNotFound(request.headers['accept-language'] as string | undefined)).code(404),
            );
          const ws = await workspaces().get(found.ticket.org_id, found.ticket.workspace_id);
          return headers(
            h.response(renderUnsubscribe(found.ticket.language, ws.client_name || ws.name, 'ask', request.path)),
          );
        },
      },
    },
    {
      method: 'POST',
      path: '/unsubscribe/{token}',
      options: {
        auth: false,
        payload: {
          allow: ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'],
          maxBytes: 4096,
          failAction: 'ignore',
        },
        validate: { params, failAction: 'ignore' },
        handler: async (request, h) => {
          const token = String((request.params as { token?: string }).token ?? '');
          const found = await s.subscribers().ticketOfToken(token);
          if (!found || !(await s.subscribers().unsubscribe(token))) {
            return headers(
              h.response(renderNotFound(request.headers['accept-language'] as string | undefined)).code(404),
            );
          }
          const ws = await workspaces().get(found.ticket.org_id, found.ticket.workspace_id);
          return headers(
            h.response(renderUnsubscribe(found.ticket.language, ws.client_name || ws.name, 'done', request.path)),
          );
        },
      },
    },
  ];
}
