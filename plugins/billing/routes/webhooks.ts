import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { PaymentWebhookEndpoint, RawHeaders } from '../../../core/contracts/index.js';
import { PaymentWebhookReceipt } from '../schemas.js';
import type { BillingServices } from '../services/index.js';

const TAG = 'payment webhooks';
const MAX_BYTES = 512 * 1024;

/**
 * The two payment webhook endpoints: the provider account's own events, and its connected payout
 * accounts' events (providers sign the two with different secrets). The body is read raw: the
 * signature (`Stripe-Signature: t=…,v1=…`, HMAC-SHA256 of `t.body`, 300 s tolerance) covers its
 * exact bytes.
 */
export function webhookRoutes(s: BillingServices): ServerRoute[] {
  const route = (path: string, id: string, endpoint: PaymentWebhookEndpoint, description: string): ServerRoute => ({
    method: 'POST',
    path,
    options: {
      id,
      tags: [TAG],
      description,
      notes:
        'Signed by the provider over the raw body; a missing or wrong signature answers 400 invalid_signature and stores nothing. ' +
        'Events are deduplicated by provider event id (a repeated delivery answers duplicate: true and ' +
        'changes nothing) and applied independently of delivery order.',
      auth: false,
      payload: { parse: false, output: 'data', maxBytes: MAX_BYTES, allow: ['application/json'] },
      validate: {
        params: Joi.object({
          provider: Joi.string()
            .pattern(/^[a-z0-9-]+$/)
            .max(60)
            .required()
            .description('The payment adapter, e.g. `local` or `stripe`'),
        }),
      },
      response: { status: { 200: PaymentWebhookReceipt } },
      plugins: { patchwell: { rawBody: { contentType: 'application/json' } } },
      handler: async (request: Request) => {
        const { provider } = request.params as { provider: string };
        const body = Buffer.isBuffer(request.payload)
          ? request.payload
          : Buffer.from((request.payload as string | null) ?? '');
        return s.events.receive(provider, endpoint, request.headers as RawHeaders, body);
      },
    },
  });
  return [
    route(
      '/v1/webhooks/payment/{provider}',
      'receivePaymentWebhook',
      'account',
      'Payment provider events: checkouts, subscriptions, invoices, top-ups',
    ),
    route(
      '/v1/webhooks/payment/{provider}/connect',
      'receivePaymentConnectWebhook',
      'connect',
      'Payment provider events of connected payout accounts (agencies)',
    ),
  ];
}
