import type { ServerRoute } from '@hapi/hapi';
import type { ErrorTrackerWebhook } from '../services/error-tracker-webhook.js';
import { connectorPushRoute } from './connector-push.js';

/** POST /v1/webhooks/error-tracker/{connectorId} (section "error-tracker webhook"). */
export function errorTrackerWebhookRoutes(svc: () => ErrorTrackerWebhook, maxBytes: number): ServerRoute[] {
  return [
    connectorPushRoute({
      path: '/v1/webhooks/error-tracker/{connectorId}',
      id: 'errorTrackerWebhook',
      tags: ['error-tracker webhook'],
      description:
        'Receives the integration webhook of a Sentry-compatible error tracker for one error_tracker connector',
      notes:
        "Headers: Sentry-Hook-Signature (hex HMAC-SHA256 of the raw body keyed with the connector's client_secret), " +
        'Sentry-Hook-Resource (event_alert, error, issue carry events; installation, metric_alert, comment are acknowledged). ' +
        'Answers 202 {accepted, duplicates, group_ids} once the events are stored and grouped. 401 for an unknown connector or a ' +
        'missing or wrong signature; 409 connector_paused; 400 invalid_payload; 429 rate_limited with Retry-After under overload.',
      maxBytes,
      receive: (connectorId, headers, body) => svc().deliver(connectorId, headers, body),
    }),
  ];
}
