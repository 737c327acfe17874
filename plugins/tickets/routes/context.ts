import type { Request } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import type { Actor } from '../services/deps.js';
import type { DraftService } from '../services/draft-service.js';
import type { SubscriberService } from '../services/subscriber-service.js';
import type { TicketActions } from '../services/ticket-actions.js';
import type { TicketService } from '../services/ticket-service.js';
import type { FileLinks } from '../services/file-links.js';

/** The services the route tables call, resolved lazily from the container. */
export interface TicketRouteServices {
  tickets(): TicketService;
  actions(): TicketActions;
  drafts(): DraftService;
  subscribers(): SubscriberService;
  fileLinks(): FileLinks;
}

export const TAG = 'tickets';

/** Everyone but client viewers works tickets; client viewers read them. */
export const WORKERS = { roles: ['owner', 'admin', 'reviewer'] };

export function actorOf(request: Request): Actor {
  return {
    principal: requirePrincipal(request),
    ip: request.info.remoteAddress,
    userAgent: (request.headers['user-agent'] as string | undefined) ?? null,
    requestId: request.info.id,
  };
}
