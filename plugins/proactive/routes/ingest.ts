import type { ServerRoute } from '@hapi/hapi';
import type { IngestService } from '../services/ingest.js';
import { connectorPushRoute } from './connector-push.js';

/** POST /v1/ingest/{connectorId}: the generic endpoint (section ingest). */
export function ingestRoutes(svc: () => IngestService, maxBytes: number): ServerRoute[] {
  return [
    connectorPushRoute({
      path: '/v1/ingest/{connectorId}',
      id: 'ingestEvents',
      tags: ['ingest'],
      description: 'Pushes one error event or an array of events into a generic endpoint connector',
      notes:
        "Authorization: Bearer <the connector's token>. Body: an event or an array (at most 100) of " +
        '{type, message*, level, stack, url, release, environment, user, occurred_at, fingerprint, external_id, frames, browser}. ' +
        'Answers 202 once the events are stored and grouped. 401 for an unknown connector or a wrong token; 409 connector_paused; ' +
        '400 invalid_payload; 429 rate_limited with Retry-After when the service is overloaded (nothing of the request was accepted).',
      maxBytes,
      receive: (connectorId, headers, body) => svc().push(connectorId, headers, body, ['endpoint']),
    }),
  ];
}
