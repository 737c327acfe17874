import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import { JobEventListSchema, jobEventParams, ticketParams } from '../schemas.js';
import { listJobEvents } from '../services/job-events.js';
import { listTicketJobs } from '../services/ticket-page.js';
import type { FixesServices } from './context.js';

/**
 * The fix operations of the `tickets` section that read jobs. `jobPage` is the tickets plugin's
 * TicketJobPage schema (container `ticketPageSchemas`): one object per OpenAPI component.
 */
export function ticketJobRoutes(s: FixesServices, jobPage: Joi.Schema | null): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/tickets/{id}/jobs',
      options: {
        id: 'listTicketJobs',
        tags: ['tickets'],
        description: "Lists a ticket's diagnosis and fix jobs, newest first",
        notes:
          "Kind, executor, status, attempts, cost, timings, error and the path of each job's log. The ticket page carries the newest 50 " +
          '(`jobs`); its `jobs.next_cursor` continues here. Keyset pagination.',
        validate: { params: ticketParams, query: Joi.object(paginationQuery) },
        ...(jobPage ? { response: { status: { 200: jobPage } } } : {}),
        plugins: { patchwell: { extension: 'The ticket page caps its jobs; this pages through the rest (issue 25).' } },
        handler: async (request) => {
          const ticket = await s.tickets().load(requirePrincipal(request), (request.params as { id: string }).id);
          return listTicketJobs(s.db(), ticket.org_id, ticket.id, request.query);
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/tickets/{id}/jobs/{jobId}/events',
      options: {
        id: 'listTicketJobEvents',
        tags: ['tickets'],
        description: "The log of one of a ticket's jobs, oldest first",
        notes:
          '`after` (an event id or a date-time) answers only later lines, for tailing a running job. Output of agents is masked before it is stored.',
        validate: { params: jobEventParams, query: Joi.object({ ...paginationQuery, after: Joi.string().max(100) }) },
        response: { status: { 200: JobEventListSchema } },
        handler: async (request) => {
          const p = request.params as { id: string; jobId: string };
          return listJobEvents(
            s.db(),
            s.tickets(),
            requirePrincipal(request),
            p.id,
            p.jobId,
            request.query as { cursor?: string; limit: number; after?: string },
          );
        },
      },
    },
  ];
}
