import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { RawHeaders } from '../../../core/contracts/index.js';
import { IngestReceiptSchema } from '../schemas.js';
import type { IngestService } from '../services/ingest.js';

/** POST /v1/ingest/{connectorId}: the generic endpoint (section ingest). */
export function ingestRoutes(svc: () => IngestService, maxBytes: number): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/ingest/{connectorId}',
      options: {
        id: 'ingestEvents',
        tags: ['ingest'],
        description: 'Pushes one error event or an array of events into a generic endpoint connector',
        notes:
          "Authorization: Bearer <the connector's token>. Body: an event or an array (at most 100) of " +
          '{type, message*, level, stack, url, release, environment, user, occurred_at, fingerprint, external_id, frames, browser}. ' +
          'Answers 202 once the events are stored and grouped. 401 for an unknown connector or a wrong token; 409 connector_paused; ' +
          '400 invalid_payload; 429 rate_limited with Retry-After when the service is overloaded (nothing of the request was accepted).',
        auth: false,
        payload: { parse: false, output: 'data', maxBytes, allow: ['application/json'] },
        validate: { params: Joi.object({ connectorId: Joi.string().max(100).required() }) },
        response: { status: { 202: IngestReceiptSchema } },
        // Error events are stored with NULs dropped and lone surrogates replaced (group-writer), never refused.
        plugins: { patchwell: { successStatus: 202, rawBody: { contentType: 'application/json' }, cleansText: true } },
        handler: async (request, h) => {
          const body = Buffer.isBuffer(request.payload)
            ? request.payload
            : Buffer.from((request.payload as string | null) ?? '');
          const receipt = await svc().push(
            (request.params as { connectorId: string }).connectorId,
            request.headers as RawHeaders,
            body,
            ['endpoint'],
          );
          return h.response(receipt).code(202);
        },
      },
    },
  ];
}
