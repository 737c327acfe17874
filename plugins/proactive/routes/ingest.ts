import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { RawHeaders } from '../../../core/contracts/index.js';
import { allowCors } from '../../../core/http/cors.js';
import { SentryReceiptSchema } from '../schemas.js';
import { rawPushBody, rawPushOptions } from './raw-push.js';
import type { IngestService } from '../services/ingest.js';
import type { ProactiveOptions } from '../options.js';

const SENTRY_EXTENSION =
  'The Sentry protocol, so that the official Sentry SDKs send errors to an endpoint connector by its DSN (issue 29).';
const SENTRY_NOTES =
  'Authenticated by the DSN of an endpoint connector (its `dsn`): `X-Sentry-Auth: Sentry sentry_key=<key>, …`, ' +
  'the `sentry_key` query parameter, or the `dsn` of the envelope header. Bodies may be gzip, deflate or br ' +
  '(Content-Encoding). A browser Origin must be one of the workspace’s allowed origins (CORS). Answers 200 ' +
  '`{id}` as Sentry does; 401 for an unknown project or a wrong key; 403 origin_not_allowed; 409 connector_paused; ' +
  '400 invalid_payload; 413 payload_too_large; 429 rate_limited with Retry-After and X-Sentry-Rate-Limits ' +
  '(SDKs hold back every send for that long). docs/proactive.md, "Sentry SDKs".';
const EXPOSED = ['Retry-After', 'X-Sentry-Rate-Limits'];
/** What SDKs send: envelopes (server SDKs), text/plain (browsers, no preflight), JSON (store), bytes (tunnels). */
const SENTRY_TYPES = ['application/x-sentry-envelope', 'text/plain', 'application/json', 'application/octet-stream'];
const projectParams = Joi.object({ project_id: Joi.string().max(40).required() });

/** POST /v1/ingest/{connectorId} (section ingest) and the Sentry protocol's store and envelope endpoints. */
export function ingestRoutes(
  svc: () => IngestService,
  limits: Pick<ProactiveOptions['ingest'], 'maxBodyBytes' | 'maxSentryBodyBytes'>,
): ServerRoute[] {
  const sentryRoute = (
    format: 'envelope' | 'store',
    id: string,
    preflightId: string,
    description: string,
  ): ServerRoute[] => [
    {
      method: 'POST',
      path: `/api/{project_id}/${format}`,
      options: {
        id,
        tags: ['ingest'],
        description,
        notes: SENTRY_NOTES,
        auth: false,
        // The router strips the trailing slash SDKs send.
        payload: { parse: false, output: 'data', maxBytes: limits.maxSentryBodyBytes, allow: SENTRY_TYPES },
        validate: { params: projectParams },
        response: { status: { 200: SentryReceiptSchema } },
        plugins: {
          patchwell: {
            rawBody: { contentType: format === 'envelope' ? 'application/x-sentry-envelope' : 'application/json' },
            cleansText: true,
            extension: SENTRY_EXTENSION,
          },
        },
        handler: async (request) => sentryAnswer(svc(), request, format),
      },
    },
    {
      method: 'OPTIONS',
      path: `/api/{project_id}/${format}`,
      options: {
        id: preflightId,
        tags: ['ingest'],
        description: `CORS preflight of ${description.charAt(0).toLowerCase()}${description.slice(1)}`,
        notes:
          'Answers 204 with the CORS headers when the Origin is one of the workspace’s allowed origins; ' +
          '403 origin_not_allowed otherwise (401 for an unknown project).',
        auth: false,
        validate: { params: projectParams },
        plugins: { patchwell: { successStatus: 204, extension: SENTRY_EXTENSION } },
        handler: async (request, h) => {
          const origin = request.headers.origin as string | undefined;
          await svc().sentryPreflight((request.params as { project_id: string }).project_id, origin);
          allowCors(request, origin, EXPOSED);
          return h
            .response()
            .code(204)
            .header('access-control-allow-methods', 'POST')
            .header(
              'access-control-allow-headers',
              'content-type, content-encoding, x-sentry-auth, sentry-trace, baggage',
            )
            .header('access-control-max-age', '3600');
        },
      },
    },
  ];
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
        ...rawPushOptions(limits.maxBodyBytes),
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
    ...sentryRoute(
      'envelope',
      'sentryEnvelope',
      'sentryEnvelopePreflight',
      'Takes an envelope from a Sentry SDK: its error events are stored',
    ),
    ...sentryRoute(
      'store',
      'sentryStore',
      'sentryStorePreflight',
      'Takes one event from a Sentry SDK (the older store endpoint)',
    ),
  ];
}

/** One Sentry-protocol request: stored, and CORS headers for an allowed browser origin. */
async function sentryAnswer(svc: IngestService, request: Request, format: 'envelope' | 'store') {
  return svc.pushSentry(
    {
      projectId: (request.params as { project_id: string }).project_id,
      format,
      headers: request.headers as RawHeaders,
      query: request.query,
      rawBody: rawPushBody(request),
      origin: request.headers.origin as string | undefined,
    },
    (origin) => allowCors(request, origin, EXPOSED),
  );
}
