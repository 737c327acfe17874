import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { isAdapterError, type RawHeaders } from '../../../core/contracts/index.js';
import { httpError, notFound } from '../../../core/http/errors.js';
import { WebhookAnswerSchema } from '../schemas.js';
import type { InboundPipeline } from '../services/pipeline.js';

/** Route of the email-webhooks section (1 operation). */
export function webhookRoutes(
  pipeline: () => InboundPipeline,
  opts: { maxBytes: number; providers: () => readonly string[] },
): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/webhooks/email/{provider}',
      options: {
        id: 'receiveEmailWebhook',
        tags: ['email-webhooks'],
        description: 'Inbound email and delivery events from the email provider',
        notes: [
          'Provider `mime`: the raw RFC 5322 message (Content-Type message/rfc822), the envelope recipients in ' +
            'X-Envelope-To (comma-separated), and X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body ' +
            'keyed with EMAIL_WEBHOOK_SECRET>.',
          'Provider `ses`: Amazon SNS notifications (signature, certificate host and topic checked).',
          'A missing or wrong signature answers 401 invalid_signature and stores nothing. Each recipient gets ' +
            'one result: status and reason as in InboundEmail (reason `unknown_recipient` for an address no ' +
            'workspace owns: nothing stored), and the ticket opened or joined. Delivery events (delivered, ' +
            "bounced, complained, failed) update the delivery status of the service's replies.",
        ].join('\n\n'),
        auth: false,
        payload: {
          parse: false,
          output: 'data',
          allow: ['message/rfc822', 'application/json', 'text/plain'],
          maxBytes: opts.maxBytes,
        },
        validate: {
          params: Joi.object({
            provider: Joi.string()
              .max(40)
              .pattern(/^[a-z0-9][a-z0-9-]*$/)
              .required(),
          }),
        },
        plugins: { patchwell: { rawBody: { contentType: 'message/rfc822' } } },
        response: { status: { 200: WebhookAnswerSchema } },
        handler: async (request) => {
          const provider = (request.params as { provider: string }).provider;
          if (!opts.providers().includes(provider)) throw notFound('email provider');
          const rawBody = Buffer.isBuffer(request.payload)
            ? request.payload
            : Buffer.from((request.payload as string | null) ?? '');
          // Node's own headers (request.headers is the same object, typed unknown by hapi).
          const contentType = (request.raw.req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
          try {
            return await pipeline().receive({ provider, headers: request.headers as RawHeaders, rawBody, contentType });
          } catch (err) {
            if (isAdapterError(err, 'invalid_signature'))
              throw httpError(401, 'invalid_signature', 'The delivery signature is missing or does not match');
            if (isAdapterError(err, 'invalid_payload')) throw httpError(400, 'invalid_payload', err.message);
            if (isAdapterError(err) && err.retryable) throw httpError(503, 'provider_unavailable', err.message);
            throw err;
          }
        },
      },
    },
  ];
}
