import Joi from 'joi';
import { AbstractAdapter, SignatureError, type AdapterErrorOptions, type RawHeaders, type WebhookDelivery } from './adapter.js';

/** Plan ids (spec: plan id). */
export type PlanId = 'none' | 'open_source' | 'indie' | 'startup' | 'growth' | 'managed' | 'agency' | 'enterprise';
/** Plans sold through checkout (`POST /v1/billing/checkout`, `POST /v1/billing/plan`). */
export type PaidPlanId = 'indie' | 'startup' | 'growth' | 'managed' | 'agency';
export const PAID_PLAN_IDS: readonly PaidPlanId[] = ['indie', 'startup', 'growth', 'managed', 'agency'];

export type TopupPackId = 'topup_10' | 'topup_50' | 'topup_100';
export const TOPUP_PACK_IDS: readonly TopupPackId[] = ['topup_10', 'topup_50', 'topup_100'];

/** Subscription status (spec: subscription_status). */
export type SubscriptionStatus = 'none' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'incomplete' | 'lifetime';
export const SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = [
  'none', 'trialing', 'active', 'past_due', 'canceled', 'incomplete', 'lifetime',
];

/** A price the provider sells. Amounts are in US dollars. */
export interface PlanPrice {
  plan: PaidPlanId;
  /** Provider's price id. */
  priceId: string;
  amountUsd: number;
  interval: 'month' | 'year';
}

export interface TopupPrice {
  pack: TopupPackId;
  priceId: string;
  amountUsd: number;
  fixes: number;
}

/** A monthly add-on price (per unit: per organization for badge removal, per workspace for managed). */
export interface AddonPrice {
  addon: 'badge_removal' | 'managed_workspace';
  priceId: string;
  amountUsd: number;
}

export interface PriceList {
  plans: PlanPrice[];
  topups: TopupPrice[];
  /** Optional: add-on prices, for providers that bill add-ons (`updateAddons`). */
  addons?: AddonPrice[];
  /** Optional: monthly price of a subscription item per unit, by plan (`setSubscriptionItemQuantity`). */
  items?: SubscriptionItemPrice[];
}

/** Items a subscription carries by quantity, priced per plan: each workspace beyond the plan's included ones. */
export type SubscriptionItemId = 'extra_workspace';
export const SUBSCRIPTION_ITEM_IDS: readonly SubscriptionItemId[] = ['extra_workspace'];

export interface SubscriptionItemPrice {
  item: SubscriptionItemId;
  plan: PaidPlanId;
  priceId: string;
  amountUsd: number;
}

export interface SetItemQuantityInput {
  subscriptionId: string;
  item: SubscriptionItemId;
  /** Units after the call (0 removes the item); priced at the subscription's current plan. */
  quantity: number;
}

/** A client of an agency paying the agency's resale price, through the agency's payout account. */
export interface ResaleCollectionInput {
  /** The agency. */
  orgId: string;
  /** The client workspace the price is for. */
  workspaceId: string;
  /** The agency's connected payout account: where the money goes. */
  destinationAccountId: string;
  client: { email: string; name?: string | null };
  /** Monthly price in US dollars. */
  amountUsd: number;
  /** Share of each payment the platform keeps (0–100, two decimals). */
  platformFeePercent: number;
  /** What the client sees on the page and the invoices. */
  description: string;
  successUrl: string;
  cancelUrl: string;
}

export interface ResaleCollection {
  /** The hosted page where the client enters a card; `checkout.completed` (mode `resale`) refers to it. */
  checkoutId: string;
  url: string;
  customerId: string | null;
}

export interface UpdateResaleInput {
  subscriptionId: string;
  amountUsd: number;
  platformFeePercent: number;
}

/** Money of a resale payment: what went to the payout account and what the platform kept. */
export interface ResaleTransfer {
  destinationAccountId: string;
  /** Paid by the client minus the platform fee. */
  amountUsd: number;
  platformFeeUsd: number;
}

/** The state of a client's resale subscription at the provider. */
export interface ResaleState {
  subscriptionId: string;
  customerId: string;
  workspaceId: string;
  status: SubscriptionStatus;
  amountUsd: number;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
}

/** Who pays: an existing provider customer, or the details to create one. */
export interface CustomerRef {
  orgId: string;
  /** Provider customer id once known. */
  customerId?: string | null;
  email: string;
  name?: string;
}

interface CheckoutBase {
  customer: CustomerRef;
  successUrl: string;
  cancelUrl: string;
}

/** A subscription checkout; `trialDays` 0 when no trial applies (first subscription only). */
export interface SubscriptionCheckoutInput extends CheckoutBase {
  mode: 'subscription';
  plan: PaidPlanId;
  trialDays: number;
}

/** A one-time top-up of fix credits. */
export interface TopupCheckoutInput extends CheckoutBase {
  mode: 'topup';
  pack: TopupPackId;
}

export type CheckoutInput = SubscriptionCheckoutInput | TopupCheckoutInput;

export interface CheckoutSession {
  /** Provider's checkout id; `checkout.completed` refers to it. */
  checkoutId: string;
  /** Hosted page the user is sent to. */
  url: string;
  customerId: string | null;
}

export interface SubscriptionState {
  subscriptionId: string;
  customerId: string;
  plan: PaidPlanId;
  status: SubscriptionStatus;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  trialEndsAt: Date | null;
}

export interface InvoiceInfo {
  invoiceId: string;
  number: string | null;
  customerId: string;
  subscriptionId: string | null;
  /** Spec Invoice.purpose. */
  purpose: 'subscription' | 'topup' | 'resale' | 'other';
  status: string;
  amountPaidUsd: number;
  amountDueUsd: number;
  currency: string;
  periodStart: Date | null;
  periodEnd: Date | null;
  hostedInvoiceUrl: string | null;
  /** Resale invoices: the client workspace and the transfer to the agency's payout account. */
  workspaceId?: string | null;
  transfer?: ResaleTransfer | null;
}

export interface PortalInput {
  customerId: string;
  returnUrl: string;
}

export interface ChangePlanInput {
  subscriptionId: string;
  plan: PaidPlanId;
}

export interface ConnectOnboardingInput {
  orgId: string;
  /** The payout account once created; null creates it. */
  accountId: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string;
  email: string;
  returnUrl: string;
  refreshUrl: string;
}

/** Connected payout account of an agency. */
export interface ConnectOnboarding {
  accountId: string;
  /** Onboarding link (single use, short lived). */
  url: string;
}

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
  'checkout.completed', 'subscription.updated', 'subscription.deleted', 'invoice.paid', 'invoice.payment_failed',
  'topup.paid', 'account.updated', 'resale.updated', 'unhandled',
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
  | (PaymentEventBase & { type: 'topup.paid'; pack: TopupPackId; fixes: number; amountUsd: number; paymentId: string; customerId: string })
  | (PaymentEventBase & { type: 'account.updated'; accountId: string; chargesEnabled: boolean; payoutsEnabled: boolean; detailsSubmitted: boolean })
  | (PaymentEventBase & { type: 'resale.updated'; resale: ResaleState })
  | (PaymentEventBase & { type: 'unhandled'; providerType: string });

/** A payment webhook whose signature is missing or wrong; the route answers 400 and stores nothing. */
export class PaymentSignatureError extends SignatureError {
  override name = 'PaymentSignatureError';
  constructor(message = 'the payment webhook signature is missing or does not match', opts: AdapterErrorOptions = {}) {
    super(message, opts);
  }
}

/** Paid add-ons a subscription can carry, by quantity. */
export type AddonId = AddonPrice['addon'];
export const ADDON_IDS: readonly AddonId[] = ['badge_removal', 'managed_workspace'];

export interface UpdateAddonsInput {
  subscriptionId: string;
  /** Quantity of each add-on after the call; 0 removes it; an add-on left out keeps its quantity. */
  addons: Partial<Record<AddonId, number>>;
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

/**
 * Plans, checkout, portal, subscriptions, top-ups, connected payout accounts and webhooks. One is
 * active (`adapters.payment`). Every mutating call takes an idempotency key: repeating a call with
 * the same key returns the first answer and changes nothing more.
 */
export interface PaymentProvider {
  /**
   * Name of the adapter in config and container keys.
   *
   * @example provider.identifier // 'payment-stripe'
   */
  readonly identifier: string;

  /**
   * Prices configured at the provider for the plans and top-up packs.
   *
   * @example (await provider.prices()).plans // [{ plan: 'indie', priceId: 'price_…', amountUsd: 29, interval: 'month' }, …]
   */
  prices(): Promise<PriceList>;

  /**
   * Opens a hosted checkout: a subscription (with a trial of `trialDays`, card on file) or a
   * one-time top-up.
   *
   * @example
   * const { url } = await provider.createCheckout(
   *   { mode: 'subscription', plan: 'startup', trialDays: 14, customer: { orgId, email }, successUrl, cancelUrl },
   *   `checkout:${orgId}:${requestId}`,
   * );
   */
  createCheckout(input: CheckoutInput, idempotencyKey: string): Promise<CheckoutSession>;

  /**
   * Opens the hosted customer portal (payment methods, invoices, cancellation).
   *
   * @example const { url } = await provider.createPortal({ customerId: 'cus_1', returnUrl }, key)
   */
  createPortal(input: PortalInput, idempotencyKey: string): Promise<{ url: string }>;

  /**
   * Moves a subscription to another plan, prorated.
   *
   * @example await provider.changePlan({ subscriptionId: 'sub_1', plan: 'growth' }, key) // { plan: 'growth', … }
   */
  changePlan(input: ChangePlanInput, idempotencyKey: string): Promise<SubscriptionState>;

  /**
   * Cancels at the end of the paid period (`cancelAtPeriodEnd` true in the answer).
   *
   * @example await provider.cancelAtPeriodEnd('sub_1', key)
   */
  cancelAtPeriodEnd(subscriptionId: string, idempotencyKey: string): Promise<SubscriptionState>;

  /**
   * Creates the agency's payout account when `accountId` is null, and returns its onboarding link.
   *
   * @example await provider.createConnectOnboarding({ orgId, accountId: null, country: 'IT', email, returnUrl, refreshUrl }, key)
   */
  createConnectOnboarding(input: ConnectOnboardingInput, idempotencyKey: string): Promise<ConnectOnboarding>;

  /**
   * Verifies and normalizes one webhook delivery. Throws PaymentSignatureError on a missing or
   * wrong signature, PayloadError on a body it cannot read.
   *
   * @example const event = await provider.parseWebhook(request.headers, rawBody) // { type: 'invoice.paid', … }
   */
  parseWebhook(headers: RawHeaders, rawBody: Buffer): Promise<PaymentEvent>;

  /**
   * Optional. Sets the add-on quantities of a subscription, prorated. Without it the service
   * records add-ons but bills none.
   *
   * @example await provider.updateAddons?.({ subscriptionId: 'sub_1', addons: { badge_removal: 1 } }, key)
   */
  updateAddons?(input: UpdateAddonsInput, idempotencyKey: string): Promise<SubscriptionState>;

  /**
   * Optional. Sets how many units of an item the subscription carries (each workspace beyond the
   * plan's included ones), at the provider's price of that item for the subscription's plan,
   * prorated. Without it the service counts extra workspaces but bills none.
   *
   * @example await provider.setSubscriptionItemQuantity?.({ subscriptionId: 'sub_1', item: 'extra_workspace', quantity: 2 }, key)
   */
  setSubscriptionItemQuantity?(input: SetItemQuantityInput, idempotencyKey: string): Promise<SubscriptionState>;

  /**
   * Optional, with `updateResaleCollection` and `stopResaleCollection`. Opens a hosted page where
   * an agency's client enters a card for a monthly subscription at the resale price; each payment
   * goes to the agency's payout account minus the platform fee (Stripe: a destination charge,
   * `transfer_data[destination]` and `application_fee_percent`). The subscription's states come
   * as `resale.updated` events, its invoices with purpose `resale` and their `transfer`.
   *
   * @example await provider.startResaleCollection?.({ orgId, workspaceId, destinationAccountId: 'acct_1', client: { email }, amountUsd: 300, platformFeePercent: 5, description: 'Support for Acme', successUrl, cancelUrl }, key)
   */
  startResaleCollection?(input: ResaleCollectionInput, idempotencyKey: string): Promise<ResaleCollection>;

  /**
   * Optional. Changes the monthly price (and fee) of a running resale subscription from its next period.
   *
   * @example await provider.updateResaleCollection?.({ subscriptionId: 'sub_9', amountUsd: 350, platformFeePercent: 5 }, key)
   */
  updateResaleCollection?(input: UpdateResaleInput, idempotencyKey: string): Promise<ResaleState>;

  /**
   * Optional. Stops a resale subscription at the end of its paid period.
   *
   * @example await provider.stopResaleCollection?.('sub_9', key)
   */
  stopResaleCollection?(subscriptionId: string, idempotencyKey: string): Promise<ResaleState>;

  /**
   * Optional. Pages the service serves on the provider's behalf (a simulated provider's hosted
   * checkout, portal and payout onboarding), which complete by handing signed webhooks to
   * `host.deliverWebhook`. Called once at boot by the billing plugin.
   *
   * @example provider.hostedPages?.(host) // [{ method: 'GET', path: '/pay/local/checkout/{session}', handle }]
   */
  hostedPages?(host: PaymentHost): HostedPaymentPage[];
}

/** Options every payment provider accepts. */
export interface PaymentProviderOptions {
  /** Signing secret of the provider's webhooks. */
  webhookSecret?: string;
  /** ISO 4217, lower case. */
  currency?: string;
  /** Provider API base URL (a local peer in tests). */
  baseUrl?: string;
}

export const paymentProviderOptionKeys: Joi.PartialSchemaMap<PaymentProviderOptions> = {
  webhookSecret: Joi.string().min(16),
  currency: Joi.string().pattern(/^[a-z]{3}$/).default('usd'),
  baseUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
};

export const paymentProviderOptionsSchema = Joi.object<PaymentProviderOptions>(paymentProviderOptionKeys);

/** Fixes in each top-up pack. */
export const TOPUP_FIXES: Readonly<Record<TopupPackId, number>> = { topup_10: 10, topup_50: 50, topup_100: 100 };

/** Base of payment providers: options, identifier and the pack table. */
export abstract class AbstractPaymentProvider<O extends PaymentProviderOptions = PaymentProviderOptions>
  extends AbstractAdapter<O>
  implements PaymentProvider
{
  static override optionsSchema: Joi.ObjectSchema<PaymentProviderOptions> = paymentProviderOptionsSchema;

  abstract prices(): Promise<PriceList>;
  abstract createCheckout(input: CheckoutInput, idempotencyKey: string): Promise<CheckoutSession>;
  abstract createPortal(input: PortalInput, idempotencyKey: string): Promise<{ url: string }>;
  abstract changePlan(input: ChangePlanInput, idempotencyKey: string): Promise<SubscriptionState>;
  abstract cancelAtPeriodEnd(subscriptionId: string, idempotencyKey: string): Promise<SubscriptionState>;
  abstract createConnectOnboarding(input: ConnectOnboardingInput, idempotencyKey: string): Promise<ConnectOnboarding>;
  abstract parseWebhook(headers: RawHeaders, rawBody: Buffer): Promise<PaymentEvent>;

  private readonly idempotent = new Map<string, Promise<unknown>>();

  /** Fixes a top-up pack grants. */
  protected fixesOf(pack: TopupPackId): number {
    return TOPUP_FIXES[pack];
  }

  /**
   * Runs `fn` once per idempotency key and repeats its answer (in this process, last 1000 keys):
   * for providers without server-side idempotency, such as the simulated one. A failed call is
   * forgotten so it can be retried.
   */
  protected once<T>(operation: string, idempotencyKey: string, fn: () => Promise<T>): Promise<T> {
    const key = `${operation}:${idempotencyKey}`;
    const known = this.idempotent.get(key);
    if (known) return known as Promise<T>;
    const p = fn().catch((err: unknown) => {
      this.idempotent.delete(key);
      throw err;
    });
    this.idempotent.set(key, p);
    if (this.idempotent.size > 1000) this.idempotent.delete(this.idempotent.keys().next().value as string);
    return p;
  }
}
