import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { answersJson, jsonText } from '../../../core/http/json-text.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import {
  MessageSchema,
  StatusLinkSchema,
  TicketCountsSchema,
  TicketPageSchema,
  TicketSchema,
  assignPayload,
  closePayload,
  countQuery,
  escalatePayload,
  listQuery,
  notePayload,
  reopenPayload,
  statusLinkPayload,
  ticketIdParams,
} from '../schemas/index.js';
import { messageOut } from '../services/serialize.js';
import type { ListQuery } from '../services/ticket-inputs.js';
import { TAG, WORKERS, actThenTicket, type TicketRouteServices } from './context.js';

type IdParams = { id: string };

/** Route table of the ticket operations this plugin owns (conversation, team actions, status link). */
export function ticketRoutes(s: TicketRouteServices): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/tickets',
      options: {
        id: 'listTickets',
        tags: [TAG],
        description: 'Lists tickets',
        notes:
          'Filters combine with AND; array filters accept repeated parameters (`state=triage&state=escalated`). ' +
          'Keyset pagination (no totals: GET /v1/tickets/counts counts). Only the workspaces the caller can open. ' +
          'Beyond the spec (issue 26): `needs_team_action` (true: only tickets waiting for the team; false: only the others).',
        validate: { query: Joi.object({ ...paginationQuery, ...listQuery }) },
        // The page goes out as the JSON text the database keeps for each item (docs/tickets.md, Performance).
        response: { status: { 200: answersJson(TicketPageSchema) } },
        handler: async (request, h) =>
          jsonText(h, await s.tickets().listJson(requirePrincipal(request), request.query as unknown as ListQuery)),
      },
    },
    {
      method: 'GET',
      path: '/v1/tickets/counts',
      options: {
        id: 'countTickets',
        tags: [TAG],
        description: 'Counts tickets per state and waiting for the team',
        notes:
          "The list's filters but state, sort and paging (cursor or limit answer 400). Only the workspaces the caller can open; " +
          "workspace_id of one the caller cannot open answers 403 (404 for another organization's).",
        validate: { query: Joi.object(countQuery) },
        response: { status: { 200: TicketCountsSchema } },
        plugins: {
          patchwell: {
            extension:
              'The inbox shows counts per state and a total; the list is keyset-paged and gives none (issue 26).',
          },
        },
        handler: async (request) => s.tickets().counts(requirePrincipal(request), request.query),
      },
    },
    {
      method: 'GET',
      path: '/v1/tickets/{id}',
      options: {
        id: 'getTicket',
        tags: [TAG],
        description: 'Gets a ticket with its conversation',
        validate: { params: ticketIdParams },
        response: { status: { 200: TicketSchema } },
        handler: async (request) =>
          s.tickets().detailOf(await s.tickets().load(requirePrincipal(request), (request.params as IdParams).id)),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/assign',
      options: {
        id: 'assignTicket',
        tags: [TAG],
        description: 'Assigns a ticket to a member, or unassigns it',
        notes:
          'assignee_user_id null unassigns. The member must be able to open the workspace, else 422 invalid_assignee.',
        validate: { params: ticketIdParams, payload: assignPayload },
        response: { status: { 200: TicketSchema } },
        plugins: { patchwell: WORKERS },
        handler: (request) =>
          actThenTicket(s, request, (actor, { id }: IdParams, payload: { assignee_user_id: string | null }) =>
            s.actions().assign(actor, id, payload.assignee_user_id),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/close',
      options: {
        id: 'closeTicket',
        tags: [TAG],
        description: 'Closes a ticket with a reason',
        notes:
          "reason duplicate needs duplicate_of_ticket_id and subscribes this ticket's customer to the " +
          'original. 409 invalid_transition on a closed ticket; 422 invalid_duplicate for a bad original.',
        validate: { params: ticketIdParams, payload: closePayload },
        response: { status: { 200: TicketSchema } },
        plugins: { patchwell: WORKERS },
        handler: (request) =>
          actThenTicket(
            s,
            request,
            (
              actor,
              { id }: IdParams,
              payload: { reason: string; duplicate_of_ticket_id?: string | null; comment?: string | null },
            ) => s.actions().close(actor, id, payload),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/reopen',
      options: {
        id: 'reopenTicket',
        tags: [TAG],
        description: 'Reopens a closed ticket',
        notes:
          'closed → triage, reopened_count grows; the reason becomes an internal note. 409 invalid_transition unless closed.',
        validate: { params: ticketIdParams, payload: reopenPayload },
        response: { status: { 200: TicketSchema } },
        plugins: { patchwell: WORKERS },
        handler: (request) =>
          actThenTicket(s, request, (actor, { id }: IdParams, payload: { reason?: string | null } | null) =>
            s.actions().reopen(actor, id, payload?.reason ?? null),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/escalate',
      options: {
        id: 'escalateTicket',
        tags: [TAG],
        description: 'Escalates a ticket to a person; the team is notified by email',
        notes:
          'Owners and admins (and the assignee, when given) get an email in their language. 409 invalid_transition on a closed or already escalated ticket.',
        validate: { params: ticketIdParams, payload: escalatePayload },
        response: { status: { 200: TicketSchema } },
        plugins: { patchwell: WORKERS },
        handler: (request) =>
          actThenTicket(
            s,
            request,
            (actor, { id }: IdParams, payload: { reason: string; assignee_user_id?: string | null }) =>
              s.actions().escalate(actor, id, payload),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/notes',
      options: {
        id: 'createTicketNote',
        tags: [TAG],
        description: 'Adds an internal note (never sent)',
        validate: { params: ticketIdParams, payload: notePayload },
        response: { status: { 201: MessageSchema } },
        plugins: { patchwell: { ...WORKERS, successStatus: 201 } },
        handler: async (request, h) => {
          const note = await s
            .actions()
            .addNote(
              request.actor(),
              (request.params as IdParams).id,
              (request.payload as { body_md: string }).body_md,
            );
          return h.response(messageOut(note, [], s.fileLinks())).code(201);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/status-link',
      options: {
        id: 'updateTicketStatusLink',
        tags: [TAG],
        description: 'Revokes or rotates the public status link',
        notes: 'revoke: the page answers 404 until rotated; rotate: a new URL, the old one answers 404.',
        validate: { params: ticketIdParams, payload: statusLinkPayload },
        response: { status: { 200: StatusLinkSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          s
            .actions()
            .statusLink(
              request.actor(),
              (request.params as IdParams).id,
              (request.payload as { action: 'revoke' | 'rotate' }).action,
            ),
      },
    },
  ];
}
