import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import type { Knex } from 'knex';
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
  paymentProviderOptionKeys,
  type AddonId,
  type ChangePlanInput,
  type CheckoutInput,
  type CheckoutSession,
  type ConnectOnboarding,
  type ConnectOnboardingInput,
  type HostedPaymentPage,
  type PaidPlanId,
  type PaymentEvent,
  type PaymentHost,
  type PaymentProviderOptions,
  type PaymentWebhookEndpoint,
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
import { localPages } from './hosted.js';
import { decodeEvent, type LocalEventBody } from './events.js';
import { LOCAL_SIGNATURE_HEADER, signPayload, verifySignature } from './signature.js';
import { LocalStore, localId } from './store.js';
import type { LocalAccount, LocalAccountLink, LocalCheckout, LocalCustomer, LocalInvoice, LocalPortal, LocalResale, LocalSubscription, LocalTransfer } from './types.js';

export interface LocalPaymentOptions extends PaymentProviderOptions {
  /** Where the hosted pages live on the service. */
  basePath: string;
  /** Base of page links; default the service's server.publicBaseUrl. */
  publicBaseUrl?: string;
  prices: { plans: Record<PaidPlanId, number>; topups: Record<TopupPackId, number>; addons: Record<AddonId, number>; extraWorkspace: Record<PaidPlanId, number> };
  checkoutTtlMinutes: number;
  /** How often the simulated clock ends trials and renews or ends periods (scheduler role). */
  clockEveryMs: number;
}

const DEFAULT_PRICES: LocalPaymentOptions['prices'] = {
  plans: { indie: 29, startup: 99, growth: 249, managed: 499, agency: 399 },
  topups: { topup_10: 30, topup_50: 125, topup_100: 200 },
  addons: { badge_removal: 19, managed_workspace: 149 },
  // The same numbers as billing's plan table (extra_workspace_price_usd).
  extraWorkspace: { indie: 15, startup: 15, growth: 12, managed: 25, agency: 9 },
};

const usdAmount = Joi.number().min(0).precision(2);

/** Card numbers with a scripted outcome (as Stripe's test cards). */
export const TEST_CARDS = { ok: '4242424242424242', declined: '4000000000000002', failsLater: '4000000000000341' } as const;

const LIVE = ['trialing', 'active', 'past_due'];

/**
 * payment-local: a simulated payment provider inside the service, the offline default. Hosted
 * checkout, portal and payout-onboarding pages are served by the service (`hostedPages`); what
 * the user does there is sent back as webhook events signed like Stripe's (`t=…,v1=…`, HMAC-SHA256,
 * 300 s tolerance) through the service's own webhook route, so every billing flow runs end to end
 * with no account anywhere. Its state (customers, subscriptions, invoices, payout accounts) lives
 * in `payment_local_objects`; a clock ends trials, renews and ends periods (`runClock`).
 */
export class LocalPaymentProvider extends AbstractPaymentProvider<LocalPaymentOptions> {
  static override identifier = 'payment-local';
  static override optionsSchema = Joi.object<LocalPaymentOptions>({
    ...paymentProviderOptionKeys,
    basePath: Joi.string().pattern(/^\/[a-z0-9/_-]*[a-z0-9]$/).default('/pay/local'),
    publicBaseUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
    prices: Joi.object({
      plans: Joi.object(Object.fromEntries(PAID_PLAN_IDS.map((p) => [p, usdAmount.default(DEFAULT_PRICES.plans[p])]))).default(),
      topups: Joi.object(Object.fromEntries(TOPUP_PACK_IDS.map((p) => [p, usdAmount.default(DEFAULT_PRICES.topups[p])]))).default(),
      addons: Joi.object({ badge_removal: usdAmount.default(19), managed_workspace: usdAmount.default(149) }).default(),
      extraWorkspace: Joi.object(Object.fromEntries(PAID_PLAN_IDS.map((p) => [p, usdAmount.default(DEFAULT_PRICES.extraWorkspace[p])]))).default(),
    }).default(),
    checkoutTtlMinutes: Joi.number().integer().min(1).max(7 * 24 * 60).default(24 * 60),
    clockEveryMs: Joi.number().integer().min(1000).default(60_000),
  });

  /** Secret of the webhooks; random per process unless configured (deliveries never leave the process). */
  readonly webhookSecret: string;
  private readonly store: LocalStore;
  private host: PaymentHost | null = null;
  private offsetMs = 0;
  private readonly publicBaseUrl: string;

  constructor(options: LocalPaymentOptions, deps?: ConstructorParameters<typeof AbstractPaymentProvider>[1]) {
    super(options, deps);
    this.webhookSecret = options.webhookSecret ?? randomBytes(32).toString('hex');
    const db = deps?.db as Knex | undefined;
    if (!db) throw new AdapterError('missing_dependency', 'payment-local keeps its state in the database and needs deps.db');
    this.store = new LocalStore(db);
    const config = deps?.config as { server?: { publicBaseUrl?: string } } | undefined;
    this.publicBaseUrl = (options.publicBaseUrl ?? config?.server?.publicBaseUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
    const scheduler = deps?.scheduler as { add(task: { name: string; everyMs: number; runAtStart: boolean; run: () => Promise<void> }): void } | undefined;
    scheduler?.add({ name: 'payment-local.clock', everyMs: options.clockEveryMs, runAtStart: false, run: async () => void (await this.runClock()) });
  }

  /** The simulated time: real time, moved forward by `runClock(at)`. */
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  url(path: string): string {
    return `${this.host?.publicBaseUrl.replace(/\/+$/, '') ?? this.publicBaseUrl}${this.options.basePath}${path}`;
  }

  async prices(): Promise<PriceList> {
    const p = this.options.prices;
    return {
      plans: PAID_PLAN_IDS.map((plan) => ({ plan, priceId: `price_local_${plan}`, amountUsd: p.plans[plan], interval: 'month' as const })),
      topups: TOPUP_PACK_IDS.map((pack) => ({ pack, priceId: `price_local_${pack}`, amountUsd: p.topups[pack], fixes: this.fixesOf(pack) })),
      addons: (['badge_removal', 'managed_workspace'] as const).map((addon) => ({ addon, priceId: `price_local_${addon}`, amountUsd: p.addons[addon] })),
      items: PAID_PLAN_IDS.map((plan) => ({ item: 'extra_workspace' as const, plan, priceId: `price_local_extra_workspace_${plan}`, amountUsd: p.extraWorkspace[plan] })),
    };
  }

  createCheckout(input: CheckoutInput, idempotencyKey: string): Promise<CheckoutSession> {
    return this.persistentOnce('checkout', idempotencyKey, async () => {
      return this.openCheckout({
        mode: input.mode,
        plan: input.mode === 'subscription' ? input.plan : null,
        pack: input.mode === 'topup' ? input.pack : null,
        trialDays: input.mode === 'subscription' ? input.trialDays : 0,
        orgId: input.customer.orgId,
        customerId: input.customer.customerId ?? null,
        email: input.customer.email,
        name: input.customer.name ?? null,
        successUrl: input.successUrl,
        cancelUrl: input.cancelUrl,
      });
    });
  }

  createPortal(input: PortalInput, idempotencyKey: string): Promise<{ url: string }> {
    return this.persistentOnce('portal', idempotencyKey, async () => {
      if (!(await this.store.get<LocalCustomer>('customer', input.customerId))) throw new AdapterNotFoundError(`customer ${input.customerId} does not exist`);
      const doc: LocalPortal = { id: localId('portal'), customerId: input.customerId, returnUrl: input.returnUrl, expiresAt: new Date(Date.now() + 60 * 60_000).toISOString() };
      await this.store.put('portal', doc);
      return { url: this.url(`/portal/${doc.id}`) };
    });
  }

  changePlan(input: ChangePlanInput, idempotencyKey: string): Promise<SubscriptionState> {
    return this.persistentOnce('plan', idempotencyKey, async () => {
      const sub = await this.liveSubscription(input.subscriptionId);
      if (sub.plan === input.plan) return toState(sub);
      const prices = this.options.prices.plans;
      const extra = (sub.extraWorkspaces ?? 0) * (this.options.prices.extraWorkspace[input.plan] - this.options.prices.extraWorkspace[sub.plan]);
      const charge = sub.status === 'trialing' ? 0 : prorate(prices[input.plan] - prices[sub.plan] + extra, sub, this.now());
      const before = sub.plan;
      sub.plan = input.plan;
      await this.store.put('subscription', sub);
      await this.emitSubscription(sub, 'subscription.updated');
      await this.settleProration(sub, charge, `plan ${before} → ${input.plan}`);
      return toState(sub);
    });
  }

  cancelAtPeriodEnd(subscriptionId: string, idempotencyKey: string): Promise<SubscriptionState> {
    return this.persistentOnce('cancel', idempotencyKey, async () => {
      const sub = await this.liveSubscription(subscriptionId);
      if (!sub.cancelAtPeriodEnd) {
        sub.cancelAtPeriodEnd = true;
        await this.store.put('subscription', sub);
        await this.emitSubscription(sub, 'subscription.updated');
      }
      return toState(sub);
    });
  }

  updateAddons(input: UpdateAddonsInput, idempotencyKey: string): Promise<SubscriptionState> {
    return this.persistentOnce('addons', idempotencyKey, async () => {
      const sub = await this.liveSubscription(input.subscriptionId);
      let delta = 0;
      for (const [addon, qty] of Object.entries(input.addons) as [AddonId, number][]) {
        delta += (qty - (sub.addons[addon] ?? 0)) * this.options.prices.addons[addon];
        sub.addons[addon] = qty;
      }
      await this.store.put('subscription', sub);
      await this.emitSubscription(sub, 'subscription.updated');
      await this.settleProration(sub, sub.status === 'trialing' ? 0 : prorate(delta, sub, this.now()), 'add-ons');
      return toState(sub);
    });
  }

  setSubscriptionItemQuantity(input: SetItemQuantityInput, idempotencyKey: string): Promise<SubscriptionState> {
    return this.persistentOnce('item', idempotencyKey, async () => {
      const sub = await this.liveSubscription(input.subscriptionId);
      if (sub.resale) throw new AdapterError('not_supported', `subscription ${sub.id} is a resale subscription`);
      const before = sub.extraWorkspaces ?? 0;
      if (before === input.quantity) return toState(sub);
      sub.extraWorkspaces = input.quantity;
      await this.store.put('subscription', sub);
      await this.emitSubscription(sub, 'subscription.updated');
      const delta = (input.quantity - before) * this.options.prices.extraWorkspace[sub.plan];
      await this.settleProration(sub, sub.status === 'trialing' ? 0 : prorate(delta, sub, this.now()), `extra workspaces ${before} → ${input.quantity}`);
      return toState(sub);
    });
  }

  startResaleCollection(input: ResaleCollectionInput, idempotencyKey: string): Promise<ResaleCollection> {
    return this.persistentOnce('resale', idempotencyKey, async () => {
      const account = await this.store.get<LocalAccount>('account', input.destinationAccountId);
      if (!account) throw new AdapterNotFoundError(`payout account ${input.destinationAccountId} does not exist`);
      if (!account.chargesEnabled || !account.payoutsEnabled) throw new AdapterError('account_not_ready', `payout account ${account.id} has not finished onboarding`);
      return this.openCheckout({
        mode: 'resale',
        plan: null,
        pack: null,
        trialDays: 0,
        orgId: input.orgId,
        customerId: null,
        email: input.client.email,
        name: input.client.name ?? null,
        successUrl: input.successUrl,
        cancelUrl: input.cancelUrl,
        resale: { workspaceId: input.workspaceId, accountId: account.id, amountUsd: round2(input.amountUsd), feePercent: input.platformFeePercent, description: input.description },
      });
    });
  }

  updateResaleCollection(input: UpdateResaleInput, idempotencyKey: string): Promise<ResaleState> {
    return this.persistentOnce('resale_update', idempotencyKey, async () => {
      const sub = await this.liveSubscription(input.subscriptionId);
      if (!sub.resale) throw new AdapterError('not_supported', `subscription ${sub.id} is not a resale subscription`);
      sub.resale.amountUsd = round2(input.amountUsd);
      sub.resale.feePercent = input.platformFeePercent;
      await this.store.put('subscription', sub);
      await this.emitResale(sub);
      return toResaleState(sub);
    });
  }

  stopResaleCollection(subscriptionId: string, idempotencyKey: string): Promise<ResaleState> {
    return this.persistentOnce('resale_stop', idempotencyKey, async () => {
      const sub = await this.liveSubscription(subscriptionId);
      if (!sub.resale) throw new AdapterError('not_supported', `subscription ${sub.id} is not a resale subscription`);
      if (!sub.cancelAtPeriodEnd) {
        sub.cancelAtPeriodEnd = true;
        await this.store.put('subscription', sub);
        await this.emitResale(sub);
      }
      return toResaleState(sub);
    });
  }

  createConnectOnboarding(input: ConnectOnboardingInput, idempotencyKey: string): Promise<ConnectOnboarding> {
    return this.persistentOnce('connect', idempotencyKey, async () => {
      let account = input.accountId ? await this.store.get<LocalAccount>('account', input.accountId) : null;
      if (input.accountId && !account) throw new AdapterNotFoundError(`payout account ${input.accountId} does not exist`);
      if (!account) {
        account = { id: localId('account'), orgId: input.orgId, country: input.country, email: input.email, businessName: null, chargesEnabled: false, payoutsEnabled: false, detailsSubmitted: false };
        await this.store.put('account', account);
      }
      const link: LocalAccountLink = { id: localId('account_link'), accountId: account.id, returnUrl: input.returnUrl, refreshUrl: input.refreshUrl, used: false, expiresAt: new Date(Date.now() + 60 * 60_000).toISOString() };
      await this.store.put('account_link', link);
      return { accountId: account.id, url: this.url(`/connect/${link.id}`) };
    });
  }

  async parseWebhook(headers: RawHeaders, rawBody: Buffer): Promise<PaymentEvent> {
    if (!verifySignature(headers, LOCAL_SIGNATURE_HEADER, this.webhookSecret, rawBody)) throw new PaymentSignatureError();
    let body: LocalEventBody;
    try {
      body = JSON.parse(rawBody.toString('utf8')) as LocalEventBody;
    } catch {
      throw new PayloadError('the webhook body is not JSON');
    }
    return decodeEvent(body);
  }

  hostedPages(host: PaymentHost): HostedPaymentPage[] {
    this.host = host;
    return localPages(this);
  }

  // --- what the hosted pages and the clock do ------------------------------------------------

  /** Completes a checkout as the "Pay" button does. Answers the error shown on the page, or null. */
  async completeCheckout(checkoutId: string, cardNumber: string): Promise<{ error: 'gone' | 'declined' } | { redirect: string; subscriptionId: string | null; customerId: string }> {
    const checkout = await this.store.get<LocalCheckout>('checkout', checkoutId);
    const now = this.now();
    if (!checkout || checkout.status !== 'open' || new Date(checkout.expiresAt) <= now) return { error: 'gone' };
    const card = cardNumber.replace(/\D/g, '');
    const trial = checkout.mode === 'subscription' && checkout.trialDays > 0;
    if (card === TEST_CARDS.declined || card.length < 12 || (card === TEST_CARDS.failsLater && !trial)) return { error: 'declined' };

    if (checkout.mode === 'resale') return this.completeResale(checkout, card, now);
    const customer = await this.customerFor(checkout, card);
    checkout.status = 'complete';
    checkout.customerId = customer.id;
    if (checkout.mode === 'topup') {
      const pack = checkout.pack!;
      const amount = this.options.prices.topups[pack];
      const paymentId = `pi_local_${randomBytes(12).toString('hex')}`;
      await this.store.put('checkout', checkout);
      const invoice = await this.invoice({ customer, subscriptionId: null, purpose: 'topup', amount, status: 'paid', periodStart: null, periodEnd: null, line: `${TOPUP_FIXES[pack]} fixes` });
      await this.emit('checkout.completed', checkout.orgId, { checkoutId: checkout.id, mode: 'topup', customerId: customer.id, subscriptionId: null }, now);
      await this.emit('topup.paid', checkout.orgId, { pack, fixes: this.fixesOf(pack), amountUsd: amount, paymentId, customerId: customer.id }, now);
      await this.emitInvoice(invoice, now);
      return { redirect: checkout.successUrl, subscriptionId: null, customerId: customer.id };
    }

    const plan = checkout.plan!;
    const end = trial ? addDays(now, checkout.trialDays) : addMonths(now, 1);
    const sub: LocalSubscription = {
      id: localId('subscription'),
      customerId: customer.id,
      orgId: checkout.orgId,
      plan,
      status: trial ? 'trialing' : 'active',
      currentPeriodStart: now.toISOString(),
      currentPeriodEnd: end.toISOString(),
      trialEndsAt: trial ? end.toISOString() : null,
      cancelAtPeriodEnd: false,
      addons: {},
    };
    await this.store.put('subscription', sub);
    checkout.subscriptionId = sub.id;
    await this.store.put('checkout', checkout);
    const invoice = await this.invoice({ customer, subscriptionId: sub.id, purpose: 'subscription', amount: trial ? 0 : this.options.prices.plans[plan], status: 'paid', periodStart: now, periodEnd: end, line: trial ? `${plan} trial` : `${plan} plan` });
    await this.emit('checkout.completed', checkout.orgId, { checkoutId: checkout.id, mode: 'subscription', customerId: customer.id, subscriptionId: sub.id }, now);
    await this.emitSubscription(sub, 'subscription.updated', now);
    await this.emitInvoice(invoice, now);
    return { redirect: checkout.successUrl, subscriptionId: sub.id, customerId: customer.id };
  }

  /** Portal actions: cancel at period end, keep the subscription, replace the card (retrying what is due). */
  async portalAction(portalId: string, action: string, cardNumber: string | undefined): Promise<boolean> {
    const portal = await this.portal(portalId);
    if (!portal) return false;
    const customer = (await this.store.get<LocalCustomer>('customer', portal.customerId))!;
    const subs = await this.store.list<LocalSubscription>('subscription', { where: { customerId: customer.id }, in: ['status', LIVE] });
    if (action === 'cancel' || action === 'resume') {
      for (const sub of subs) {
        sub.cancelAtPeriodEnd = action === 'cancel';
        await this.store.put('subscription', sub);
        await this.emitSubscription(sub, 'subscription.updated');
      }
      return true;
    }
    if (action === 'update_card' && cardNumber) {
      const card = cardNumber.replace(/\D/g, '');
      if (card === TEST_CARDS.declined || card.length < 12) return false;
      customer.card = { last4: card.slice(-4), failing: card === TEST_CARDS.failsLater };
      await this.store.put('customer', customer);
      await this.emit('customer.updated', customer.orgId, { customerId: customer.id }, this.now());
      if (customer.card.failing) return true;
      const open = await this.store.list<LocalInvoice>('invoice', { where: { customerId: customer.id, status: 'open' } });
      for (const inv of open) {
        inv.status = 'paid';
        inv.amountPaidUsd = inv.amountDueUsd;
        await this.store.put('invoice', inv);
        await this.emitInvoice(inv, this.now());
      }
      for (const sub of subs.filter((s) => s.status === 'past_due')) {
        sub.status = 'active';
        await this.store.put('subscription', sub);
        await this.emitSubscription(sub, 'subscription.updated');
      }
      return true;
    }
    return false;
  }

  /** Completes payout onboarding as the form does; answers where to send the user. */
  async completeOnboarding(linkId: string, businessName: string): Promise<string | null> {
    const link = await this.store.get<LocalAccountLink>('account_link', linkId);
    if (!link) return null;
    if (link.used || new Date(link.expiresAt) <= new Date()) return link.refreshUrl;
    const account = (await this.store.get<LocalAccount>('account', link.accountId))!;
    Object.assign(account, { businessName: businessName || account.email, detailsSubmitted: true, chargesEnabled: true, payoutsEnabled: true });
    await this.store.put('account', account);
    link.used = true;
    await this.store.put('account_link', link);
    await this.emit('account.updated', account.orgId, { accountId: account.id, chargesEnabled: true, payoutsEnabled: true, detailsSubmitted: true }, this.now(), 'connect');
    return link.returnUrl;
  }

  /**
   * Moves the simulated clock to `at` (never back) and does what is due: trials end (first
   * charge), periods renew (or the subscription ends when canceled at period end, or after a
   * past-due period), open checkouts expire. Answers how many subscriptions changed.
   */
  async runClock(at?: Date): Promise<number> {
    if (at && at.getTime() > this.now().getTime()) this.offsetMs = at.getTime() - Date.now();
    const now = this.now();
    let changed = 0;
    for (let round = 0; round < 60; round++) {
      const due = await this.store.list<LocalSubscription>('subscription', { in: ['status', LIVE], dueField: 'currentPeriodEnd', dueBefore: now });
      if (due.length === 0) break;
      for (const sub of due) {
        await this.advance(sub);
        changed++;
      }
    }
    for (const c of await this.store.list<LocalCheckout>('checkout', { where: { status: 'open' }, dueField: 'expiresAt', dueBefore: now })) {
      c.status = 'expired';
      await this.store.put('checkout', c);
    }
    return changed;
  }

  async checkout(id: string): Promise<LocalCheckout | null> {
    return this.store.get<LocalCheckout>('checkout', id);
  }

  async portal(id: string): Promise<LocalPortal | null> {
    const p = await this.store.get<LocalPortal>('portal', id);
    return p && new Date(p.expiresAt) > new Date() ? p : null;
  }

  async portalView(portal: LocalPortal) {
    const customer = await this.store.get<LocalCustomer>('customer', portal.customerId);
    const subscriptions = await this.store.list<LocalSubscription>('subscription', { where: { customerId: portal.customerId } });
    const invoices = await this.store.list<LocalInvoice>('invoice', { where: { customerId: portal.customerId } });
    return { customer, subscriptions, invoices: invoices.reverse() };
  }

  async accountLink(id: string): Promise<{ link: LocalAccountLink; account: LocalAccount } | null> {
    const link = await this.store.get<LocalAccountLink>('account_link', id);
    if (!link) return null;
    return { link, account: (await this.store.get<LocalAccount>('account', link.accountId))! };
  }

  async invoiceById(id: string): Promise<LocalInvoice | null> {
    return this.store.get<LocalInvoice>('invoice', id);
  }

  /** The payout account and the transfers to it (what the agency has received). */
  async payoutAccount(id: string): Promise<{ account: LocalAccount; transfers: LocalTransfer[] } | null> {
    const account = await this.store.get<LocalAccount>('account', id);
    if (!account) return null;
    return { account, transfers: await this.store.list<LocalTransfer>('transfer', { where: { accountId: id } }) };
  }

  // --- internals ---------------------------------------------------------------------------

  /** Stores an open checkout session (expiring after checkoutTtlMinutes) and answers its page link. */
  private async openCheckout(fields: Omit<LocalCheckout, 'id' | 'status' | 'subscriptionId' | 'expiresAt' | 'createdAt'>): Promise<CheckoutSession> {
    const now = this.now();
    const doc: LocalCheckout = {
      id: localId('checkout'),
      ...fields,
      status: 'open',
      subscriptionId: null,
      expiresAt: new Date(now.getTime() + this.options.checkoutTtlMinutes * 60_000).toISOString(),
      createdAt: now.toISOString(),
    };
    await this.store.put('checkout', doc);
    return { checkoutId: doc.id, url: this.url(`/checkout/${doc.id}`), customerId: doc.customerId };
  }

  /** The client pays the first month: a subscription on the platform whose payments go to the payout account. */
  private async completeResale(checkout: LocalCheckout, card: string, now: Date) {
    const resale = checkout.resale!;
    const customer: LocalCustomer = { id: localId('customer'), orgId: checkout.orgId, email: checkout.email, name: checkout.name, card: { last4: card.slice(-4), failing: card === TEST_CARDS.failsLater }, balanceUsd: 0, workspaceId: resale.workspaceId };
    await this.store.put('customer', customer);
    const sub: LocalSubscription = {
      id: localId('subscription'),
      customerId: customer.id,
      orgId: checkout.orgId,
      plan: 'agency',
      status: 'active',
      currentPeriodStart: now.toISOString(),
      currentPeriodEnd: addMonths(now, 1).toISOString(),
      trialEndsAt: null,
      cancelAtPeriodEnd: false,
      addons: {},
      resale: { ...resale },
    };
    await this.store.put('subscription', sub);
    Object.assign(checkout, { status: 'complete', customerId: customer.id, subscriptionId: sub.id });
    await this.store.put('checkout', checkout);
    const invoice = await this.chargeResale(sub, customer, now, new Date(sub.currentPeriodEnd));
    await this.emit('checkout.completed', checkout.orgId, { checkoutId: checkout.id, mode: 'resale', customerId: customer.id, subscriptionId: sub.id }, now);
    await this.emitResale(sub, now);
    await this.emitInvoice(invoice, now);
    return { redirect: checkout.successUrl, subscriptionId: sub.id, customerId: customer.id };
  }

  /** One period of a resale subscription: the invoice, and when paid the transfer to the payout account minus the platform fee. */
  private async chargeResale(sub: LocalSubscription, customer: LocalCustomer, start: Date, end: Date): Promise<LocalInvoice> {
    const resale = sub.resale!;
    const failing = customer.card?.failing ?? false;
    const invoice = await this.invoice({ customer, subscriptionId: sub.id, purpose: 'resale', amount: resale.amountUsd, status: failing ? 'open' : 'paid', periodStart: start, periodEnd: end, line: resale.description });
    invoice.workspaceId = resale.workspaceId;
    invoice.transfer = null;
    if (!failing) await this.transfer(invoice, resale);
    return this.store.put('invoice', invoice);
  }

  private async transfer(invoice: LocalInvoice, resale: LocalResale): Promise<void> {
    const fee = round2((invoice.amountPaidUsd * resale.feePercent) / 100);
    const amount = round2(invoice.amountPaidUsd - fee);
    const doc: LocalTransfer = { id: localId('transfer'), accountId: resale.accountId, invoiceId: invoice.id, workspaceId: resale.workspaceId, amountUsd: amount, feeUsd: fee, createdAt: this.now().toISOString() };
    await this.store.put('transfer', doc);
    const account = await this.store.get<LocalAccount>('account', resale.accountId);
    if (account) {
      account.balanceUsd = round2((account.balanceUsd ?? 0) + amount);
      await this.store.put('account', account);
    }
    invoice.transfer = { accountId: resale.accountId, amountUsd: amount, feeUsd: fee, transferId: doc.id };
  }

  private async advance(sub: LocalSubscription): Promise<void> {
    if (sub.resale) return this.advanceResale(sub);
    const at = new Date(sub.currentPeriodEnd);
    if (sub.cancelAtPeriodEnd || sub.status === 'past_due') {
      sub.status = 'canceled';
      await this.store.put('subscription', sub);
      await this.emitSubscription(sub, 'subscription.deleted', at);
      return;
    }
    const customer = (await this.store.get<LocalCustomer>('customer', sub.customerId))!;
    const start = at;
    const end = addMonths(start, 1);
    let amount = this.options.prices.plans[sub.plan];
    for (const [addon, qty] of Object.entries(sub.addons) as [AddonId, number][]) amount += qty * this.options.prices.addons[addon];
    const extra = sub.extraWorkspaces ?? 0;
    amount += extra * this.options.prices.extraWorkspace[sub.plan];
    const credit = Math.min(customer.balanceUsd, amount);
    customer.balanceUsd = round2(customer.balanceUsd - credit);
    await this.store.put('customer', customer);
    const failing = customer.card?.failing ?? false;
    sub.currentPeriodStart = start.toISOString();
    sub.currentPeriodEnd = end.toISOString();
    sub.status = failing ? 'past_due' : 'active';
    await this.store.put('subscription', sub);
    const line = extra > 0 ? `${sub.plan} plan + ${extra} extra workspace${extra === 1 ? '' : 's'} × ${this.options.prices.extraWorkspace[sub.plan].toFixed(2)} USD` : `${sub.plan} plan`;
    const invoice = await this.invoice({ customer, subscriptionId: sub.id, purpose: 'subscription', amount: round2(amount - credit), status: failing ? 'open' : 'paid', periodStart: start, periodEnd: end, line });
    await this.emitSubscription(sub, 'subscription.updated', at);
    await this.emitInvoice(invoice, at);
  }

  /** A resale period ends: renewed and charged (past due with a failing card), or ended. */
  private async advanceResale(sub: LocalSubscription): Promise<void> {
    const at = new Date(sub.currentPeriodEnd);
    if (sub.cancelAtPeriodEnd || sub.status === 'past_due') {
      sub.status = 'canceled';
      await this.store.put('subscription', sub);
      await this.emitResale(sub, at);
      return;
    }
    const customer = (await this.store.get<LocalCustomer>('customer', sub.customerId))!;
    const end = addMonths(at, 1);
    sub.currentPeriodStart = at.toISOString();
    sub.currentPeriodEnd = end.toISOString();
    sub.status = customer.card?.failing ? 'past_due' : 'active';
    await this.store.put('subscription', sub);
    const invoice = await this.chargeResale(sub, customer, at, end);
    await this.emitResale(sub, at);
    await this.emitInvoice(invoice, at);
  }

  private async settleProration(sub: LocalSubscription, amount: number, line: string): Promise<void> {
    if (amount === 0) return;
    const customer = (await this.store.get<LocalCustomer>('customer', sub.customerId))!;
    if (amount < 0) {
      customer.balanceUsd = round2(customer.balanceUsd - amount);
      await this.store.put('customer', customer);
      return;
    }
    const failing = customer.card?.failing ?? false;
    const invoice = await this.invoice({ customer, subscriptionId: sub.id, purpose: 'subscription', amount, status: failing ? 'open' : 'paid', periodStart: this.now(), periodEnd: new Date(sub.currentPeriodEnd), line: `proration: ${line}` });
    await this.emitInvoice(invoice, this.now());
  }

  private async liveSubscription(id: string): Promise<LocalSubscription> {
    const sub = await this.store.get<LocalSubscription>('subscription', id);
    if (!sub) throw new AdapterNotFoundError(`subscription ${id} does not exist`);
    if (!LIVE.includes(sub.status)) throw new AdapterError('subscription_canceled', `subscription ${id} is ${sub.status}`);
    return sub;
  }

  private async customerFor(checkout: LocalCheckout, card: string): Promise<LocalCustomer> {
    // An agency's clients are customers too (resale); the organization's own customer is the one without a workspace.
    const existing = checkout.customerId ? await this.store.get<LocalCustomer>('customer', checkout.customerId) : (await this.store.list<LocalCustomer>('customer', { where: { orgId: checkout.orgId } }, (c) => !c.workspaceId))[0] ?? null;
    const customer: LocalCustomer = existing ?? { id: localId('customer'), orgId: checkout.orgId, email: checkout.email, name: checkout.name, card: null, balanceUsd: 0 };
    customer.card = { last4: card.slice(-4), failing: card === TEST_CARDS.failsLater };
    return this.store.put('customer', customer);
  }

  private async invoice(x: { customer: LocalCustomer; subscriptionId: string | null; purpose: 'subscription' | 'topup' | 'resale'; amount: number; status: 'paid' | 'open'; periodStart: Date | null; periodEnd: Date | null; line: string }): Promise<LocalInvoice> {
    const count = await this.store.count('invoice');
    const doc: LocalInvoice = {
      id: localId('invoice'),
      number: `LOCAL-${String(count + 1).padStart(6, '0')}`,
      customerId: x.customer.id,
      orgId: x.customer.orgId,
      subscriptionId: x.subscriptionId,
      purpose: x.purpose,
      status: x.status,
      amountDueUsd: round2(x.amount),
      amountPaidUsd: x.status === 'paid' ? round2(x.amount) : 0,
      currency: this.options.currency ?? 'usd',
      periodStart: x.periodStart?.toISOString() ?? null,
      periodEnd: x.periodEnd?.toISOString() ?? null,
      line: x.line,
      createdAt: this.now().toISOString(),
    };
    await this.store.put('invoice', doc);
    return doc;
  }

  private async emitSubscription(sub: LocalSubscription, type: 'subscription.updated' | 'subscription.deleted', at = this.now()): Promise<void> {
    await this.emit(type, sub.orgId, { subscription: toState(sub) }, at);
  }

  private async emitInvoice(inv: LocalInvoice, at: Date): Promise<void> {
    await this.emit(inv.status === 'paid' ? 'invoice.paid' : 'invoice.payment_failed', inv.orgId, {
      invoice: {
        invoiceId: inv.id,
        number: inv.number,
        customerId: inv.customerId,
        subscriptionId: inv.subscriptionId,
        purpose: inv.purpose,
        status: inv.status,
        amountPaidUsd: inv.amountPaidUsd,
        amountDueUsd: inv.amountDueUsd,
        currency: inv.currency,
        periodStart: inv.periodStart,
        periodEnd: inv.periodEnd,
        hostedInvoiceUrl: this.url(`/invoices/${inv.id}`),
        ...(inv.purpose === 'resale'
          ? { workspaceId: inv.workspaceId ?? null, transfer: inv.transfer ? { destinationAccountId: inv.transfer.accountId, amountUsd: inv.transfer.amountUsd, platformFeeUsd: inv.transfer.feeUsd } : null }
          : {}),
      },
    }, at);
  }

  private async emitResale(sub: LocalSubscription, at = this.now()): Promise<void> {
    await this.emit('resale.updated', sub.orgId, { resale: toResaleState(sub) }, at);
  }

  /** Signs an event and hands it to the service's webhook, in process. */
  async emit(type: string, orgId: string | null, data: Record<string, unknown>, occurredAt: Date, endpoint: PaymentWebhookEndpoint = 'account'): Promise<number | null> {
    const body: LocalEventBody = { id: `evt_local_${randomBytes(12).toString('hex')}`, type, created: occurredAt.toISOString(), org_id: orgId, data };
    const raw = Buffer.from(JSON.stringify(body));
    if (!this.host) return null;
    const status = await this.host.deliverWebhook({ headers: { [LOCAL_SIGNATURE_HEADER]: signPayload(this.webhookSecret, raw) }, rawBody: raw }, endpoint);
    if (status >= 300) (this.deps.log as { warn?: (o: unknown, m: string) => void } | undefined)?.warn?.({ type, status }, 'payment-local webhook refused');
    return status;
  }

  /** Signs a body as this provider does (tests, the contract kit). */
  sign(rawBody: Buffer | string, timestampSeconds?: number): Record<string, string> {
    return { [LOCAL_SIGNATURE_HEADER]: signPayload(this.webhookSecret, rawBody, timestampSeconds) };
  }

  /** Idempotency that survives restarts: the first answer for a key is stored and repeated. */
  private persistentOnce<T>(operation: string, key: string, fn: () => Promise<T>): Promise<T> {
    return this.once(operation, key, async () => {
      const id = `idem_${operation}_${key}`.slice(0, 400);
      const known = await this.store.get<{ id: string; value: T }>('idempotency', id);
      if (known) return reviveDates(known.value);
      const value = await fn();
      const stored = await this.store.putIfAbsent('idempotency', { id, value });
      return stored.value === value ? value : reviveDates(stored.value);
    });
  }
}

/** Dates of a stored answer (SubscriptionState) come back as Dates. */
function reviveDates<T>(value: T): T {
  if (!value || typeof value !== 'object') return value;
  const out = { ...(value as Record<string, unknown>) };
  for (const k of ['currentPeriodStart', 'currentPeriodEnd', 'trialEndsAt']) if (typeof out[k] === 'string') out[k] = new Date(out[k] as string);
  return out as T;
}

function toResaleState(sub: LocalSubscription): ResaleState {
  return {
    subscriptionId: sub.id,
    customerId: sub.customerId,
    workspaceId: sub.resale!.workspaceId,
    status: sub.status,
    amountUsd: sub.resale!.amountUsd,
    currentPeriodStart: new Date(sub.currentPeriodStart),
    currentPeriodEnd: new Date(sub.currentPeriodEnd),
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
  };
}

function toState(sub: LocalSubscription): SubscriptionState {
  return {
    subscriptionId: sub.id,
    customerId: sub.customerId,
    plan: sub.plan,
    status: sub.status,
    currentPeriodStart: new Date(sub.currentPeriodStart),
    currentPeriodEnd: new Date(sub.currentPeriodEnd),
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
    trialEndsAt: sub.trialEndsAt ? new Date(sub.trialEndsAt) : null,
  };
}

/** The share of a monthly amount for what is left of the period (the simulated provider's own proration). */
export function prorate(monthlyDelta: number, sub: { currentPeriodStart: string; currentPeriodEnd: string }, now: Date): number {
  const start = new Date(sub.currentPeriodStart).getTime();
  const end = new Date(sub.currentPeriodEnd).getTime();
  const left = Math.min(1, Math.max(0, (end - now.getTime()) / Math.max(1, end - start)));
  return round2(monthlyDelta * left);
}

const round2 = (v: number) => Math.round(v * 100) / 100;

function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * 86_400_000);
}

function addMonths(d: Date, months: number): Date {
  const r = new Date(d);
  r.setUTCMonth(r.getUTCMonth() + months);
  return r;
}

export { TEST_CARDS as LOCAL_TEST_CARDS };
export default adapterModule('payment', LocalPaymentProvider);
