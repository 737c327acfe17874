import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import {
  AbstractPaymentProvider,
  AdapterError,
  AdapterNotFoundError,
  PAID_PLAN_IDS,
  PayloadError,
  PaymentSignatureError,
  TOPUP_PACK_IDS,
  adapterModule,
  type ChangePlanInput,
  type CheckoutInput,
  type CheckoutSession,
  type ConnectOnboarding,
  type ConnectOnboardingInput,
  type HostedPaymentPage,
  type PaymentEvent,
  type PaymentHost,
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
import { LocalClock, SimulatedTime } from './clock.js';
import { LocalEmitter } from './emitter.js';
import { decodeEvent, type LocalEventBody } from './events.js';
import { localPages } from './hosted.js';
import { LocalLedger } from './ledger.js';
import { round2 } from './money.js';
import { localOptionsSchema, type LocalPaymentOptions, type LocalRuntime } from './options.js';
import { LocalPageActions } from './page-actions.js';
import { LOCAL_SIGNATURE_HEADER, verifySignature } from './signature.js';
import { reviveDates, TEST_CARDS } from './states.js';
import { LocalStore, localId } from './store.js';
import { LocalSubscriptions } from './subscriptions.js';
import type { LocalAccount, LocalAccountLink, LocalCheckout, LocalCustomer, LocalPortal } from './types.js';

export type { LocalPaymentOptions } from './options.js';
export { prorate } from './money.js';
export { TEST_CARDS };

/**
 * payment-local: a simulated payment provider inside the service, the offline default. Hosted
 * checkout, portal and payout-onboarding pages are served by the service (`hostedPages`); what
 * the user does there is sent back as webhook events signed like Stripe's (`t=…,v1=…`, HMAC-SHA256,
 * 300 s tolerance) through the service's own webhook route, so every billing flow runs end to end
 * with no account anywhere. Its state (customers, subscriptions, invoices, payout accounts) lives
 * in `payment_local_objects`; a clock ends trials, renews and ends periods (`runClock`).
 *
 * This class is the contract's face: idempotency and the checkout sessions; the work is done by
 * its parts: subscriptions.ts (changes), page-actions.ts (the hosted pages), clock.ts, ledger.ts
 * (invoices, transfers) and emitter.ts (signed webhooks).
 */
export class LocalPaymentProvider extends AbstractPaymentProvider<LocalPaymentOptions> {
  static override identifier = 'payment-local';
  static override optionsSchema = localOptionsSchema;

  /** Secret of the webhooks; random per process unless configured (deliveries never leave the process). */
  readonly webhookSecret: string;
  private readonly store: LocalStore;
  private host: PaymentHost | null = null;
  private readonly publicBaseUrl: string;
  private readonly time = new SimulatedTime();
  private readonly events: LocalEmitter;
  private readonly subscriptions: LocalSubscriptions;
  private readonly pages: LocalPageActions;
  private readonly clock: LocalClock;

  constructor(options: LocalPaymentOptions, deps?: ConstructorParameters<typeof AbstractPaymentProvider>[1]) {
    super(options, deps);
    this.webhookSecret = options.webhookSecret ?? randomBytes(32).toString('hex');
    const db = deps?.db as Knex | undefined;
    if (!db)
      throw new AdapterError('missing_dependency', 'payment-local keeps its state in the database and needs deps.db');
    this.store = new LocalStore(db);
    const config = deps?.config as { server?: { publicBaseUrl?: string } } | undefined;
    this.publicBaseUrl = (options.publicBaseUrl ?? config?.server?.publicBaseUrl ?? 'http://localhost:3000').replace(
      /\/+$/,
      '',
    );
    const rt: LocalRuntime = {
      options: this.options,
      store: this.store,
      now: () => this.now(),
      url: (path) => this.url(path),
    };
    this.events = new LocalEmitter(
      rt,
      this.webhookSecret,
      () => this.host,
      this.deps.log as { warn?: (o: unknown, m: string) => void } | undefined,
    );
    const ledger = new LocalLedger(rt, this.events);
    this.subscriptions = new LocalSubscriptions(rt, ledger, this.events);
    this.pages = new LocalPageActions(rt, ledger, this.events, (pack) => this.fixesOf(pack));
    this.clock = new LocalClock(rt, this.time, ledger, this.events);
    const scheduler = deps?.scheduler as
      { add(task: { name: string; everyMs: number; runAtStart: boolean; run: () => Promise<void> }): void } | undefined;
    scheduler?.add({
      name: 'payment-local.clock',
      everyMs: options.clockEveryMs,
      runAtStart: false,
      run: async () => void (await this.runClock()),
    });
  }

  /** The simulated time: real time, moved forward by `runClock(at)`. */
  now(): Date {
    return this.time.now();
  }

  url(path: string): string {
    return `${this.host?.publicBaseUrl.replace(/\/+$/, '') ?? this.publicBaseUrl}${this.options.basePath}${path}`;
  }

  prices(): Promise<PriceList> {
    const p = this.options.prices;
    return Promise.resolve({
      plans: PAID_PLAN_IDS.map((plan) => ({
        plan,
        priceId: `price_local_${plan}`,
        amountUsd: p.plans[plan],
        interval: 'month' as const,
      })),
      topups: TOPUP_PACK_IDS.map((pack) => ({
        pack,
        priceId: `price_local_${pack}`,
        amountUsd: p.topups[pack],
        fixes: this.fixesOf(pack),
      })),
      addons: (['badge_removal', 'managed_workspace'] as const).map((addon) => ({
        addon,
        priceId: `price_local_${addon}`,
        amountUsd: p.addons[addon],
      })),
      items: PAID_PLAN_IDS.map((plan) => ({
        item: 'extra_workspace' as const,
        plan,
        priceId: `price_local_extra_workspace_${plan}`,
        amountUsd: p.extraWorkspace[plan],
      })),
    });
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
      if (!(await this.store.get<LocalCustomer>('customer', input.customerId)))
        throw new AdapterNotFoundError(`customer ${input.customerId} does not exist`);
      const doc: LocalPortal = {
        id: localId('portal'),
        customerId: input.customerId,
        returnUrl: input.returnUrl,
        expiresAt: new Date(Date.now() + 60 * 60_000).toISOString(),
      };
      await this.store.put('portal', doc);
      return { url: this.url(`/portal/${doc.id}`) };
    });
  }

  changePlan(input: ChangePlanInput, idempotencyKey: string): Promise<SubscriptionState> {
    return this.persistentOnce('plan', idempotencyKey, () => this.subscriptions.changePlan(input));
  }

  cancelAtPeriodEnd(subscriptionId: string, idempotencyKey: string): Promise<SubscriptionState> {
    return this.persistentOnce('cancel', idempotencyKey, () => this.subscriptions.cancelAtPeriodEnd(subscriptionId));
  }

  updateAddons(input: UpdateAddonsInput, idempotencyKey: string): Promise<SubscriptionState> {
    return this.persistentOnce('addons', idempotencyKey, () => this.subscriptions.updateAddons(input));
  }

  setSubscriptionItemQuantity(input: SetItemQuantityInput, idempotencyKey: string): Promise<SubscriptionState> {
    return this.persistentOnce('item', idempotencyKey, () => this.subscriptions.setSubscriptionItemQuantity(input));
  }

  startResaleCollection(input: ResaleCollectionInput, idempotencyKey: string): Promise<ResaleCollection> {
    return this.persistentOnce('resale', idempotencyKey, async () => {
      const account = await this.store.get<LocalAccount>('account', input.destinationAccountId);
      if (!account) throw new AdapterNotFoundError(`payout account ${input.destinationAccountId} does not exist`);
      if (!account.chargesEnabled || !account.payoutsEnabled)
        throw new AdapterError('account_not_ready', `payout account ${account.id} has not finished onboarding`);
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
        resale: {
          workspaceId: input.workspaceId,
          accountId: account.id,
          amountUsd: round2(input.amountUsd),
          feePercent: input.platformFeePercent,
          description: input.description,
        },
      });
    });
  }

  updateResaleCollection(input: UpdateResaleInput, idempotencyKey: string): Promise<ResaleState> {
    return this.persistentOnce('resale_update', idempotencyKey, () => this.subscriptions.updateResaleCollection(input));
  }

  stopResaleCollection(subscriptionId: string, idempotencyKey: string): Promise<ResaleState> {
    return this.persistentOnce('resale_stop', idempotencyKey, () =>
      this.subscriptions.stopResaleCollection(subscriptionId),
    );
  }

  createConnectOnboarding(input: ConnectOnboardingInput, idempotencyKey: string): Promise<ConnectOnboarding> {
    return this.persistentOnce('connect', idempotencyKey, async () => {
      let account = input.accountId ? await this.store.get<LocalAccount>('account', input.accountId) : null;
      if (input.accountId && !account)
        throw new AdapterNotFoundError(`payout account ${input.accountId} does not exist`);
      if (!account) {
        account = {
          id: localId('account'),
          orgId: input.orgId,
          country: input.country,
          email: input.email,
          businessName: null,
          chargesEnabled: false,
          payoutsEnabled: false,
          detailsSubmitted: false,
        };
        await this.store.put('account', account);
      }
      const link: LocalAccountLink = {
        id: localId('account_link'),
        accountId: account.id,
        returnUrl: input.returnUrl,
        refreshUrl: input.refreshUrl,
        used: false,
        expiresAt: new Date(Date.now() + 60 * 60_000).toISOString(),
      };
      await this.store.put('account_link', link);
      return { accountId: account.id, url: this.url(`/connect/${link.id}`) };
    });
  }

  parseWebhook(headers: RawHeaders, rawBody: Buffer): Promise<PaymentEvent> {
    // In the executor, a bad signature or body rejects the promise, as the contract has it.
    return new Promise((resolve) => {
      if (!verifySignature(headers, LOCAL_SIGNATURE_HEADER, this.webhookSecret, rawBody))
        throw new PaymentSignatureError();
      let body: LocalEventBody;
      try {
        body = JSON.parse(rawBody.toString('utf8')) as LocalEventBody;
      } catch {
        throw new PayloadError('the webhook body is not JSON');
      }
      resolve(decodeEvent(body));
    });
  }

  hostedPages(host: PaymentHost): HostedPaymentPage[] {
    this.host = host;
    return localPages(this);
  }

  // --- what the hosted pages and the clock do (page-actions.ts, clock.ts) -------------------

  /** Completes a checkout as the "Pay" button does. Answers the error shown on the page, or null. */
  completeCheckout(checkoutId: string, cardNumber: string): ReturnType<LocalPageActions['completeCheckout']> {
    return this.pages.completeCheckout(checkoutId, cardNumber);
  }

  /** Portal actions: cancel at period end, keep the subscription, replace the card (retrying what is due). */
  portalAction(portalId: string, action: string, cardNumber: string | undefined): Promise<boolean> {
    return this.pages.portalAction(portalId, action, cardNumber);
  }

  /** Completes payout onboarding as the form does; answers where to send the user. */
  completeOnboarding(linkId: string, businessName: string): Promise<string | null> {
    return this.pages.completeOnboarding(linkId, businessName);
  }

  checkout(id: string): Promise<LocalCheckout | null> {
    return this.pages.checkout(id);
  }

  portal(id: string): Promise<LocalPortal | null> {
    return this.pages.portal(id);
  }

  portalView(portal: LocalPortal): ReturnType<LocalPageActions['portalView']> {
    return this.pages.portalView(portal);
  }

  accountLink(id: string): ReturnType<LocalPageActions['accountLink']> {
    return this.pages.accountLink(id);
  }

  invoiceById(id: string): ReturnType<LocalPageActions['invoiceById']> {
    return this.pages.invoiceById(id);
  }

  /** The payout account and the transfers to it (what the agency has received). */
  payoutAccount(id: string): ReturnType<LocalPageActions['payoutAccount']> {
    return this.pages.payoutAccount(id);
  }

  /**
   * Moves the simulated clock to `at` (never back) and does what is due: trials end (first
   * charge), periods renew (or end), open checkouts expire. Answers how many subscriptions changed.
   */
  runClock(at?: Date): Promise<number> {
    return this.clock.run(at);
  }

  /** Signs a body as this provider does (tests, the contract kit). */
  sign(rawBody: Buffer | string, timestampSeconds?: number): Record<string, string> {
    return this.events.sign(rawBody, timestampSeconds);
  }

  // --- internals ---------------------------------------------------------------------------

  /** Stores an open checkout session (expiring after checkoutTtlMinutes) and answers its page link. */
  private async openCheckout(
    fields: Omit<LocalCheckout, 'id' | 'status' | 'subscriptionId' | 'expiresAt' | 'createdAt'>,
  ): Promise<CheckoutSession> {
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

export { TEST_CARDS as LOCAL_TEST_CARDS };
export default adapterModule('payment', LocalPaymentProvider);
