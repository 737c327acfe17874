import t from 'tap';
import { runPaymentProviderContract } from '../../../test/contracts/payment-provider.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { signUp } from '../../../test/helpers/accounts.js';
import type { Answer, ApiError, Method } from '../../../test/helpers/api-types.js';
import { call as callApp } from '../../../test/helpers/call.js';
import mod, { StripePaymentProvider } from '../index.js';
import { StripePeer } from './stripe-peer.js';

const peer = await new StripePeer().start();
t.teardown(() => peer.stop());

const options = () => ({
  secretKey: 'sk_test_patchwell',
  webhookSecret: peer.webhookSecret,
  connectWebhookSecret: peer.connectSecret,
  baseUrl: peer.baseUrl,
  maxNetworkRetries: 0,
});
const create = () => new StripePaymentProvider(StripePaymentProvider.validateOptions(options()));

/** Completes a checkout at the peer, as a paying customer would. */
async function subscribe(p: StripePaymentProvider, plan: 'indie' | 'startup' = 'indie') {
  const session = await p.createCheckout(
    {
      mode: 'subscription',
      plan,
      trialDays: 14,
      customer: { orgId: 'org_kit', email: 'kit@example.test' },
      successUrl: 'http://localhost/ok',
      cancelUrl: 'http://localhost/no',
    },
    `sub-${Math.random()}`,
  );
  const { subscription } = peer.completeCheckout(session.checkoutId);
  return { subscriptionId: subscription!.id as string, customerId: session.customerId!, plan };
}

t.test('payment-stripe meets the PaymentProvider contract against the local peer', (t) =>
  runPaymentProviderContract(t, {
    name: 'payment-stripe',
    module: mod,
    create,
    validateOptions: (o) => StripePaymentProvider.validateOptions(o),
    options: {
      valid: { secretKey: 'sk_test_x', webhookSecret: 'whsec_0123456789abcdef' },
      invalid: [
        { options: { webhookSecret: 'whsec_0123456789abcdef' }, key: 'secretKey' },
        { options: { secretKey: 'pk_test_x', webhookSecret: 'whsec_0123456789abcdef' }, key: 'secretKey' },
        { options: { secretKey: 'sk_test_x', webhookSecret: 'short' }, key: 'webhookSecret' },
        {
          options: { secretKey: 'sk_test_x', webhookSecret: 'whsec_0123456789abcdef', protocol: 'ftp' },
          key: 'protocol',
        },
      ],
    },
    webhooks: {
      signed: () =>
        peer.sign(
          peer.event('invoice.paid', {
            id: 'in_1',
            object: 'invoice',
            customer: 'cus_1',
            status: 'paid',
            amount_paid: 2900,
            amount_due: 2900,
            currency: 'usd',
            period_start: 1,
            period_end: 2,
            parent: null,
            metadata: { org_id: 'org_1' },
          }),
        ),
      expectType: 'invoice.paid',
      forged: [
        {
          name: 'signed with another secret',
          delivery: () => peer.sign(peer.event('invoice.paid', {}), { secret: 'whsec_not_the_one_0000' }),
        },
        {
          name: 'signed 301 s ago',
          delivery: () => peer.sign(peer.event('invoice.paid', {}), { timestamp: Math.floor(Date.now() / 1000) - 301 }),
        },
      ],
    },
    subscribe: (p) => subscribe(p as StripePaymentProvider),
    connect: true,
  }),
);

t.test('what payment-stripe sends to Stripe', async (t) => {
  const p = create();
  const before = peer.requests.length;
  const sub = await subscribe(p, 'startup');
  await p.changePlan({ subscriptionId: sub.subscriptionId, plan: 'growth' }, 'plan-1');
  await p.updateAddons({ subscriptionId: sub.subscriptionId, addons: { badge_removal: 1 } }, 'addons-1');
  await p.updateAddons({ subscriptionId: sub.subscriptionId, addons: { badge_removal: 0 } }, 'addons-2');
  await p.cancelAtPeriodEnd(sub.subscriptionId, 'cancel-1');
  await p.createConnectOnboarding(
    {
      orgId: 'org_1',
      accountId: null,
      country: 'IT',
      email: 'a@example.test',
      returnUrl: 'http://localhost/r',
      refreshUrl: 'http://localhost/f',
    },
    'connect-1',
  );
  await p.createPortal({ customerId: sub.customerId, returnUrl: 'http://localhost/b' }, 'portal-1');
  const mine = peer.requests.slice(before);
  t.same(
    mine.filter((r) => r.method !== 'GET' && !r.idempotencyKey),
    [],
    'every mutating call carries an idempotency key',
  );
  const checkout = mine.find((r) => r.path === '/v1/checkout/sessions')!;
  t.match(checkout.body, {
    mode: 'subscription',
    payment_method_collection: 'always',
    client_reference_id: 'org_kit',
    subscription_data: { trial_period_days: '14', metadata: { org_id: 'org_kit', plan: 'startup' } },
  });
  const updates = mine.filter((r) => r.path === `/v1/subscriptions/${sub.subscriptionId}` && r.method === 'POST');
  t.match(
    updates[0].body,
    { items: [{ price: 'price_plan_growth' }], proration_behavior: 'always_invoice', metadata: { plan: 'growth' } },
    'a plan switch is prorated by Stripe',
  );
  t.match(updates[1].body, { items: [{ price: 'price_addon_badge_removal', quantity: '1' }] });
  t.match(updates[2].body, { items: [{ deleted: 'true' }] });
  t.match(updates[3].body, { cancel_at_period_end: 'true' });
  const account = mine.find((r) => r.path === '/v1/accounts')!;
  t.match(account.body, { type: 'express', country: 'IT', metadata: { org_id: 'org_1' } });
  const state = peer.subscriptions.get(sub.subscriptionId)!;
  t.equal(state.cancel_at_period_end, true);

  const sameKey = await p.changePlan({ subscriptionId: sub.subscriptionId, plan: 'growth' }, 'plan-1');
  t.equal(sameKey.plan, 'growth');
  await t.rejects(p.changePlan({ subscriptionId: 'sub_missing', plan: 'growth' }, 'plan-x'), { code: 'not_found' });
});

t.test('Stripe events are normalized', async (t) => {
  const p = create();
  /** The provider's reading of the event, delivered signed by the peer. */
  const parse = (event: Record<string, unknown>, opts?: { secret: string }) => {
    const d = peer.sign(event, opts);
    return p.parseWebhook(d.headers, d.rawBody);
  };
  const sub = await subscribe(p, 'indie');
  const stored = peer.subscriptions.get(sub.subscriptionId)!;
  const created = await parse(peer.event('customer.subscription.updated', { ...stored, status: 'unpaid' }));
  t.match(created, {
    type: 'subscription.updated',
    orgId: 'org_kit',
    subscription: { plan: 'indie', status: 'past_due', subscriptionId: sub.subscriptionId },
  });
  const deleted = await parse(peer.event('customer.subscription.deleted', { ...stored, status: 'canceled' }));
  t.equal(deleted.type, 'subscription.deleted');
  const topup = await parse(
    peer.event('checkout.session.completed', {
      id: 'cs_1',
      object: 'checkout.session',
      mode: 'payment',
      payment_status: 'paid',
      customer: 'cus_1',
      payment_intent: 'pi_9',
      amount_total: 12500,
      metadata: { org_id: 'org_9', kind: 'topup', pack: 'topup_50', fixes: '50' },
    }),
  );
  t.match(topup, {
    type: 'topup.paid',
    orgId: 'org_9',
    pack: 'topup_50',
    fixes: 50,
    amountUsd: 125,
    paymentId: 'pi_9',
  });
  const connect = await parse(
    peer.event('account.updated', {
      id: 'acct_1',
      object: 'account',
      charges_enabled: true,
      payouts_enabled: true,
      details_submitted: true,
      metadata: { org_id: 'org_9' },
    }),
    { secret: peer.connectSecret },
  );
  t.match(
    connect,
    { type: 'account.updated', accountId: 'acct_1', chargesEnabled: true },
    'Connect events verify with the Connect secret',
  );
  const other = await parse(peer.event('charge.refunded', { id: 'ch_1' }));
  t.match(other, { type: 'unhandled', providerType: 'charge.refunded' });
});

t.test('the service on payment-stripe: checkout, webhooks, replay, plan switch', async (t) => {
  const app = await startTestApp(t, {
    adapters: { payment: 'payment-stripe', options: { 'payment-stripe': options() } },
  });
  const owner = await signUp(app);
  const call = <M extends Method, U extends string>(method: M, url: U, payload?: unknown) =>
    callApp(app, owner, method, url, payload);
  const deliver = async (event: Record<string, unknown>) => {
    const d = peer.sign(event);
    const res = await app.server.inject({
      method: 'POST',
      url: '/v1/webhooks/payment/stripe',
      payload: d.rawBody,
      headers: { ...d.headers, 'content-type': 'application/json; charset=utf-8' },
    });
    return { status: res.statusCode, body: JSON.parse(res.payload) as Answer<'POST', '/v1/webhooks/payment/stripe'> };
  };

  const billing = await call('GET', '/v1/billing');
  t.equal(
    billing.body.plans.find((p) => p.id === 'growth')?.price_monthly_usd,
    249,
    'prices come from Stripe by lookup key',
  );
  const checkout = await call('POST', '/v1/billing/checkout', { plan: 'startup' });
  t.equal(checkout.status, 200, JSON.stringify(checkout.body));
  t.match(checkout.body.url, new RegExp(`^${peer.baseUrl}/pay/`));
  const session = [...peer.sessions.values()].find((s) => s.url === checkout.body.url)!;
  const { events } = peer.completeCheckout(session.id as string);
  for (const e of events) t.equal((await deliver(e)).status, 200);
  const replay = await deliver(events[1]);
  t.equal(replay.body.duplicate, true, 'a repeated delivery is recognised');
  const trialing = await call('GET', '/v1/billing');
  t.equal(trialing.body.subscription_status, 'trialing');
  t.equal(trialing.body.summary.has_payment_method, true);
  t.equal((await call('GET', '/v1/billing/invoices')).body.items.length, 1);

  const switched = await call('POST', '/v1/billing/plan', { plan: 'growth' });
  t.equal(switched.status, 200, JSON.stringify(switched.body));
  t.equal(switched.body.summary.plan, 'growth');
  const sub = [...peer.subscriptions.values()].find((s) => s.customer === session.customer)!;
  t.equal(sub.last_proration_behavior, 'always_invoice');

  const stale = peer.sign(peer.event('invoice.paid', {}), { timestamp: Math.floor(Date.now() / 1000) - 400 });
  const refused = await app.server.inject({
    method: 'POST',
    url: '/v1/webhooks/payment/stripe',
    payload: stale.rawBody,
    headers: { ...stale.headers, 'content-type': 'application/json' },
  });
  t.equal(refused.statusCode, 400);
  t.equal((JSON.parse(refused.payload) as ApiError).code, 'invalid_signature');

  const portal = await call('POST', '/v1/billing/portal');
  t.match(portal.body.url, new RegExp(`^${peer.baseUrl}/portal/`));
});
