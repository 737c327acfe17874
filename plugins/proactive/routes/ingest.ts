import type { ServerRoute } from '@hapi/hapi';
import type { RawHeaders } from '../../../core/contracts/index.js';
import { rawPushBody, rawPushOptions } from './raw-push.js';
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
        ...rawPushOptions(maxBytes),
        handler: async (request, h) => {
          const body = rawPushBody(request);
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
