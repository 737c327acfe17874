import { randomBytes } from 'node:crypto';
import t from 'tap';
import { startBilling, type BillingHarness } from './helpers.js';

const DAY = 86_400_000;

/** A payment-local event body, signed unless told otherwise. */
function delivery(
  h: BillingHarness,
  type: string,
  orgId: string | null,
  data: Record<string, unknown>,
  opts: { id?: string; created?: Date; signedAt?: number; secret?: string } = {},
) {
  const id = opts.id ?? `evt_local_${randomBytes(8).toString('hex')}`;
  const body = JSON.stringify({
    id,
    type,
    created: (opts.created ?? new Date()).toISOString(),
    org_id: orgId,
    data,
  });
  const headers = h.local.sign(body, opts.signedAt);
  return { id, body, headers };
}

/** Posts a delivery to a payment webhook endpoint (`{provider}` or `{provider}/connect`: both answer a receipt). */
async function post(
  h: BillingHarness,
  d: { body: string; headers: Record<string, string> },
  path: `/v1/webhooks/payment/${string}` = '/v1/webhooks/payment/local',
) {
  return h.call(null, 'POST', path, d.body, { ...d.headers, 'content-type': 'application/json' });
}

function subscription(status: string, over: Record<string, unknown> = {}) {
  const now = Date.now();
  return {
    subscription: {
      subscriptionId: 'sub_local_webhooktest',
      customerId: 'cus_local_webhooktest',
      plan: 'startup',
      status,
      currentPeriodStart: new Date(now).toISOString(),
      currentPeriodEnd: new Date(now + 30 * DAY).toISOString(),
      cancelAtPeriodEnd: false,
      trialEndsAt: null,
      ...over,
    },
  };
}

/** The outcome billing recorded for a delivered event. */
async function outcomeOf(h: BillingHarness, eventId: string) {
  return ((await h.app.db('billing_events').where({ event_id: eventId }).first()) as { outcome: string }).outcome;
}

/** The data of a paid 10-fix top-up. */
const topup10 = (paymentId: string, customerId: string) => ({
  pack: 'topup_10',
  fixes: 10,
  amountUsd: 30,
  paymentId,
  customerId,
});

t.test('payment webhooks', async (t) => {
  const h = await startBilling(t);

  await t.test('a missing, wrong or stale signature is refused and nothing is stored', async (t) => {
    const owner = await h.owner();
    const topup = topup10('pi_forged', 'cus_x');
    const good = delivery(h, 'topup.paid', owner.organization.id, topup);

    const unsigned = await h.call(null, 'POST', '/v1/webhooks/payment/local', good.body, {
      'content-type': 'application/json',
    });
    t.equal(unsigned.status, 400);
    t.equal(unsigned.body.code, 'invalid_signature');
    const tampered = await post(h, { body: good.body.replace('"fixes":10', '"fixes":100'), headers: good.headers });
    t.equal(tampered.body.code, 'invalid_signature', 'a body changed after signing');
    const stale = await post(
      h,
      delivery(h, 'topup.paid', owner.organization.id, topup, { signedAt: Math.floor(Date.now() / 1000) - 301 }),
    );
    t.equal(stale.body.code, 'invalid_signature', 'older than the 300 s tolerance');
    const garbled = await post(h, { body: good.body, headers: { 'payment-local-signature': 't=abc,v1=zz' } });
    t.equal(garbled.body.code, 'invalid_signature');
    t.equal((await h.app.db('billing_events')).length, 0, 'no event recorded');
    t.equal(
      (await h.app.db('credit_balances').where({ org_id: owner.organization.id })).length,
      0,
      'no credits granted',
    );

    t.equal((await post(h, good, '/v1/webhooks/payment/stripe')).status, 404, 'a provider that is not active');
    const notJson = await post(h, { body: '{"id":', headers: h.local.sign('{"id":') });
    t.equal(notJson.status, 400);
    t.equal(notJson.body.code, 'invalid_payload');
  });

  await t.test('the same event twice is applied once', async (t) => {
    const owner = await h.owner();
    const d = delivery(h, 'topup.paid', owner.organization.id, topup10('pi_replay', 'cus_replay'));
    const first = await post(h, d);
    t.equal(first.status, 200, first.payload);
    t.same(first.body, { received: true, duplicate: false, event_id: d.id, type: 'topup.paid' });
    const again = await post(h, d);
    t.equal(again.body.duplicate, true);
    const resigned = await post(h, { body: d.body, headers: h.local.sign(d.body) });
    t.equal(resigned.body.duplicate, true, 'a re-signed delivery of the same event id too');
    const other = await post(h, delivery(h, 'topup.paid', owner.organization.id, topup10('pi_replay', 'cus_replay')));
    t.equal(other.body.duplicate, false, 'another event id…');
    const billing = await h.billing(owner);
    t.equal(billing.summary.fixes.credits_remaining, 10, '…for the same payment grants nothing more');
    t.equal(await outcomeOf(h, other.body.event_id), 'already_granted');
  });

  await t.test('subscription events apply in any order: provider time, then status precedence', async (t) => {
    const owner = await h.owner();
    const orgId = owner.organization.id;
    const t1 = new Date(Date.now() - 60_000);
    const t2 = new Date(Date.now() - 30_000);
    const trialing = delivery(
      h,
      'subscription.updated',
      orgId,
      subscription('trialing', { trialEndsAt: new Date(Date.now() + 14 * DAY).toISOString() }),
      { created: t1 },
    );
    const active = delivery(h, 'subscription.updated', orgId, subscription('active'), { created: t2 });
    t.equal((await post(h, active)).status, 200);
    t.equal((await post(h, trialing)).status, 200);
    let b = await h.billing(owner);
    t.equal(b.subscription_status, 'active', 'the older trialing event came late and was skipped');
    t.equal(await outcomeOf(h, trialing.id), 'skipped:stale');

    const t3 = new Date(Date.now() - 10_000);
    const pastDue = delivery(h, 'subscription.updated', orgId, subscription('past_due'), { created: t3 });
    const canceled = delivery(h, 'subscription.deleted', orgId, subscription('active'), { created: t3 });
    await post(h, canceled);
    await post(h, pastDue);
    b = await h.billing(owner);
    t.equal(b.subscription_status, 'canceled', 'at the same time the later stage wins, whatever the order');
    t.equal(b.summary.plan, 'none');
    const revived = delivery(h, 'subscription.updated', orgId, subscription('active'), { created: new Date() });
    await post(h, revived);
    t.equal((await h.billing(owner)).subscription_status, 'canceled', 'a canceled subscription does not come back');
  });

  await t.test(
    'lifetime is fixed; unknown organizations and unused event types are answered and recorded',
    async (t) => {
      const owner = await h.owner();
      await h.app
        .db('organizations')
        .where({ id: owner.organization.id })
        .update({ subscription_status: 'lifetime', plan: 'growth' });
      await post(
        h,
        delivery(
          h,
          'subscription.updated',
          owner.organization.id,
          subscription('past_due', { subscriptionId: 'sub_local_lifetime' }),
        ),
      );
      const b = await h.billing(owner);
      t.equal(b.subscription_status, 'lifetime');
      t.equal(b.summary.plan, 'growth');

      const unknown = await post(
        h,
        delivery(
          h,
          'subscription.updated',
          'org_nobody',
          subscription('active', { subscriptionId: 'sub_local_nobody', customerId: 'cus_local_nobody' }),
        ),
      );
      t.equal(unknown.status, 200);
      t.equal(await outcomeOf(h, unknown.body.event_id), 'unknown_organization');
      const unused = await post(h, delivery(h, 'customer.updated', owner.organization.id, {}));
      t.match(unused.body, { type: 'unhandled', duplicate: false });
    },
  );

  await t.test('the connect endpoint applies payout account events only', async (t) => {
    const owner = await h.owner();
    await h.app
      .db('organizations')
      .where({ id: owner.organization.id })
      .update({ payment_connect_account_id: 'acct_local_x1' });
    const account = { accountId: 'acct_local_x1', chargesEnabled: true, payoutsEnabled: false, detailsSubmitted: true };
    const older = delivery(
      h,
      'account.updated',
      owner.organization.id,
      { ...account, chargesEnabled: false },
      { created: new Date(Date.now() - 60_000) },
    );
    const newer = delivery(h, 'account.updated', owner.organization.id, account);
    t.equal((await post(h, newer, '/v1/webhooks/payment/local/connect')).status, 200);
    t.equal((await post(h, older, '/v1/webhooks/payment/local/connect')).status, 200);
    const org = (await h.app.db('organizations').where({ id: owner.organization.id }).first()) as {
      connect_charges_enabled: boolean;
    };
    t.equal(org.connect_charges_enabled, true, 'an older account event does not undo a newer one');
    const wrong = await post(
      h,
      delivery(h, 'topup.paid', owner.organization.id, topup10('pi_c', 'cus_c')),
      '/v1/webhooks/payment/local/connect',
    );
    t.equal(wrong.status, 200);
    t.equal(await outcomeOf(h, wrong.body.event_id), 'ignored_on_connect_endpoint');
  });

  await t.test('the webhook operations are documented', async (t) => {
    const doc = JSON.parse((await h.app.server.inject('/v1/openapi.json')).payload) as {
      paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
    };
    t.ok(doc.paths['/v1/webhooks/payment/{provider}']?.post, 'account endpoint');
    t.ok(doc.paths['/v1/webhooks/payment/{provider}/connect']?.post, 'connect endpoint');
    t.equal(doc.paths['/v1/webhooks/payment/{provider}'].post.tags[0], 'payment webhooks');
    t.notOk(doc.paths['/pay/local/checkout/{session}'], 'hosted pages stay out of the API document');
    const ops = Object.values(doc.paths)
      .flatMap((p) => Object.values(p))
      .filter((o) => ['billing', 'payment webhooks', 'claims', 'referrals'].includes(o.tags?.[0] ?? ''));
    t.equal(ops.length, 20, 'the 20 operations of issue 9');
  });
});
