import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import {
  DraftPageSchema,
  DraftSchema,
  TicketSchema,
  createDraftPayload,
  discardDraftPayload,
  draftParams,
  editDraftPayload,
  sendDraftPayload,
  ticketIdParams,
} from '../schemas/index.js';
import type { DraftEdit } from '../services/draft-service.js';
import { draftOut } from '../services/serialize.js';
import { TAG, WORKERS, actThenTicket, type TicketRouteServices } from './context.js';

type DraftParams = { id: string; draftId: string };

/** Route table of drafts: list, create, edit, discard, send. */
export function draftRoutes(s: TicketRouteServices): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/tickets/{id}/drafts',
      options: {
        id: 'listTicketDrafts',
        tags: [TAG],
        description: "Lists a ticket's drafts, newest first",
        notes:
          'Every status (draft, approved, sent, discarded). The ticket page carries the newest 50 (`drafts`); ' +
          'its `drafts.next_cursor` continues here. Keyset pagination.',
        validate: { params: ticketIdParams, query: Joi.object(paginationQuery) },
        response: { status: { 200: DraftPageSchema } },
        plugins: {
          patchwell: { extension: 'The ticket page caps its drafts; this pages through the rest (issue 25).' },
        },
        handler: async (request) => {
          const query = request.query as { cursor?: string; limit: number };
          return s.tickets().listDrafts(requirePrincipal(request), (request.params as { id: string }).id, query);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/drafts',
      options: {
        id: 'createTicketDraft',
        tags: [TAG],
        description: 'Writes a draft reply (sent by its own later click)',
        notes:
          'One draft waits at a time: 409 open_draft_exists while another is open. 409 invalid_transition on a closed ticket.',
        validate: { params: ticketIdParams, payload: createDraftPayload },
        response: { status: { 201: DraftSchema } },
        plugins: { patchwell: { ...WORKERS, successStatus: 201 } },
        handler: async (request, h) => {
          const draft = await s
            .drafts()
            .create(
              request.actor(),
              (request.params as { id: string }).id,
              request.payload as { kind: 'reply' | 'needs_info'; body_md: string; public_summary?: string | null },
            );
          return h.response(draftOut(draft)).code(201);
        },
      },
    },
    {
      method: 'PATCH',
      path: '/v1/tickets/{id}/drafts/{draftId}',
      options: {
        id: 'updateTicketDraft',
        tags: [TAG],
        description: 'Edits a draft',
        notes:
          '409 invalid_transition for a draft already sent or discarded. Beyond the spec (issue 26): `language` (en, it) changes the ' +
          "reply's language; the email's own texts around the body follow it when sent. Audited (ticket.draft_edited).",
        validate: { params: draftParams, payload: editDraftPayload },
        response: { status: { 200: DraftSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) => {
          const p = request.params as DraftParams;
          return draftOut(await s.drafts().edit(request.actor(), p.id, p.draftId, request.payload as DraftEdit));
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/drafts/{draftId}/discard',
      options: {
        id: 'discardTicketDraft',
        tags: [TAG],
        description: 'Discards a draft',
        validate: { params: draftParams, payload: discardDraftPayload },
        response: { status: { 200: TicketSchema } },
        plugins: { patchwell: WORKERS },
        handler: (request) =>
          actThenTicket(s, request, (actor, p: DraftParams, payload: { reason?: string | null } | null) =>
            s.drafts().discard(actor, p.id, p.draftId, payload?.reason ?? null),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/tickets/{id}/drafts/{draftId}/send',
      options: {
        id: 'sendTicketDraft',
        tags: [TAG],
        description: 'Sends a draft to the customer',
        notes:
          'Emails the customer after this click, threaded into the conversation (Message-ID, In-Reply-To, ' +
          "References) with the ticket's own Reply-To address. body_md and public_summary, when given, replace " +
          "the draft's. The white-label guard may refuse with 409 and its own code; 422 no_customer_address " +
          'without an address.',
        validate: { params: draftParams, payload: sendDraftPayload },
        response: { status: { 200: TicketSchema } },
        plugins: { patchwell: WORKERS },
        handler: (request) =>
          actThenTicket(
            s,
            request,
            (actor, p: DraftParams, payload: { body_md?: string; public_summary?: string | null } | null) =>
              s.drafts().send(actor, p.id, p.draftId, payload ?? {}),
          ),
      },
    },
  ];
}
