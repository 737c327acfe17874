import type { Request } from '@hapi/hapi';
import type { SignedInActor } from '../../../core/contracts/index.js';
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

/** Runs a team action on the ticket `params.id`, then answers that ticket as it stands afterwards. */
export async function actThenTicket<Params extends { id: string }, Payload>(
  s: TicketRouteServices,
  request: Request,
  act: (actor: SignedInActor, params: Params, payload: Payload) => Promise<unknown>,
) {
  const actor = request.actor();
  const params = request.params as Params;
  await act(actor, params, request.payload as Payload);
  return s.tickets().detail(actor.principal.orgId, params.id);
}
