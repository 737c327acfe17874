import type { Request, ServerRoute } from '@hapi/hapi';
import { createReadStream } from 'node:fs';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import {
  PrivacyClosure,
  PrivacyErasure,
  PrivacyExport,
  PrivacyTicketDeletion,
  closurePayload,
  erasurePayload,
} from '../schemas.js';
import type { Cradle } from '../../../core/kernel/cradle.js';

const TAG = 'privacy';
const OWNERS = { roles: ['owner'] };
const OWNERS_ADMINS = { roles: ['owner', 'admin'] };
const service = <K extends keyof Cradle>(r: Request, key: K): Cradle[K] => r.app.scope.resolve(key);

/** The privacy section (4 operations): closure, erasure of an end user, export, ticket deletion. */
export function privacyRoutes(): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/privacy/closure',
      options: {
        id: 'closeOrganization',
        tags: [TAG],
        description: 'Closes the organization',
        notes:
          'Body: confirm* (the organization’s slug), reason. The subscription stops renewing, every session ' +
          'and API token stops at once, members are disabled, pending invitations revoked; all data is deleted ' +
          'by purge_after (30 days). 422 confirmation_mismatch, 409 already_closed. Owners. Audited.',
        validate: { payload: closurePayload },
        response: { status: { 200: PrivacyClosure } },
        plugins: { patchwell: OWNERS },
        handler: async (request) =>
          service(request, 'privacyClosure').close(
            request.actor(),
            request.payload as { confirm: string; reason?: string | null },
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/privacy/erasures',
      options: {
        id: 'createPrivacyErasure',
        tags: [TAG],
        description: 'Erases one end user by email or widget user id',
        notes:
          'Body: email or user_id (at least one). Across tickets, messages, subscriptions, identities, error ' +
          'events, reports, sent and received emails, and a sweep of every text and JSON column of the ' +
          'organization’s data. Synchronous; the answer counts the rows by table. Owners and admins. Audited ' +
          'without the address.',
        validate: { payload: erasurePayload },
        response: { status: { 201: PrivacyErasure } },
        plugins: { patchwell: { ...OWNERS_ADMINS, successStatus: 201 } },
        handler: async (request, h) =>
          h
            .response(
              await service(request, 'privacyErasure').erase(
                request.actor(),
                request.payload as { email?: string; user_id?: string },
              ),
            )
            .code(201),
      },
    },
    {
      method: 'POST',
      path: '/v1/privacy/exports',
      options: {
        id: 'createPrivacyExport',
        tags: [TAG],
        description: 'Builds an archive of the organization’s data and emails a download link',
        notes:
          'No body. Answers 202 at once; a worker writes a .tar.gz (manifest.json and one JSON Lines file per ' +
          'table; credentials left out) and emails the requesting owner a link valid 7 days. 409 ' +
          'export_in_progress while one is being built. Owners. Audited.',
        response: { status: { 202: PrivacyExport } },
        plugins: { patchwell: { ...OWNERS, successStatus: 202 } },
        handler: async (request, h) =>
          h
            .response(
              await service(request, 'privacyExports').request(request.actor(), requirePrincipal(request).locale),
            )
            .code(202),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/privacy/tickets/{id}',
      options: {
        id: 'deletePrivacyTicket',
        tags: [TAG],
        description: 'Deletes a ticket with its messages, files, subscribers, jobs and status page',
        notes: 'Irreversible. Another organization’s ticket answers 404. Owners and admins. Audited (ticket.deleted).',
        validate: { params: Joi.object({ id: Joi.string().max(64).required() }) },
        response: { status: { 200: PrivacyTicketDeletion } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) => {
          const id = (request.params as { id: string }).id;
          return { ticket_id: id, deleted: await service(request, 'privacyTickets').delete(request.actor(), id) };
        },
      },
    },
  ];
}

/** The emailed link (outside /v1: the token in the path is the credential; not an API operation). */
export function downloadRoutes(): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/downloads/privacy-exports/{token}',
      options: {
        auth: false,
        validate: {
          params: Joi.object({
            token: Joi.string()
              .pattern(/^pwx_[\w-]{43}$/)
              .required(),
          }),
        },
        handler: async (request, h) => {
          const { file, id } = await service(request, 'privacyExports').open(
            (request.params as { token: string }).token,
          );
          return h
            .response(createReadStream(file))
            .type('application/gzip')
            .header('content-disposition', `attachment; filename="patchwell-export-${id}.tar.gz"`)
            .header('cache-control', 'no-store')
            .header('referrer-policy', 'no-referrer');
        },
      },
    },
  ];
}
