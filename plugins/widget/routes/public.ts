import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import {
  configQuery,
  eventsPayload,
  identifyPayload,
  reportPayload,
  WidgetConfig,
  WidgetEventsReceipt,
  WidgetIdentity,
  WidgetReportReceipt,
} from '../schemas.js';
import type { IdentifyInput, WidgetIdentities } from '../services/identities.js';
import type { EventsInput, ReportInput, WidgetIntake } from '../services/intake.js';
import { withCompiledCheck } from '../../../core/http/compiled-validator.js';
import { allowCors } from '../../../core/http/cors.js';
import { callerOf, keyOf, TAG } from './context.js';

const keyQuery = Joi.object({ key: Joi.string().max(80), public_key: Joi.string().max(80) });

/** The public operations of the widget section (auth false; the public key names the install). */
export function publicWidgetRoutes(
  intake: () => WidgetIntake,
  identities: () => WidgetIdentities,
  maxReportBytes: number,
): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/widget/config',
      options: {
        id: 'getWidgetConfig',
        tags: [TAG],
        description: 'Configuration for a public key: brand, texts, capture, passive collection',
        notes:
          'Public. Key in ?key=, X-Widget-Key or ?public_key=. locale (en, it) picks the texts; default the ' +
          'brand profile’s language. 404 not_found for an unknown or rotated key. CORS headers only for the ' +
          'install’s allowed origins; a fetch from an allowed origin marks the install as seen.',
        auth: false,
        validate: { query: configQuery },
        response: { status: { 200: WidgetConfig } },
        handler: async (request) => {
          const svc = intake();
          const ws = await svc.install(keyOf(request));
          const meta = callerOf(request);
          if (svc.admit(ws, meta, false)) allowCors(request, meta.origin);
          return svc.config(ws, meta, (request.query as { locale?: string }).locale);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/widget/events',
      options: {
        id: 'createWidgetEvents',
        tags: [TAG],
        description: 'Passive error events from the host page (host consent required)',
        notes:
          'Public. Body: consent* (the host site’s consent; false answers 403 consent_required), events* (1–20 ' +
          'of {type, message*, level, stack, url, release, environment, occurred_at, fingerprint}), user_id, ' +
          'browser. 403 passive_collection_disabled when the workspace has it off; 403 origin_not_allowed from ' +
          'a browser origin outside allowed_origins; 429 rate_limited with Retry-After per key. Events join ' +
          'the error groups (source widget).',
        auth: false,
        validate: { query: keyQuery, payload: withCompiledCheck(eventsPayload) },
        response: { status: { 202: WidgetEventsReceipt } },
        plugins: { patchwell: { successStatus: 202 } },
        handler: async (request, h) => {
          const svc = intake();
          const ws = await svc.eventsInstall(keyOf(request));
          const meta = callerOf(request);
          if (svc.admit(ws, meta, true)) allowCors(request, meta.origin);
          return h.response(await svc.events(ws, request.payload as EventsInput, meta)).code(202);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/widget/identify',
      options: {
        id: 'identifyWidgetUser',
        tags: [TAG],
        description: 'Links an end-user hash to an email (host consent required)',
        notes:
          'Public. Body: consent*, email*, user_hash* (hex HMAC-SHA256 of the lower-cased email, keyed with ' +
          'the identity_secret of the widget settings; computed by the host’s server), user_id (the host’s id ' +
          'of the user, later sent with events). 401 invalid_user_hash; 403 consent_required; 403 ' +
          'origin_not_allowed; 429 rate_limited.',
        auth: false,
        validate: { query: keyQuery, payload: identifyPayload },
        response: { status: { 200: WidgetIdentity } },
        handler: async (request) => {
          const svc = intake();
          const ws = await svc.install(keyOf(request));
          const meta = callerOf(request);
          if (svc.admit(ws, meta, true)) allowCors(request, meta.origin);
          return identities().identify(ws, request.payload as IdentifyInput);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/widget/reports',
      options: {
        id: 'createWidgetReport',
        tags: [TAG],
        description: 'A report from the widget form: creates a ticket of origin widget',
        notes:
          'Public. Body: email*, message*, name, user_id, user_hash, locale, technical_consent (without it ' +
          'only url and release are kept), context {console, network, browser, url, release} ' +
          '(Message.widget_context), screenshot (base64 or data URL of a PNG, JPEG or WebP image; requires ' +
          'screenshot_consent, else 403 consent_required; stored as a file of the ticket). 403 ' +
          'origin_not_allowed; 402 plan_limit_reached; 413 payload_too_large; 422 invalid_screenshot, ' +
          'screenshot_not_accepted; 429 rate_limited. Answers the report id, ticket id and the public status ' +
          'link.',
        auth: false,
        payload: { maxBytes: maxReportBytes },
        validate: { query: keyQuery, payload: reportPayload },
        response: { status: { 201: WidgetReportReceipt } },
        plugins: { patchwell: { successStatus: 201 } },
        handler: async (request, h) => {
          const svc = intake();
          const ws = await svc.install(keyOf(request));
          const meta = callerOf(request);
          if (svc.admit(ws, meta, true)) allowCors(request, meta.origin);
          return h.response(await svc.report(ws, request.payload as ReportInput, meta)).code(201);
        },
      },
    },
  ];
}
