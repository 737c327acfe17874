/**
 * What a payment provider tells the service: its webhooks, normalized, and for a provider that
 * serves its own pages (a simulated one), the pages and the in-process delivery of their webhooks.
 */
import { SignatureError, type AdapterErrorOptions, type WebhookDelivery } from './adapter.js';
import type { TopupPackId } from './payment-catalog.js';
import type { ResaleState } from './payment-resale.js';
import type { InvoiceInfo, SubscriptionState } from './payment-subscriptions.js';

export type PaymentEventType =
  | 'checkout.completed'
  | 'subscription.updated'
  | 'subscription.deleted'
  | 'invoice.paid'
  | 'invoice.payment_failed'
  | 'topup.paid'
  | 'account.updated'
  | 'resale.updated'
  | 'unhandled';
export const PAYMENT_EVENT_TYPES: readonly PaymentEventType[] = [
  'checkout.completed',
  'subscription.updated',
  'subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
  'topup.paid',
  'account.updated',
  'resale.updated',
  'unhandled',
];

interface PaymentEventBase {
  /** Provider's event id: the deduplication key. */
  id: string;
  occurredAt: Date;
  /** Organization the event concerns, when the provider carried it (metadata, client reference). */
  orgId: string | null;
}

/**
 * A provider webhook, normalized. Events the service does not use are `unhandled` (answered 200
 * and dropped), so a new provider event type never fails a delivery.
 */
export type PaymentEvent =
  | (PaymentEventBase & {
      type: 'checkout.completed';
      checkoutId: string;
      mode: 'subscription' | 'topup' | 'resale';
      customerId: string;
      subscriptionId: string | null;
    })
  | (PaymentEventBase & { type: 'subscription.updated' | 'subscription.deleted'; subscription: SubscriptionState })
  | (PaymentEventBase & { type: 'invoice.paid' | 'invoice.payment_failed'; invoice: InvoiceInfo })
  | (PaymentEventBase & {
      type: 'topup.paid';
      pack: TopupPackId;
      fixes: number;
      amountUsd: number;
      paymentId: string;
      customerId: string;
    })
  | (PaymentEventBase & {
      type: 'account.updated';
      accountId: string;
      chargesEnabled: boolean;
      payoutsEnabled: boolean;
      detailsSubmitted: boolean;
    })
  | (PaymentEventBase & { type: 'resale.updated'; resale: ResaleState })
  | (PaymentEventBase & { type: 'unhandled'; providerType: string });

/** A payment webhook whose signature is missing or wrong; the route answers 400 and stores nothing. */
export class PaymentSignatureError extends SignatureError {
  override name = 'PaymentSignatureError';
  constructor(message = 'the payment webhook signature is missing or does not match', opts: AdapterErrorOptions = {}) {
    super(message, opts);
  }
}

/** Which webhook endpoint a delivery is for: the provider account's own events, or its connected payout accounts'. */
export type PaymentWebhookEndpoint = 'account' | 'connect';

/** What the service offers a provider that serves its own pages (a simulated provider). */
export interface PaymentHost {
  /** The service's public base URL, for links in pages. */
  publicBaseUrl: string;
  /**
   * Hands a signed delivery to the service's payment webhook endpoint, in process (the same
   * route and handler as a delivery over HTTP). Resolves with the answer's status code.
   */
  deliverWebhook(delivery: WebhookDelivery, endpoint: PaymentWebhookEndpoint): Promise<number>;
}

/** A request to a hosted page: path parameters, query and (POST) url-encoded form fields. */
export interface HostedPageRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  form: Record<string, string>;
}

export type HostedPageResponse = { status?: number; html: string } | { redirect: string };

/** A page the service serves for a provider, outside the API (no operation id, not in OpenAPI). */
export interface HostedPaymentPage {
  method: 'GET' | 'POST';
  /** hapi path, e.g. `/pay/local/checkout/{session}`. */
  path: string;
  handle(request: HostedPageRequest): Promise<HostedPageResponse>;
}
