/**
 * Contract kit of PaymentProvider. Every payment adapter runs it in its own test:
 *
 *   await runPaymentProviderContract(t, { name: 'payment-local', create, webhooks: { signed }, subscribe, connect: true });
 */
import Joi from 'joi';
import {
  PAID_PLAN_IDS,
  PAYMENT_EVENT_TYPES,
  SUBSCRIPTION_STATUSES,
  TOPUP_PACK_IDS,
  type CustomerRef,
  type PaidPlanId,
  type PaymentEventType,
  type PaymentProvider,
  type WebhookDelivery,
} from '../../core/contracts/index.js';
import {
  expectAdapterError,
  forgeriesOf,
  kitSuffix,
  problems,
  resolveLazy,
  runCommonCases,
  shapes,
  withAdapter,
  type ContractTest,
  type Forgery,
  type KitOptions,
  type Lazy,
} from './common.js';

export interface PaymentProviderKitOptions extends KitOptions<PaymentProvider> {
  /** Checkout and price cases (default on). */
  checkout?: boolean;
  /** Webhooks: a signed delivery and, optionally, forged ones (headers stripped, garbled and body changed are added). */
  webhooks?: { signed: Lazy<WebhookDelivery>; forged?: Array<Forgery>; expectType?: PaymentEventType };
  /** Brings an active subscription into being (e.g. completes a simulated checkout), for plan, cancel and portal cases. */
  subscribe?: (provider: PaymentProvider) => Promise<{ subscriptionId: string; customerId: string; plan: PaidPlanId }>;
  /** Connected payout account cases. */
  connect?: boolean;
}

const date = shapes.date;

const subscriptionSchema = Joi.object({
  subscriptionId: shapes.nonEmpty.required(),
  customerId: shapes.nonEmpty.required(),
  plan: Joi.string()
    .valid(...PAID_PLAN_IDS)
    .required(),
  status: Joi.string()
    .valid(...SUBSCRIPTION_STATUSES)
    .required(),
  currentPeriodStart: date.required(),
  currentPeriodEnd: date.required(),
  cancelAtPeriodEnd: Joi.boolean().required(),
  trialEndsAt: date.allow(null).required(),
});

const invoiceSchema = Joi.object({
  invoiceId: shapes.nonEmpty.required(),
  number: Joi.string().allow(null).required(),
  customerId: shapes.nonEmpty.required(),
  subscriptionId: Joi.string().allow(null).required(),
  purpose: Joi.string().valid('subscription', 'topup', 'resale', 'other').required(),
  status: shapes.nonEmpty.required(),
  amountPaidUsd: Joi.number().min(0).required(),
  amountDueUsd: Joi.number().min(0).required(),
  currency: Joi.string()
    .pattern(/^[a-z]{3}$/)
    .required(),
  periodStart: date.allow(null).required(),
  periodEnd: date.allow(null).required(),
  hostedInvoiceUrl: shapes.url.allow(null).required(),
  workspaceId: Joi.string().allow(null),
  transfer: Joi.object({
    destinationAccountId: shapes.nonEmpty.required(),
    amountUsd: Joi.number().min(0).required(),
    platformFeeUsd: Joi.number().min(0).required(),
  }).allow(null),
});

const eventBase = {
  id: shapes.nonEmpty.required(),
  occurredAt: date.required(),
  orgId: Joi.string().allow(null).required(),
};

const eventSchemas: Record<PaymentEventType, Joi.ObjectSchema> = {
  'checkout.completed': Joi.object({
    ...eventBase,
    type: Joi.string().required(),
    checkoutId: shapes.nonEmpty.required(),
    mode: Joi.string().valid('subscription', 'topup', 'resale').required(),
    customerId: shapes.nonEmpty.required(),
    subscriptionId: Joi.string().allow(null).required(),
  }),
  'subscription.updated': Joi.object({
    ...eventBase,
    type: Joi.string().required(),
    subscription: subscriptionSchema.required(),
  }),
  'subscription.deleted': Joi.object({
    ...eventBase,
    type: Joi.string().required(),
    subscription: subscriptionSchema.required(),
  }),
  'invoice.paid': Joi.object({ ...eventBase, type: Joi.string().required(), invoice: invoiceSchema.required() }),
  'invoice.payment_failed': Joi.object({
    ...eventBase,
    type: Joi.string().required(),
    invoice: invoiceSchema.required(),
  }),
  'topup.paid': Joi.object({
    ...eventBase,
    type: Joi.string().required(),
    pack: Joi.string()
      .valid(...TOPUP_PACK_IDS)
      .required(),
    fixes: Joi.number().integer().min(1).required(),
    amountUsd: Joi.number().min(0).required(),
    paymentId: shapes.nonEmpty.required(),
    customerId: shapes.nonEmpty.required(),
  }),
  'account.updated': Joi.object({
    ...eventBase,
    type: Joi.string().required(),
    accountId: shapes.nonEmpty.required(),
    chargesEnabled: Joi.boolean().required(),
    payoutsEnabled: Joi.boolean().required(),
    detailsSubmitted: Joi.boolean().required(),
  }),
  'resale.updated': Joi.object({
    ...eventBase,
    type: Joi.string().required(),
    resale: Joi.object({
      subscriptionId: shapes.nonEmpty.required(),
      customerId: shapes.nonEmpty.required(),
      workspaceId: shapes.nonEmpty.required(),
      status: Joi.string()
        .valid(...SUBSCRIPTION_STATUSES)
        .required(),
      amountUsd: Joi.number().min(0).required(),
      currentPeriodStart: date.required(),
      currentPeriodEnd: date.required(),
      cancelAtPeriodEnd: Joi.boolean().required(),
    }).required(),
  }),
  unhandled: Joi.object({ ...eventBase, type: Joi.string().required(), providerType: shapes.nonEmpty.required() }),
};

const priceListSchema = Joi.object({
  plans: Joi.array()
    .items(
      Joi.object({
        plan: Joi.string()
          .valid(...PAID_PLAN_IDS)
          .required(),
        priceId: shapes.nonEmpty.required(),
        amountUsd: Joi.number().min(0).required(),
        interval: Joi.string().valid('month', 'year').required(),
      }),
    )
    .min(1)
    .unique(
      (a: { plan: string; interval: string }, b: { plan: string; interval: string }) =>
        a.plan === b.plan && a.interval === b.interval,
    )
    .required(),
  topups: Joi.array()
    .items(
      Joi.object({
        pack: Joi.string()
          .valid(...TOPUP_PACK_IDS)
          .required(),
        priceId: shapes.nonEmpty.required(),
        amountUsd: Joi.number().min(0).required(),
        fixes: Joi.number().integer().min(1).required(),
      }),
    )
    .unique('pack')
    .required(),
  addons: Joi.array().items(
    Joi.object({
      addon: Joi.string().valid('badge_removal', 'managed_workspace').required(),
      priceId: shapes.nonEmpty.required(),
      amountUsd: Joi.number().min(0).required(),
    }),
  ),
  items: Joi.array().items(
    Joi.object({
      item: Joi.string().valid('extra_workspace').required(),
      plan: Joi.string()
        .valid(...PAID_PLAN_IDS)
        .required(),
      priceId: shapes.nonEmpty.required(),
      amountUsd: Joi.number().min(0).required(),
    }),
  ),
});

const checkoutSchema = Joi.object({
  checkoutId: shapes.nonEmpty.required(),
  url: shapes.url.required(),
  customerId: Joi.string().allow(null).required(),
});

/** Problems of a PaymentEvent. */
export function checkPaymentEvent(event: unknown): string[] {
  const type = (event as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !PAYMENT_EVENT_TYPES.includes(type as PaymentEventType)) {
    return [`type: ${String(type)} is not a PaymentEvent type`];
  }
  return problems(eventSchemas[type as PaymentEventType], event);
}

/** Problems of a SubscriptionState. */
export function checkSubscriptionState(state: unknown): string[] {
  return problems(subscriptionSchema, state);
}

/** Problems of a PriceList. */
export function checkPriceList(list: unknown): string[] {
  return problems(priceListSchema, list);
}

/** Problems of a CheckoutSession. */
export function checkCheckoutSession(session: unknown): string[] {
  return problems(checkoutSchema, session);
}

const urls = { successUrl: 'http://localhost:3000/billing?done=1', cancelUrl: 'http://localhost:3000/billing' };

function kitCustomer(): CustomerRef {
  return { orgId: `org_kit${kitSuffix()}`, customerId: null, email: 'owner@kit.example.test', name: 'Kit Org' };
}

/** Drives a PaymentProvider through the cases every payment adapter must pass. */
export async function runPaymentProviderContract(t: ContractTest, opts: PaymentProviderKitOptions): Promise<void> {
  await runCommonCases(t, 'payment', opts);

  if (opts.checkout !== false) await runCheckoutCases(t, opts);

  const webhooks = opts.webhooks;
  if (webhooks) {
    await t.test('a signed webhook is normalized', async (t) => {
      await withAdapter(opts, async (p) => {
        const d = await resolveLazy(webhooks.signed);
        const event = await p.parseWebhook(d.headers, d.rawBody);
        t.same(checkPaymentEvent(event), [], 'PaymentEvent fits the contract');
        if (webhooks.expectType) t.equal(event.type, webhooks.expectType, 'type');
      });
    });
    await t.test('forged webhooks are refused with invalid_signature', async (t) => {
      await withAdapter(opts, async (p) => {
        const forged = await forgeriesOf(await resolveLazy(webhooks.signed), webhooks.forged, {
          extra: [['unsigned body that is not JSON', { headers: {}, rawBody: Buffer.from('not json') }]],
        });
        for (const [name, d] of forged) {
          await expectAdapterError(t, () => p.parseWebhook(d.headers, d.rawBody), ['invalid_signature'], name);
        }
      });
    });
  }

  const subscribe = opts.subscribe;
  if (subscribe) {
    await t.test('a subscription changes plan, prorated and idempotently', async (t) => {
      await withAdapter(opts, async (p) => {
        const sub = await subscribe(p);
        const plan = PAID_PLAN_IDS.find((x) => x !== sub.plan) ?? 'growth';
        const key = `kit-plan-${kitSuffix()}`;
        const changed = await p.changePlan({ subscriptionId: sub.subscriptionId, plan }, key);
        t.same(checkSubscriptionState(changed), [], 'SubscriptionState fits the contract');
        t.equal(changed.plan, plan, 'the new plan');
        t.equal(changed.subscriptionId, sub.subscriptionId, 'the same subscription');
        const again = await p.changePlan({ subscriptionId: sub.subscriptionId, plan }, key);
        t.equal(again.plan, plan, 'repeating with the same key answers the same plan');
      });
    });
    await t.test('a subscription is cancelled at the period end', async (t) => {
      await withAdapter(opts, async (p) => {
        const sub = await subscribe(p);
        const state = await p.cancelAtPeriodEnd(sub.subscriptionId, `kit-cancel-${kitSuffix()}`);
        t.same(checkSubscriptionState(state), [], 'SubscriptionState fits the contract');
        t.equal(state.cancelAtPeriodEnd, true, 'cancelAtPeriodEnd');
        t.ok(state.status !== 'canceled', 'still running until the period ends');
      });
    });
    await t.test('the customer portal opens', async (t) => {
      await withAdapter(opts, async (p) => {
        const sub = await subscribe(p);
        const { url } = await p.createPortal(
          { customerId: sub.customerId, returnUrl: urls.cancelUrl },
          `kit-portal-${kitSuffix()}`,
        );
        t.same(problems(shapes.url.required(), url), [], 'url is an http(s) URL');
      });
    });
  }

  if (opts.connect) {
    await t.test('a payout account is created once and its onboarding link renewed', async (t) => {
      await withAdapter(opts, async (p) => {
        const input = {
          orgId: `org_kit${kitSuffix()}`,
          accountId: null,
          country: 'IT',
          email: 'agency@kit.example.test',
          returnUrl: urls.successUrl,
          refreshUrl: urls.cancelUrl,
        };
        const first = await p.createConnectOnboarding(input, `kit-connect-${kitSuffix()}`);
        t.same(
          problems(Joi.object({ accountId: shapes.nonEmpty.required(), url: shapes.url.required() }), first),
          [],
          'ConnectOnboarding fits',
        );
        const again = await p.createConnectOnboarding(
          { ...input, accountId: first.accountId },
          `kit-connect-${kitSuffix()}`,
        );
        t.equal(again.accountId, first.accountId, 'the same account');
      });
    });
  }
}

async function runCheckoutCases(t: ContractTest, opts: PaymentProviderKitOptions): Promise<void> {
  await t.test('prices() lists plans and top-up packs', async (t) => {
    await withAdapter(opts, async (p) => {
      t.same(checkPriceList(await p.prices()), [], 'PriceList fits the contract');
    });
  });

  await t.test('a subscription checkout with a trial opens, idempotently', async (t) => {
    await withAdapter(opts, async (p) => {
      const plan = (await p.prices()).plans[0]?.plan ?? 'startup';
      const input = { mode: 'subscription' as const, plan, trialDays: 14, customer: kitCustomer(), ...urls };
      const key = `kit-checkout-${kitSuffix()}`;
      const first = await p.createCheckout(input, key);
      t.same(checkCheckoutSession(first), [], 'CheckoutSession fits the contract');
      const again = await p.createCheckout(input, key);
      t.equal(again.checkoutId, first.checkoutId, 'the same key answers the same checkout');
      const other = await p.createCheckout(input, `${key}-2`);
      t.ok(other.checkoutId !== first.checkoutId, 'another key opens another checkout');
    });
  });

  await t.test('a top-up checkout opens', async (t) => {
    await withAdapter(opts, async (p) => {
      const pack = (await p.prices()).topups[0]?.pack ?? 'topup_10';
      const session = await p.createCheckout(
        { mode: 'topup', pack, customer: kitCustomer(), ...urls },
        `kit-topup-${kitSuffix()}`,
      );
      t.same(checkCheckoutSession(session), [], 'CheckoutSession fits the contract');
    });
  });
}
