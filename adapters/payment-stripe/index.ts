import Stripe from 'stripe';
import {
  AbstractPaymentProvider,
  AdapterError,
  adapterModule,
  type AddonId,
  type ChangePlanInput,
  type CheckoutInput,
  type CheckoutSession,
  type ConnectOnboarding,
  type ConnectOnboardingInput,
  type PaymentEvent,
  type PortalInput,
  type PriceList,
  type RawHeaders,
  type ResaleCollection,
  type ResaleCollectionInput,
  type ResaleState,
  type SetItemQuantityInput,
  type SubscriptionState,
  type UpdateAddonsInput,
  type UpdateResaleInput,
} from '../../core/contracts/index.js';
import { normalizeStripeEvent, resaleState, subscriptionState } from './events.js';
import { createStripeClient, stripeOptionsSchema, type StripePaymentOptions } from './options.js';
import { StripePrices, type PriceKind } from './prices.js';
import { stripeCall } from './stripe-call.js';
import { verifyStripeEvent } from './webhook.js';

export type { StripePaymentOptions } from './options.js';

/**
 * payment-stripe: Stripe through its SDK. Every mutating call carries an idempotency key
 * (derived from the caller's); prices are found by lookup key; webhooks are verified with the
 * endpoint's signing secret (or the Connect endpoint's) and a 300 s tolerance, then normalized.
 */
export class StripePaymentProvider extends AbstractPaymentProvider<StripePaymentOptions> {
  static override identifier = 'payment-stripe';
  static override optionsSchema = stripeOptionsSchema;

  readonly stripe: Stripe;
  private readonly priceBook: StripePrices;

  constructor(options: StripePaymentOptions, deps?: ConstructorParameters<typeof AbstractPaymentProvider>[1]) {
    super(options, deps);
    this.stripe = createStripeClient(options);
    this.priceBook = new StripePrices(this.stripe, this.options.lookupKeyPrefix);
  }

  async prices(): Promise<PriceList> {
    return (await this.priceBook.index()).list;
  }

  async createCheckout(input: CheckoutInput, idempotencyKey: string): Promise<CheckoutSession> {
    const orgId = input.customer.orgId;
    const customerId =
      input.customer.customerId ??
      (
        await stripeCall(() =>
          this.stripe.customers.create(
            { email: input.customer.email || undefined, name: input.customer.name, metadata: { org_id: orgId } },
            { idempotencyKey: `${idempotencyKey}:customer` },
          ),
        )
      ).id;
    const common = {
      customer: customerId,
      client_reference_id: orgId,
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
    };
    const session =
      input.mode === 'subscription'
        ? await stripeCall(async () =>
            this.stripe.checkout.sessions.create(
              {
                ...common,
                mode: 'subscription',
                line_items: [{ price: await this.priceBook.priceId({ kind: 'plan', plan: input.plan }), quantity: 1 }],
                payment_method_collection: 'always',
                subscription_data: {
                  ...(input.trialDays > 0 ? { trial_period_days: input.trialDays } : {}),
                  metadata: { org_id: orgId, plan: input.plan },
                },
                metadata: { org_id: orgId, kind: 'subscription', plan: input.plan },
              },
              { idempotencyKey },
            ),
          )
        : await stripeCall(async () =>
            this.stripe.checkout.sessions.create(
              {
                ...common,
                mode: 'payment',
                line_items: [{ price: await this.priceBook.priceId({ kind: 'topup', pack: input.pack }), quantity: 1 }],
                payment_intent_data: { metadata: { org_id: orgId, kind: 'topup', pack: input.pack } },
                invoice_creation: {
                  enabled: true,
                  invoice_data: { metadata: { org_id: orgId, kind: 'topup', pack: input.pack } },
                },
                metadata: { org_id: orgId, kind: 'topup', pack: input.pack, fixes: String(this.fixesOf(input.pack)) },
              },
              { idempotencyKey },
            ),
          );
    if (!session.url)
      throw new AdapterError('checkout_without_url', 'Stripe answered a checkout session without a URL');
    return { checkoutId: session.id, url: session.url, customerId };
  }

  async createPortal(input: PortalInput, idempotencyKey: string): Promise<{ url: string }> {
    const session = await stripeCall(() =>
      this.stripe.billingPortal.sessions.create(
        { customer: input.customerId, return_url: input.returnUrl },
        { idempotencyKey },
      ),
    );
    return { url: session.url };
  }

  async changePlan(input: ChangePlanInput, idempotencyKey: string): Promise<SubscriptionState> {
    const sub = await stripeCall(() => this.stripe.subscriptions.retrieve(input.subscriptionId));
    const index = await this.priceBook.index();
    const item = sub.items.data.find((i) => index.byId.get(i.price.id)?.kind === 'plan') ?? sub.items.data[0];
    if (!item) throw new AdapterError('subscription_without_items', `subscription ${sub.id} has no items`);
    const price = await this.priceBook.priceId({ kind: 'plan', plan: input.plan });
    const items: Stripe.SubscriptionUpdateParams.Item[] = [{ id: item.id, price }];
    // Extra workspaces are priced per plan: their item follows the plan.
    const extra = sub.items.data.find((i) => index.byId.get(i.price.id)?.kind === 'extra_workspace');
    if (extra)
      items.push({
        id: extra.id,
        price: await this.priceBook.priceId({ kind: 'extra_workspace', plan: input.plan }),
        quantity: extra.quantity ?? 0,
      });
    const updated = await stripeCall(() =>
      this.stripe.subscriptions.update(
        input.subscriptionId,
        { items, proration_behavior: this.options.prorationBehavior, metadata: { plan: input.plan } },
        { idempotencyKey },
      ),
    );
    return this.state(updated);
  }

  async setSubscriptionItemQuantity(input: SetItemQuantityInput, idempotencyKey: string): Promise<SubscriptionState> {
    const sub = await stripeCall(() => this.stripe.subscriptions.retrieve(input.subscriptionId));
    const index = await this.priceBook.index();
    const { plan } = subscriptionState(sub, index.byId);
    const price = await this.priceBook.priceId({ kind: 'extra_workspace', plan });
    const existing = sub.items.data.find((i) => index.byId.get(i.price.id)?.kind === 'extra_workspace');
    let item: Stripe.SubscriptionUpdateParams.Item | null = null;
    if (existing && input.quantity === 0) item = { id: existing.id, deleted: true };
    else if (existing && (existing.quantity !== input.quantity || existing.price.id !== price))
      item = { id: existing.id, price, quantity: input.quantity };
    else if (!existing && input.quantity > 0) item = { price, quantity: input.quantity };
    if (!item) return this.state(sub);
    const updated = await stripeCall(() =>
      this.stripe.subscriptions.update(
        input.subscriptionId,
        { items: [item], proration_behavior: this.options.prorationBehavior },
        { idempotencyKey },
      ),
    );
    return this.state(updated);
  }

  /**
   * A destination-charge subscription on the platform (Stripe's recommendation for Express
   * accounts): a Checkout session where the client enters a card, each invoice paid is
   * transferred to the agency's account (`transfer_data[destination]`) minus
   * `application_fee_percent`. The client is a customer of the platform, one per workspace.
   */
  async startResaleCollection(input: ResaleCollectionInput, idempotencyKey: string): Promise<ResaleCollection> {
    const metadata = { org_id: input.orgId, workspace_id: input.workspaceId, kind: 'resale' };
    const customer = await stripeCall(() =>
      this.stripe.customers.create(
        { email: input.client.email, name: input.client.name ?? undefined, metadata },
        { idempotencyKey: `${idempotencyKey}:customer` },
      ),
    );
    const session = await stripeCall(() =>
      this.stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          customer: customer.id,
          client_reference_id: input.orgId,
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
          payment_method_collection: 'always',
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: this.options.currency ?? 'usd',
                unit_amount: cents(input.amountUsd),
                recurring: { interval: 'month' },
                product_data: { name: input.description, metadata },
              },
            },
          ],
          subscription_data: {
            application_fee_percent: input.platformFeePercent,
            transfer_data: { destination: input.destinationAccountId },
            ...(this.options.resaleOnBehalfOf ? { on_behalf_of: input.destinationAccountId } : {}),
            metadata,
          },
          metadata,
        },
        { idempotencyKey },
      ),
    );
    if (!session.url)
      throw new AdapterError('checkout_without_url', 'Stripe answered a checkout session without a URL');
    return { checkoutId: session.id, url: session.url, customerId: customer.id };
  }

  /** A new price from the next period (no proration): same product, a new inline price. */
  async updateResaleCollection(input: UpdateResaleInput, idempotencyKey: string): Promise<ResaleState> {
    const sub = await stripeCall(() => this.stripe.subscriptions.retrieve(input.subscriptionId));
    const item = sub.items.data[0];
    if (!item || sub.metadata?.kind !== 'resale')
      throw new AdapterError('not_supported', `subscription ${sub.id} is not a resale subscription`);
    const product = typeof item.price.product === 'string' ? item.price.product : item.price.product.id;
    const updated = await stripeCall(() =>
      this.stripe.subscriptions.update(
        input.subscriptionId,
        {
          items: [
            {
              id: item.id,
              price_data: {
                currency: item.price.currency,
                product,
                unit_amount: cents(input.amountUsd),
                recurring: { interval: 'month' },
              },
            },
          ],
          application_fee_percent: input.platformFeePercent,
          proration_behavior: 'none',
        },
        { idempotencyKey },
      ),
    );
    return resaleState(updated);
  }

  async stopResaleCollection(subscriptionId: string, idempotencyKey: string): Promise<ResaleState> {
    const updated = await stripeCall(() =>
      this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }, { idempotencyKey }),
    );
    return resaleState(updated);
  }

  async cancelAtPeriodEnd(subscriptionId: string, idempotencyKey: string): Promise<SubscriptionState> {
    const updated = await stripeCall(() =>
      this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }, { idempotencyKey }),
    );
    return this.state(updated);
  }

  async updateAddons(input: UpdateAddonsInput, idempotencyKey: string): Promise<SubscriptionState> {
    const sub = await stripeCall(() => this.stripe.subscriptions.retrieve(input.subscriptionId));
    const index = await this.priceBook.index();
    const items: Stripe.SubscriptionUpdateParams.Item[] = [];
    for (const [addon, quantity] of Object.entries(input.addons) as [AddonId, number][]) {
      const existing = sub.items.data.find((i) => {
        const k = index.byId.get(i.price.id);
        return k?.kind === 'addon' && k.addon === addon;
      });
      if (existing) items.push(quantity > 0 ? { id: existing.id, quantity } : { id: existing.id, deleted: true });
      else if (quantity > 0) items.push({ price: await this.priceBook.priceId({ kind: 'addon', addon }), quantity });
    }
    if (items.length === 0) return this.state(sub);
    const updated = await stripeCall(() =>
      this.stripe.subscriptions.update(
        input.subscriptionId,
        { items, proration_behavior: this.options.prorationBehavior },
        { idempotencyKey },
      ),
    );
    return this.state(updated);
  }

  async createConnectOnboarding(input: ConnectOnboardingInput, idempotencyKey: string): Promise<ConnectOnboarding> {
    const accountId =
      input.accountId ??
      (
        await stripeCall(() =>
          this.stripe.accounts.create(
            {
              type: 'express',
              country: input.country,
              email: input.email || undefined,
              metadata: { org_id: input.orgId },
              capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
            },
            { idempotencyKey: `${idempotencyKey}:account` },
          ),
        )
      ).id;
    const link = await stripeCall(() =>
      this.stripe.accountLinks.create(
        { account: accountId, refresh_url: input.refreshUrl, return_url: input.returnUrl, type: 'account_onboarding' },
        { idempotencyKey: `${idempotencyKey}:link` },
      ),
    );
    return { accountId, url: link.url };
  }

  async parseWebhook(headers: RawHeaders, rawBody: Buffer): Promise<PaymentEvent> {
    const secrets = [this.options.webhookSecret, this.options.connectWebhookSecret].filter((s): s is string =>
      Boolean(s),
    );
    const event = verifyStripeEvent(this.stripe, secrets, headers, rawBody);
    return normalizeStripeEvent(event, (await this.priceBook.indexOrNull())?.byId ?? new Map<string, PriceKind>());
  }

  private async state(sub: Stripe.Subscription): Promise<SubscriptionState> {
    const index = await this.priceBook.indexOrNull();
    return subscriptionState(sub, index?.byId ?? new Map<string, PriceKind>());
  }
}

const cents = (usd: number): number => Math.round(usd * 100);

export default adapterModule('payment', StripePaymentProvider);
