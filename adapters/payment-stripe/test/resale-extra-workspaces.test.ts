import t from 'tap';
import { startTestApp } from '../../../test/helpers/app.js';
import { insertWorkspace, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { waitFor } from '../../../test/helpers/wait.js';
import type { Answer, Method, Schema } from '../../../test/helpers/api-types.js';
import { call as callApp } from '../../../test/helpers/call.js';
import { StripePeer } from './stripe-peer.js';

/** What the tests read of a subscription at the peer: its items and their prices. */
type PeerSubscription = { id: string; items: { data: { price: { id: string }; quantity: number }[] } };

/** The resale collection of an agency's (only) client workspace, in a billing answer. */
const collectionOf = (billing: Schema<'Billing'>) => billing.agency?.workspaces[0].collection;

const peer = await new StripePeer().start();
t.teardown(() => peer.stop());

// One service for the file, on payment-stripe against the local peer.
const app = await startTestApp(t, {
  adapters: {
    payment: 'payment-stripe',
    options: {
      'payment-stripe': {
        secretKey: 'sk_test_patchwell',
        webhookSecret: peer.webhookSecret,
        connectWebhookSecret: peer.connectSecret,
        baseUrl: peer.baseUrl,
        maxNetworkRetries: 0,
      },
    },
  },
});

const call = <M extends Method, U extends string>(who: SignedUp, method: M, url: U, payload?: unknown) =>
  callApp(app, who, method, url, payload);
const deliver = async (event: Record<string, unknown>, endpoint = '') => {
  const d = peer.sign(event, endpoint ? { secret: peer.connectSecret } : {});
  const res = await app.server.inject({
    method: 'POST',
    url: `/v1/webhooks/payment/stripe${endpoint}`,
    payload: d.rawBody,
    headers: { ...d.headers, 'content-type': 'application/json' },
  });
  return { status: res.statusCode, body: JSON.parse(res.payload) as Answer<'POST', '/v1/webhooks/payment/stripe'> };
};
/** Checkout of a plan, paid at the peer, its events delivered. */
async function subscribe(who: SignedUp, plan: string): Promise<PeerSubscription> {
  const checkout = await call(who, 'POST', '/v1/billing/checkout', { plan });
  const session = [...peer.sessions.values()].find((s) => s.url === checkout.body.url)!;
  const { subscription, events } = peer.completeCheckout(session.id as string);
  for (const e of events) t.equal((await deliver(e)).status, 200);
  return subscription as PeerSubscription;
}

t.test('extra workspaces are a quantity on the Stripe subscription, priced per plan', async (t) => {
  const owner = await signUp(app);
  const sub = await subscribe(owner, 'indie');
  const extraItem = () => sub.items.data.find((i) => String(i.price.id).startsWith('price_extra_workspace_'));
  t.equal((await call(owner, 'POST', '/v1/workspaces', { name: 'Shop' })).status, 201);
  t.equal((await call(owner, 'POST', '/v1/workspaces', { name: 'Blog' })).status, 201);
  await waitFor(() => extraItem()?.quantity === 1, 'the extra workspace item at the peer');
  t.equal(extraItem()!.price.id, 'price_extra_workspace_indie');
  const updates = peer.requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${sub.id}`);
  t.match(updates.at(-1)!.body, {
    items: [{ price: 'price_extra_workspace_indie', quantity: '1' }],
    proration_behavior: 'always_invoice',
  });
  t.match(updates.at(-1)!.idempotencyKey, new RegExp(`^extra-ws:${owner.organization.id}:${sub.id}:1:1$`));
  t.equal(
    (await call(owner, 'GET', '/v1/billing')).body.summary.workspaces.extra_price_usd,
    15,
    "the provider's price",
  );

  // A plan switch moves the extra workspaces to the new plan's price.
  t.equal((await call(owner, 'POST', '/v1/billing/plan', { plan: 'growth' })).status, 200);
  const switched = peer.requests.find(
    (r) =>
      r.method === 'POST' &&
      r.path === `/v1/subscriptions/${sub.id}` &&
      (r.body.metadata as { plan?: string } | undefined)?.plan === 'growth',
  )!;
  t.match(switched.body.items, [
    { price: 'price_plan_growth' },
    { price: 'price_extra_workspace_growth', quantity: '1' },
  ]);
  // Growth includes 10 workspaces: the quantity goes to 0 and the item is removed.
  await waitFor(() => !extraItem(), 'the item removed on a plan that includes the workspaces');
  t.same(peer.withoutIdempotencyKey(), [], 'every mutating call carries an Idempotency-Key');
});

t.test(
  'an agency resells through its Connect account: destination charge subscription, fee, ledger, events',
  async (t) => {
    const agency = await signUp(app, { organizationType: 'agency' });
    const orgId = agency.organization.id;
    await subscribe(agency, 'agency');
    const onboarding = await call(agency, 'POST', '/v1/billing/connect/onboarding', { country: 'IT' });
    t.equal(onboarding.status, 200, onboarding.payload);
    const account = [...peer.accounts.values()].find((a) => (a.metadata as { org_id?: string }).org_id === orgId)!;
    const ws = await insertWorkspace(app, orgId, { name: 'Acme support', client_name: 'Acme' });
    const resale = { resale_price_usd: 300, collect_via_connect: true, client_email: 'billing@acme.example' };

    t.match(await call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/resale`, resale), {
      status: 409,
      body: { code: 'connect_not_ready' },
    });
    Object.assign(account, { charges_enabled: true, payouts_enabled: true, details_submitted: true });
    t.equal((await deliver(peer.event('account.updated', account), '/connect')).status, 200);

    const started = await call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/resale`, resale);
    t.equal(started.status, 200, started.payload);
    const collection = collectionOf(started.body);
    t.match(collection, { status: 'pending', amount_usd: 300 });
    const session = [...peer.sessions.values()].find((s) => s.url === collection?.checkout_url)!;
    t.match(
      session,
      {
        mode: 'subscription',
        payment_method_collection: 'always',
        line_items: [{ price_data: { unit_amount: '30000', currency: 'usd', recurring: { interval: 'month' } } }],
        subscription_data: {
          application_fee_percent: '5',
          transfer_data: { destination: account.id },
          metadata: { kind: 'resale', workspace_id: ws.id, org_id: orgId },
        },
      },
      'a destination charge with the platform fee',
    );
    t.notOk(
      (session.subscription_data as { on_behalf_of?: string }).on_behalf_of,
      'settled on the platform unless resaleOnBehalfOf is set',
    );
    const client = peer.customers.get(session.customer as string)!;
    t.match(
      client,
      { email: 'billing@acme.example', metadata: { workspace_id: ws.id, kind: 'resale' } },
      'the client is its own customer',
    );

    const { subscription, events } = peer.completeCheckout(session.id as string);
    for (const e of events) t.equal((await deliver(e)).status, 200);
    const paid = (await call(agency, 'GET', '/v1/billing')).body;
    t.match(collectionOf(paid), {
      status: 'active',
      periods_paid: 1,
      collected_usd: 300,
      transferred_usd: 285,
      platform_fees_usd: 15,
    });
    t.match(
      (await call(agency, 'GET', '/v1/billing/invoices')).body.items.filter((i) => i.purpose === 'resale'),
      [{ status: 'paid', amount_paid_usd: 300 }],
    );
    t.match(await app.db('billing_resale_charges').where({ org_id: orgId }), [
      { status: 'paid', destination_account_id: account.id },
    ]);
    t.equal((await deliver(events[2])).body.duplicate, true, 'a replayed invoice event changes nothing');
    t.equal((await app.db('billing_resale_charges').where({ org_id: orgId })).length, 1);
    t.equal(
      (await call(agency, 'GET', '/v1/billing')).body.summary.plan,
      'agency',
      "the client's subscription never touches the agency's own",
    );

    // Stripe reports the client's subscription past due (a failed renewal); an older event is skipped.
    const created = Math.floor(Date.now() / 1000);
    t.equal(
      (
        await deliver(
          peer.event('customer.subscription.updated', { ...subscription, status: 'past_due' }, created + 60),
        )
      ).status,
      200,
    );
    t.equal(collectionOf((await call(agency, 'GET', '/v1/billing')).body)?.status, 'past_due');
    const stale = await deliver(
      peer.event('customer.subscription.updated', { ...subscription, status: 'active' }, created + 30),
    );
    t.equal(stale.status, 200);
    t.equal(collectionOf((await call(agency, 'GET', '/v1/billing')).body)?.status, 'past_due');

    // A new price: the same product, an inline price, from the next period.
    const repriced = await call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/resale`, {
      ...resale,
      resale_price_usd: 350,
    });
    t.equal(repriced.status, 200, repriced.payload);
    const update = peer.requests
      .filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subscription!.id as string}`)
      .at(-1)!;
    t.match(update.body, {
      items: [{ price_data: { unit_amount: '35000', product: /^prod_/ } }],
      proration_behavior: 'none',
      application_fee_percent: '5',
    });
    t.ok(update.idempotencyKey);

    const stopped = await call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/resale`, {
      ...resale,
      collect_via_connect: false,
    });
    t.equal(collectionOf(stopped.body)?.cancel_at_period_end, true);
    t.equal(peer.subscriptions.get(subscription!.id as string)!.cancel_at_period_end, true);
    t.equal(
      (
        await deliver(
          peer.event(
            'customer.subscription.deleted',
            { ...peer.subscriptions.get(subscription!.id as string)!, status: 'canceled' },
            created + 120,
          ),
        )
      ).status,
      200,
    );
    t.equal(collectionOf((await call(agency, 'GET', '/v1/billing')).body)?.status, 'canceled');
    t.same(peer.withoutIdempotencyKey(), [], 'every mutating call carries an Idempotency-Key');
  },
);
