import Joi from 'joi';
import { AbstractAdapter, type RawHeaders } from './adapter.js';
import { TOPUP_FIXES, type PriceList, type TopupPackId } from './payment-catalog.js';
import type {
  ConnectOnboarding,
  ConnectOnboardingInput,
  ResaleCollection,
  ResaleCollectionInput,
  ResaleState,
  UpdateResaleInput,
} from './payment-resale.js';
import type {
  ChangePlanInput,
  CheckoutInput,
  CheckoutSession,
  PortalInput,
  SetItemQuantityInput,
  SubscriptionState,
  UpdateAddonsInput,
} from './payment-subscriptions.js';
import type { PaymentEvent, PaymentHost, HostedPaymentPage } from './payment-webhooks.js';

// The contract's types, by concept; partners keep importing them from here or from index.ts.
export * from './payment-catalog.js';
export * from './payment-subscriptions.js';
export * from './payment-resale.js';
export * from './payment-webhooks.js';

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
  currency: Joi.string()
    .pattern(/^[a-z]{3}$/)
    .default('usd'),
  baseUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
};

export const paymentProviderOptionsSchema = Joi.object<PaymentProviderOptions>(paymentProviderOptionKeys);

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
