import t from 'tap';
import { hmacSha256Hex, type PaymentEvent, type WebhookDelivery } from '../../../core/contracts/index.js';
import { runPaymentProviderContract } from '../../../test/contracts/payment-provider.js';
import { createTestDb } from '../../../test/helpers/db.js';
import mod, { LocalPaymentProvider, LOCAL_TEST_CARDS, prorate } from '../index.js';
import { signPayload, verifySignature } from '../signature.js';

const SECRET = 'local-test-secret-0123456789';
const { db, close } = await createTestDb();
t.teardown(close);

/** A provider whose webhooks are captured instead of delivered to a service. */
function create(): LocalPaymentProvider & { delivered: Array<{ endpoint: string; event: PaymentEvent }> } {
  const p = new LocalPaymentProvider(LocalPaymentProvider.validateOptions({ webhookSecret: SECRET }), {
    db,
    config: undefined,
    log: undefined,
  }) as LocalPaymentProvider & {
    delivered: Array<{ endpoint: string; event: PaymentEvent }>;
  };
  p.delivered = [];
  p.hostedPages({
    publicBaseUrl: 'http://localhost:3000',
    deliverWebhook: async (d: WebhookDelivery, endpoint) => {
      p.delivered.push({ endpoint, event: await p.parseWebhook(d.headers, d.rawBody) });
      return 200;
    },
  });
  return p;
}

const urls = { successUrl: 'http://localhost:3000/billing?ok', cancelUrl: 'http://localhost:3000/billing' };

async function subscribe(p: LocalPaymentProvider, trialDays = 0, orgId = 'org_kit') {
  const s = await p.createCheckout(
    { mode: 'subscription', plan: 'indie', trialDays, customer: { orgId, email: 'kit@example.test' }, ...urls },
    `k-${Math.random()}`,
  );
  const done = await p.completeCheckout(s.checkoutId, LOCAL_TEST_CARDS.ok);
  if (!('redirect' in done)) throw new Error(`checkout failed: ${done.error}`);
  return { subscriptionId: done.subscriptionId!, customerId: done.customerId, plan: 'indie' as const };
}

const signed = (): WebhookDelivery => {
  const body = JSON.stringify({
    id: 'evt_local_kit',
    type: 'topup.paid',
    created: new Date().toISOString(),
    org_id: 'org_1',
    data: { pack: 'topup_10', fixes: 10, amountUsd: 30, paymentId: 'pi_1', customerId: 'cus_1' },
  });
  return { headers: { 'payment-local-signature': signPayload(SECRET, body) }, rawBody: Buffer.from(body) };
};

t.test('payment-local meets the PaymentProvider contract', (t) =>
  runPaymentProviderContract(t, {
    name: 'payment-local',
    module: mod,
    create,
    validateOptions: (o) => LocalPaymentProvider.validateOptions(o),
    options: {
      valid: {},
      invalid: [
        { options: { basePath: 'pay' }, key: 'basePath' },
        { options: { webhookSecret: 'short' }, key: 'webhookSecret' },
        { options: { prices: { plans: { indie: -1 } } }, key: 'prices.plans.indie' },
      ],
    },
    webhooks: {
      signed,
      expectType: 'topup.paid',
      forged: [
        {
          name: 'signed with another secret',
          delivery: () => ({
            ...signed(),
            headers: { 'payment-local-signature': signPayload('another-secret-0000000000', signed().rawBody) },
          }),
        },
        {
          name: 'signed 301 s ago',
          delivery: () => ({
            ...signed(),
            headers: {
              'payment-local-signature': signPayload(SECRET, signed().rawBody, Math.floor(Date.now() / 1000) - 301),
            },
          }),
        },
        {
          name: 'a sha256= header instead of t=,v1=',
          delivery: () => ({
            ...signed(),
            headers: { 'payment-local-signature': `sha256=${hmacSha256Hex(SECRET, signed().rawBody)}` },
          }),
        },
      ],
    },
    subscribe: (p) => subscribe(p as LocalPaymentProvider),
    connect: true,
  }),
);

t.test('the signature scheme is Stripe’s: t=…,v1=HMAC-SHA256("t.body")', (t) => {
  const body = Buffer.from('{"a":1}');
  const header = signPayload(SECRET, body, 1_700_000_000);
  const verify = (signature: string, now: number) =>
    verifySignature({ 'payment-local-signature': signature }, 'payment-local-signature', SECRET, body, now);
  t.match(header, /^t=1700000000,v1=[0-9a-f]{64}$/);
  t.equal(verify(header, 1_700_000_000 + 300), true, 'within 300 s');
  t.equal(verify(header, 1_700_000_000 + 301), false, 'past 300 s');
  t.equal(verify(`${header},v1=${'0'.repeat(64)}`, 1_700_000_000), true, 'any v1 may match');
  t.end();
});

t.test('a paid checkout sends checkout, subscription and invoice events; a declined card sends none', async (t) => {
  const p = create();
  const s = await p.createCheckout(
    {
      mode: 'subscription',
      plan: 'startup',
      trialDays: 14,
      customer: { orgId: 'org_a', email: 'a@example.test' },
      ...urls,
    },
    'c1',
  );
  t.same(await p.completeCheckout(s.checkoutId, LOCAL_TEST_CARDS.declined), { error: 'declined' });
  t.same(p.delivered, []);
  const done = await p.completeCheckout(s.checkoutId, '4242-4242-4242-4242');
  t.match(done, { redirect: urls.successUrl });
  t.same(
    p.delivered.map((d) => d.event.type),
    ['checkout.completed', 'subscription.updated', 'invoice.paid'],
  );
  t.match(p.delivered[1].event, { orgId: 'org_a', subscription: { plan: 'startup', status: 'trialing' } });
  t.same(await p.completeCheckout(s.checkoutId, LOCAL_TEST_CARDS.ok), { error: 'gone' }, 'a checkout completes once');
});

t.test('the clock ends the trial, renews, and ends a cancelled subscription at its period end', async (t) => {
  const p = create();
  const sub = await subscribe(p, 14, 'org_clock');
  const mine = () => p.delivered.filter((d) => d.event.orgId === 'org_clock').map((d) => d.event);
  p.delivered.length = 0;
  const trialEnd = Date.now() + 14 * 86_400_000;
  await p.runClock(new Date(trialEnd + 1000));
  t.match(mine(), [
    { type: 'subscription.updated', subscription: { status: 'active' } },
    { type: 'invoice.paid', invoice: { amountPaidUsd: 29 } },
  ]);
  await p.cancelAtPeriodEnd(sub.subscriptionId, 'cancel');
  p.delivered.length = 0;
  await p.runClock(new Date(trialEnd + 40 * 86_400_000));
  t.match(mine(), [{ type: 'subscription.deleted', subscription: { status: 'canceled' } }]);
  await t.rejects(p.changePlan({ subscriptionId: sub.subscriptionId, plan: 'growth' }, 'late'), {
    code: 'subscription_canceled',
  });
});

t.test('proration is the share of the monthly difference left in the period', (t) => {
  const period = { currentPeriodStart: '2026-01-01T00:00:00.000Z', currentPeriodEnd: '2026-01-31T00:00:00.000Z' };
  t.equal(prorate(220, period, new Date('2026-01-16T00:00:00.000Z')), 110);
  t.equal(prorate(-60, period, new Date('2026-01-25T00:00:00.000Z')), -12);
  t.equal(prorate(100, period, new Date('2026-02-10T00:00:00.000Z')), 0);
  t.end();
});
