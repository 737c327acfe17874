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
