import type { ServerRoute } from '@hapi/hapi';
import type { RawHeaders } from '../../../core/contracts/index.js';
import { rawPushBody, rawPushOptions } from './raw-push.js';
import type { ErrorTrackerWebhook } from '../services/error-tracker-webhook.js';

/** POST /v1/webhooks/error-tracker/{connectorId} (section "error-tracker webhook"). */
export function errorTrackerWebhookRoutes(svc: () => ErrorTrackerWebhook, maxBytes: number): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/webhooks/error-tracker/{connectorId}',
      options: {
        id: 'errorTrackerWebhook',
        tags: ['error-tracker webhook'],
        description:
          'Receives the integration webhook of a Sentry-compatible error tracker for one error_tracker connector',
        notes:
          "Headers: Sentry-Hook-Signature (hex HMAC-SHA256 of the raw body keyed with the connector's client_secret), " +
          'Sentry-Hook-Resource (event_alert, error, issue carry events; installation, metric_alert, comment are acknowledged). ' +
          'Answers 202 {accepted, duplicates, group_ids} once the events are stored and grouped. 401 for an unknown connector or a ' +
          'missing or wrong signature; 409 connector_paused; 400 invalid_payload; 429 rate_limited with Retry-After under overload.',
        ...rawPushOptions(maxBytes),
        handler: async (request, h) => {
          const body = rawPushBody(request);
          const receipt = await svc().deliver(
            (request.params as { connectorId: string }).connectorId,
            request.headers as RawHeaders,
            body,
          );
          return h.response(receipt).code(202);
        },
      },
    },
  ];
}
