/** Verifying a Stripe webhook: its signature with the account's or the Connect endpoint's secret, within a tolerance, and its shape. */
import type Stripe from 'stripe';
import { PayloadError, PaymentSignatureError, headerValue, type RawHeaders } from '../../core/contracts/index.js';
import type { StripeEventLike } from './events.js';

export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function verifyStripeEvent(
  stripe: Stripe,
  secrets: string[],
  headers: RawHeaders,
  rawBody: Buffer,
): StripeEventLike {
  const signature = headerValue(headers, 'stripe-signature');
  if (!signature) throw new PaymentSignatureError();
  let verified = false;
  for (const secret of secrets) {
    try {
      stripe.webhooks.signature!.verifyHeader(rawBody, signature, secret, WEBHOOK_TOLERANCE_SECONDS);
      verified = true;
      break;
    } catch {
      // try the next secret
    }
  }
  if (!verified) throw new PaymentSignatureError();
  let event: StripeEventLike;
  try {
    event = JSON.parse(rawBody.toString('utf8')) as StripeEventLike;
  } catch {
    throw new PayloadError('the Stripe event is not JSON');
  }
  if (!event || typeof event.id !== 'string' || typeof event.type !== 'string' || typeof event.created !== 'number') {
    throw new PayloadError('the Stripe event has no id, type or created');
  }
  return event;
}
