import Joi from 'joi';
import Stripe from 'stripe';
import {
  AbstractPaymentProvider,
  AdapterError,
  AdapterNotFoundError,
  PAID_PLAN_IDS,
  PayloadError,
  PaymentSignatureError,
  TOPUP_FIXES,
  TOPUP_PACK_IDS,
  adapterModule,
  headerValue,
  paymentProviderOptionKeys,
  type AddonId,
  type ChangePlanInput,
  type CheckoutInput,
  type CheckoutSession,
  type ConnectOnboarding,
  type ConnectOnboardingInput,
  type PaidPlanId,
  type PaymentEvent,
  type PaymentProviderOptions,
  type PortalInput,
  type PriceList,
  type RawHeaders,
  type ResaleCollection,
  type ResaleCollectionInput,
  type ResaleState,
  type SetItemQuantityInput,
  type SubscriptionState,
  type TopupPackId,
  type UpdateAddonsInput,
  type UpdateResaleInput,
} from '../../core/contracts/index.js';
import { normalizeStripeEvent, resaleState, subscriptionState, type StripeEventLike, type StripeSubscriptionLike } from './events.js';

export interface StripePaymentOptions extends PaymentProviderOptions {
  /** Secret API key (`sk_live_…` / `sk_test_…`). */
  secretKey: string;
  /** Signing secret of the account webhook endpoint (`whsec_…`). */
  webhookSecret: string;
  /** Signing secret of the Connect webhook endpoint (events of connected payout accounts). */
  connectWebhookSecret?: string;
  /** API host, port and protocol (a local peer in tests); `baseUrl` sets all three at once. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  /** Prices are found by lookup key: `<prefix>plan_<id>`, `<prefix>topup_<pack>`, `<prefix>addon_<addon>`. */
  lookupKeyPrefix: string;
  /** How plan and add-on changes are prorated. */
  prorationBehavior: 'always_invoice' | 'create_prorations';
  timeoutMs: number;
  maxNetworkRetries: number;
  /**
   * Resale payments settle on the agency's payout account (`on_behalf_of`): the agency is the
   * merchant of record and its country's rules apply (needed when it is in another region than
   * the platform). Off: destination charges settle on the platform and transfer.
   */
  resaleOnBehalfOf: boolean;
}

const PRICE_TTL_MS = 5 * 60_000;
export const WEBHOOK_TOLERANCE_SECONDS = 300;

type PriceKind =
  | { kind: 'plan'; plan: PaidPlanId }
  | { kind: 'topup'; pack: TopupPackId }
  | { kind: 'addon'; addon: AddonId }
  | { kind: 'extra_workspace'; plan: PaidPlanId };

/**
 * payment-stripe: Stripe through its SDK. Every mutating call carries an idempotency key
 * (derived from the caller's); prices are found by lookup key; webhooks are verified with the
 * endpoint's signing secret (or the Connect endpoint's) and a 300 s tolerance, then normalized.
 */
export class StripePaymentProvider extends AbstractPaymentProvider<StripePaymentOptions> {
  static override identifier = 'payment-stripe';
  static override optionsSchema = Joi.object<StripePaymentOptions>({
    ...paymentProviderOptionKeys,
    secretKey: Joi.string().pattern(/^(sk|rk)_/).required(),
    webhookSecret: Joi.string().min(16).required(),
    connectWebhookSecret: Joi.string().min(16),
    host: Joi.string().hostname(),
    port: Joi.number().integer().min(1).max(65535),
    protocol: Joi.string().valid('http', 'https'),
    lookupKeyPrefix: Joi.string().pattern(/^[a-z0-9_]*$/).default('patchwell_'),
    prorationBehavior: Joi.string().valid('always_invoice', 'create_prorations').default('always_invoice'),
    timeoutMs: Joi.number().integer().min(1000).default(20_000),
    maxNetworkRetries: Joi.number().integer().min(0).max(5).default(2),
    resaleOnBehalfOf: Joi.boolean().default(false),
  });

  readonly stripe: Stripe;
  private priceCache: { at: number; list: PriceList; byId: Map<string, PriceKind> } | null = null;

  constructor(options: StripePaymentOptions, deps?: ConstructorParameters<typeof AbstractPaymentProvider>[1]) {
    super(options, deps);
    const base = options.baseUrl ? new URL(options.baseUrl) : null;
    const protocol = options.protocol ?? (base ? (base.protocol.replace(':', '') as 'http' | 'https') : undefined);
    const host = options.host ?? base?.hostname;
    const port = options.port ?? (base?.port ? Number(base.port) : undefined);
    this.stripe = new Stripe(options.secretKey, {
      ...(host ? { host } : {}),
      ...(port ? { port } : {}),
      ...(protocol ? { protocol } : {}),
      timeout: options.timeoutMs,
      maxNetworkRetries: options.maxNetworkRetries,
      appInfo: { name: 'Patchwell' },
      telemetry: false,
    });
  }

  private lookupKey(k: PriceKind): string {
    const p = this.options.lookupKeyPrefix;
    if (k.kind === 'extra_workspace') return `${p}extra_workspace_${k.plan}`;
    return k.kind === 'plan' ? `${p}plan_${k.plan}` : k.kind === 'topup' ? `${p}topup_${k.pack}` : `${p}addon_${k.addon}`;
  }

  private allKinds(): PriceKind[] {
    return [
      ...PAID_PLAN_IDS.map((plan) => ({ kind: 'plan' as const, plan })),
      ...TOPUP_PACK_IDS.map((pack) => ({ kind: 'topup' as const, pack })),
      ...(['badge_removal', 'managed_workspace'] as const).map((addon) => ({ kind: 'addon' as const, addon })),
      ...PAID_PLAN_IDS.map((plan) => ({ kind: 'extra_workspace' as const, plan })),
    ];
  }

  async prices(): Promise<PriceList> {
    return (await this.priceIndex()).list;
  }

  private async priceIndex() {
    if (this.priceCache && Date.now() - this.priceCache.at < PRICE_TTL_MS) return this.priceCache;
    const kinds = this.allKinds();
    const byKey = new Map(kinds.map((k) => [this.lookupKey(k), k]));
    const found = await this.call(() => this.stripe.prices.list({ lookup_keys: [...byKey.keys()], active: true, limit: 100 }));
    const list: PriceList = { plans: [], topups: [], addons: [], items: [] };
    const byId = new Map<string, PriceKind>();
    for (const price of found.data) {
      const kind = price.lookup_key ? byKey.get(price.lookup_key) : undefined;
      if (!kind || price.unit_amount === null) continue;
      const amountUsd = price.unit_amount / 100;
      byId.set(price.id, kind);
      if (kind.kind === 'plan') list.plans.push({ plan: kind.plan, priceId: price.id, amountUsd, interval: price.recurring?.interval === 'year' ? 'year' : 'month' });
      else if (kind.kind === 'topup') list.topups.push({ pack: kind.pack, priceId: price.id, amountUsd, fixes: Number(price.metadata?.fixes ?? TOPUP_FIXES[kind.pack]) });
      else if (kind.kind === 'addon') list.addons!.push({ addon: kind.addon, priceId: price.id, amountUsd });
      else list.items!.push({ item: 'extra_workspace', plan: kind.plan, priceId: price.id, amountUsd });
    }
    this.priceCache = { at: Date.now(), list, byId };
    return this.priceCache;
  }

  private async priceId(kind: PriceKind): Promise<string> {
    const { list } = await this.priceIndex();
    const id =
      kind.kind === 'plan'
        ? list.plans.find((p) => p.plan === kind.plan && p.interval === 'month')?.priceId
        : kind.kind === 'topup'
          ? list.topups.find((p) => p.pack === kind.pack)?.priceId
          : kind.kind === 'addon'
            ? list.addons?.find((p) => p.addon === kind.addon)?.priceId
            : list.items?.find((p) => p.plan === kind.plan)?.priceId;
    if (!id) throw new AdapterError('price_missing', `no active Stripe price with lookup key ${this.lookupKey(kind)}`);
    return id;
  }

  async createCheckout(input: CheckoutInput, idempotencyKey: string): Promise<CheckoutSession> {
    const orgId = input.customer.orgId;
    const customerId =
      input.customer.customerId ??
      (await this.call(() =>
        this.stripe.customers.create(
          { email: input.customer.email || undefined, name: input.customer.name, metadata: { org_id: orgId } },
          { idempotencyKey: `${idempotencyKey}:customer` },
        ),
      )).id;
    const common = { customer: customerId, client_reference_id: orgId, success_url: input.successUrl, cancel_url: input.cancelUrl };
    const session =
      input.mode === 'subscription'
        ? await this.call(async () =>
            this.stripe.checkout.sessions.create(
              {
                ...common,
                mode: 'subscription',
                line_items: [{ price: await this.priceId({ kind: 'plan', plan: input.plan }), quantity: 1 }],
                payment_method_collection: 'always',
                subscription_data: { ...(input.trialDays > 0 ? { trial_period_days: input.trialDays } : {}), metadata: { org_id: orgId, plan: input.plan } },
                metadata: { org_id: orgId, kind: 'subscription', plan: input.plan },
              },
              { idempotencyKey },
            ),
          )
        : await this.call(async () =>
            this.stripe.checkout.sessions.create(
              {
                ...common,
                mode: 'payment',
                line_items: [{ price: await this.priceId({ kind: 'topup', pack: input.pack }), quantity: 1 }],
                payment_intent_data: { metadata: { org_id: orgId, kind: 'topup', pack: input.pack } },
                invoice_creation: { enabled: true, invoice_data: { metadata: { org_id: orgId, kind: 'topup', pack: input.pack } } },
                metadata: { org_id: orgId, kind: 'topup', pack: input.pack, fixes: String(this.fixesOf(input.pack)) },
              },
              { idempotencyKey },
            ),
          );
    if (!session.url) throw new AdapterError('checkout_without_url', 'Stripe answered a checkout session without a URL');
    return { checkoutId: session.id, url: session.url, customerId };
  }

  async createPortal(input: PortalInput, idempotencyKey: string): Promise<{ url: string }> {
    const session = await this.call(() => this.stripe.billingPortal.sessions.create({ customer: input.customerId, return_url: input.returnUrl }, { idempotencyKey }));
    return { url: session.url };
  }

  async changePlan(input: ChangePlanInput, idempotencyKey: string): Promise<SubscriptionState> {
    const sub = await this.call(() => this.stripe.subscriptions.retrieve(input.subscriptionId));
    const index = await this.priceIndex();
    const item = sub.items.data.find((i) => index.byId.get(i.price.id)?.kind === 'plan') ?? sub.items.data[0];
    if (!item) throw new AdapterError('subscription_without_items', `subscription ${sub.id} has no items`);
    const price = await this.priceId({ kind: 'plan', plan: input.plan });
    const items: Stripe.SubscriptionUpdateParams.Item[] = [{ id: item.id, price }];
    // Extra workspaces are priced per plan: their item follows the plan.
    const extra = sub.items.data.find((i) => index.byId.get(i.price.id)?.kind === 'extra_workspace');
    if (extra) items.push({ id: extra.id, price: await this.priceId({ kind: 'extra_workspace', plan: input.plan }), quantity: extra.quantity ?? 0 });
    const updated = await this.call(() =>
      this.stripe.subscriptions.update(
        input.subscriptionId,
        { items, proration_behavior: this.options.prorationBehavior, metadata: { plan: input.plan } },
        { idempotencyKey },
      ),
    );
    return this.state(updated);
  }

  async setSubscriptionItemQuantity(input: SetItemQuantityInput, idempotencyKey: string): Promise<SubscriptionState> {
    const sub = await this.call(() => this.stripe.subscriptions.retrieve(input.subscriptionId));
    const index = await this.priceIndex();
    const { plan } = subscriptionState(sub as unknown as StripeSubscriptionLike, index.byId);
    const price = await this.priceId({ kind: 'extra_workspace', plan });
    const existing = sub.items.data.find((i) => index.byId.get(i.price.id)?.kind === 'extra_workspace');
    let item: Stripe.SubscriptionUpdateParams.Item | null = null;
    if (existing && input.quantity === 0) item = { id: existing.id, deleted: true };
    else if (existing && (existing.quantity !== input.quantity || existing.price.id !== price)) item = { id: existing.id, price, quantity: input.quantity };
    else if (!existing && input.quantity > 0) item = { price, quantity: input.quantity };
    if (!item) return this.state(sub);
    const updated = await this.call(() => this.stripe.subscriptions.update(input.subscriptionId, { items: [item], proration_behavior: this.options.prorationBehavior }, { idempotencyKey }));
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
    const customer = await this.call(() =>
      this.stripe.customers.create({ email: input.client.email, name: input.client.name ?? undefined, metadata }, { idempotencyKey: `${idempotencyKey}:customer` }),
    );
    const session = await this.call(() =>
      this.stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          customer: customer.id,
          client_reference_id: input.orgId,
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
          payment_method_collection: 'always',
          line_items: [{ quantity: 1, price_data: { currency: this.options.currency ?? 'usd', unit_amount: cents(input.amountUsd), recurring: { interval: 'month' }, product_data: { name: input.description, metadata } } }],
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
    if (!session.url) throw new AdapterError('checkout_without_url', 'Stripe answered a checkout session without a URL');
    return { checkoutId: session.id, url: session.url, customerId: customer.id };
  }

  /** A new price from the next period (no proration): same product, a new inline price. */
  async updateResaleCollection(input: UpdateResaleInput, idempotencyKey: string): Promise<ResaleState> {
    const sub = await this.call(() => this.stripe.subscriptions.retrieve(input.subscriptionId));
    const item = sub.items.data[0];
    if (!item || sub.metadata?.kind !== 'resale') throw new AdapterError('not_supported', `subscription ${sub.id} is not a resale subscription`);
    const product = typeof item.price.product === 'string' ? item.price.product : item.price.product.id;
    const updated = await this.call(() =>
      this.stripe.subscriptions.update(
        input.subscriptionId,
        {
          items: [{ id: item.id, price_data: { currency: item.price.currency, product, unit_amount: cents(input.amountUsd), recurring: { interval: 'month' } } }],
          application_fee_percent: input.platformFeePercent,
          proration_behavior: 'none',
        },
        { idempotencyKey },
      ),
    );
    return resaleState(updated as unknown as StripeSubscriptionLike);
  }

  async stopResaleCollection(subscriptionId: string, idempotencyKey: string): Promise<ResaleState> {
    const updated = await this.call(() => this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }, { idempotencyKey }));
    return resaleState(updated as unknown as StripeSubscriptionLike);
  }

  async cancelAtPeriodEnd(subscriptionId: string, idempotencyKey: string): Promise<SubscriptionState> {
    const updated = await this.call(() => this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }, { idempotencyKey }));
    return this.state(updated);
  }

  async updateAddons(input: UpdateAddonsInput, idempotencyKey: string): Promise<SubscriptionState> {
    const sub = await this.call(() => this.stripe.subscriptions.retrieve(input.subscriptionId));
    const index = await this.priceIndex();
    const items: Stripe.SubscriptionUpdateParams.Item[] = [];
    for (const [addon, quantity] of Object.entries(input.addons) as [AddonId, number][]) {
      const existing = sub.items.data.find((i) => {
        const k = index.byId.get(i.price.id);
        return k?.kind === 'addon' && k.addon === addon;
      });
      if (existing) items.push(quantity > 0 ? { id: existing.id, quantity } : { id: existing.id, deleted: true });
      else if (quantity > 0) items.push({ price: await this.priceId({ kind: 'addon', addon }), quantity });
    }
    if (items.length === 0) return this.state(sub);
    const updated = await this.call(() => this.stripe.subscriptions.update(input.subscriptionId, { items, proration_behavior: this.options.prorationBehavior }, { idempotencyKey }));
    return this.state(updated);
  }

  async createConnectOnboarding(input: ConnectOnboardingInput, idempotencyKey: string): Promise<ConnectOnboarding> {
    const accountId =
      input.accountId ??
      (await this.call(() =>
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
      )).id;
    const link = await this.call(() =>
      this.stripe.accountLinks.create(
        { account: accountId, refresh_url: input.refreshUrl, return_url: input.returnUrl, type: 'account_onboarding' },
        { idempotencyKey: `${idempotencyKey}:link` },
      ),
    );
    return { accountId, url: link.url };
  }

  async parseWebhook(headers: RawHeaders, rawBody: Buffer): Promise<PaymentEvent> {
    const signature = headerValue(headers, 'stripe-signature');
    if (!signature) throw new PaymentSignatureError();
    const secrets = [this.options.webhookSecret, this.options.connectWebhookSecret].filter((s): s is string => Boolean(s));
    let verified = false;
    for (const secret of secrets) {
      try {
        this.stripe.webhooks.signature!.verifyHeader(rawBody, signature, secret, WEBHOOK_TOLERANCE_SECONDS);
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
    return normalizeStripeEvent(event, (await this.priceIndexOrNull())?.byId ?? new Map());
  }

  private async priceIndexOrNull() {
    try {
      return await this.priceIndex();
    } catch {
      return null;
    }
  }

  private async state(sub: Stripe.Subscription): Promise<SubscriptionState> {
    const index = await this.priceIndexOrNull();
    return subscriptionState(sub as unknown as StripeSubscriptionLike, index?.byId ?? new Map());
  }

  /** Stripe errors become AdapterErrors: not found, retryable (network, rate limit, 5xx) or not. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof AdapterError) throw err;
      const e = err as { type?: string; statusCode?: number; code?: string; message?: string };
      if (e.statusCode === 404 || e.code === 'resource_missing') throw new AdapterNotFoundError(e.message ?? 'not found at Stripe', { cause: err });
      const retryable = e.type === 'StripeConnectionError' || e.type === 'StripeRateLimitError' || e.type === 'StripeAPIError' || (e.statusCode ?? 0) >= 500;
      throw new AdapterError(retryable ? 'provider_unavailable' : 'provider_error', e.message ?? 'Stripe call failed', { retryable, cause: err, details: { stripe_type: e.type, stripe_code: e.code } });
    }
  }
}

const cents = (usd: number): number => Math.round(usd * 100);

export type { PriceKind };
export default adapterModule('payment', StripePaymentProvider);
