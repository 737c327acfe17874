import type { ServerRoute } from '@hapi/hapi';
import {
  OkSchema,
  SubscriberListSchema,
  SubscriberSchema,
  subscriberParams,
  subscriberPayload,
  ticketIdParams,
} from '../schemas/index.js';
import { subscriberOut } from '../services/serialize.js';
import { TAG, WORKERS, type TicketRouteServices } from './context.js';

/** Route table of a ticket's subscribers; addresses leave masked. */
export function subscriberRoutes(s: TicketRouteServices): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/tickets/{id}/subscribers',
      options: {
        id: 'listTicketSubscribers',
        tags: [TAG],
        description: 'Lists the people subscribed to a ticket (addresses masked)',
        validate: { params: ticketIdParams },
        response: { status: { 200: SubscriberListSchema } },
        handler: async (request) => ({
          items: (await s.subscribers().list(request.actor(), (request.params as { id: string }).id)).map(
            subscriberOut,
          ),
        }),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/subscribers',
      options: {
        id: 'addTicketSubscriber',
        tags: [TAG],
        description: "Subscribes an address to a ticket's updates",
        notes: "409 already_subscribed for the ticket's customer or an address already subscribed.",
        validate: { params: ticketIdParams, payload: subscriberPayload },
        response: { status: { 201: SubscriberSchema } },
        plugins: { patchwell: { ...WORKERS, successStatus: 201 } },
        handler: async (request, h) => {
          const sub = await s
            .subscribers()
            .add(request.actor(), (request.params as { id: string }).id, (request.payload as { email: string }).email);
          return h.response(subscriberOut(sub)).code(201);
        },
      },
    },
    {
      method: 'DELETE',
      path: '/v1/tickets/{id}/subscribers/{subscriberId}',
      options: {
        id: 'deleteTicketSubscriber',
        tags: [TAG],
        description: 'Removes a subscriber',
        validate: { params: subscriberParams },
        response: { status: { 200: OkSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) => {
          const p = request.params as { id: string; subscriberId: string };
          await s.subscribers().remove(request.actor(), p.id, p.subscriberId);
          return { ok: true };
        },
      },
    },
  ];
}
