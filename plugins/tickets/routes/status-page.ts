import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import {
  renderNotFound,
  renderStatusPage,
  STATUS_PAGE_HEADERS,
  type StatusPageBrand,
} from '../services/status-page.js';
import type { WorkspaceReader } from '../services/deps.js';
import type { TicketRouteServices } from './context.js';

/**
 * The public status page, `GET /status/{token}`: an HTML page for the customer, not an API
 * operation, so it has no operationId and stays out of the OpenAPI document. Unknown, revoked
 * and rotated tokens answer 404 with the same page.
 */
/** Seam the brand plugin fills (container key `statusPageBranding`): the brand of a page, or `serve: false` when the Host is another brand's status domain. */
export interface StatusPageBranding {
  forStatusPage(input: {
    host: string;
    orgId: string;
    workspaceId: string;
  }): Promise<{ serve: boolean; brand: StatusPageBrand | null }>;
}

export function statusPageRoutes(
  s: TicketRouteServices,
  workspaces: () => WorkspaceReader,
  branding: () => StatusPageBranding | null = () => null,
): ServerRoute[] {
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
          const branded = ticket
            ? await branding()?.forStatusPage({
                host: request.info.hostname,
                orgId: ticket.org_id,
                workspaceId: ticket.workspace_id,
              })
            : undefined;
          let res;
          if (!ticket || branded?.serve === false) {
            res = h.response(renderNotFound(request.headers['accept-language'] as string | undefined)).code(404);
          } else {
            const ws = await workspaces().get(ticket.org_id, ticket.workspace_id);
            // A duplicate's page follows its original until the original's fix is released (services/status-page.ts).
            const original = await s.subscribers().originalOf(ticket);
            res = h.response(
              renderStatusPage(
                ticket,
                branded?.brand?.productName ?? (ws.client_name || ws.name),
                branded?.brand,
                original,
              ),
            );
          }
          res.type('text/html; charset=utf-8');
          for (const [k, v] of Object.entries(STATUS_PAGE_HEADERS)) res.header(k, v);
          const imgs = branded?.brand?.imgSources ?? [];
          if (imgs.length)
            res.header(
              'Content-Security-Policy',
              STATUS_PAGE_HEADERS['Content-Security-Policy'].replace(
                "img-src 'self' data:",
                `img-src 'self' data: ${imgs.join(' ')}`,
              ),
            );
          return res;
        },
      },
    },
  ];
}
