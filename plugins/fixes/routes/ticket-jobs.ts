import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import { JobEventListSchema, jobEventParams } from '../schemas.js';
import { listJobEvents } from '../services/job-events.js';
import type { FixesServices } from './context.js';

/** The fix operations of the `tickets` section that read jobs. */
export function ticketJobRoutes(s: FixesServices): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/tickets/{id}/jobs/{jobId}/events',
      options: {
        id: 'listTicketJobEvents',
        tags: ['tickets'],
        description: 'The log of one of a ticket\'s jobs, oldest first',
        notes: '`after` (an event id or a date-time) answers only later lines, for tailing a running job. Output of agents is masked before it is stored.',
        validate: { params: jobEventParams, query: Joi.object({ ...paginationQuery, after: Joi.string().max(100) }) },
        response: { status: { 200: JobEventListSchema } },
        handler: async (request) => {
          const p = request.params as { id: string; jobId: string };
          return listJobEvents(s.db(), s.tickets(), requirePrincipal(request), p.id, p.jobId, request.query as { cursor?: string; limit: number; after?: string });
        },
      },
    },
  ];
}
