import t from 'tap';
import { LOCAL_TEST_CARDS } from '../../../adapters/payment-local/index.js';
import { dateOf, startBilling } from './helpers.js';

const DAY = 86_400_000;

t.test('subscriptions on payment-local, end to end', async (t) => {
  const h = await startBilling(t);

  await t.test(
    'an owner starts a 14-day trial with a card on file; it converts; the trial is for the first subscription only',
    async (t) => {
      const owner = await h.owner();
      const before = await h.billing(owner);
      t.equal(before.payments_enabled, true);
      t.equal(before.has_subscription, false);
      t.equal(before.trial_available, true, 'a first subscription gets a trial');
      t.match(
        before.plans.find((p) => p.id === 'startup'),
        { price_monthly_usd: 99, trial_days: 14, available: true, current: false },
      );

      const checkout = await h.call(owner, 'POST', '/v1/billing/checkout', { plan: 'startup' });
      t.equal(checkout.status, 200, checkout.payload);
      t.match(checkout.body.url, /^http:\/\/localhost:3000\/pay\/local\/checkout\/cs_local_[0-9a-f]{24}$/);
      const page = await h.page(checkout.body.url);
      t.equal(page.status, 200);
      t.match(page.payload, /14-day free trial/);
      t.match(page.headers['content-type'], /text\/html/);
      t.match(
        (await h.page(`${checkout.body.url}?lang=it`)).payload,
        /Prova gratuita di 14 giorni/,
        'the page speaks Italian too',
      );

      const paid = await h.page(checkout.body.url, { card: '4242 4242 4242 4242' });
      t.equal(paid.status, 303, 'Pay redirects to the success URL');
      t.match(paid.headers.location, /\/billing\?checkout=success$/);

      const trialing = await h.billing(owner);
      t.equal(trialing.subscription_status, 'trialing', 'the webhook put the subscription in trial');
      t.equal(trialing.summary.plan, 'startup');
      t.equal(trialing.summary.has_payment_method, true);
      t.equal(trialing.trial.days_left, 14);
      t.equal(trialing.trial.fixes, 10);
      t.equal(trialing.trial_available, false);
      t.same(
        trialing.summary.credits_by_source.map((c) => [c.source, c.fixes_remaining]),
        [['plan', 10]],
        'trial fixes granted',
      );
      t.equal(
        (await h.audit(owner.organization.id, 'billing.subscription_changed')).length,
        1,
        'the status change is audited',
      );
      t.equal((await h.audit(owner.organization.id, 'billing.checkout_started')).length, 1);

      const again = await h.call(owner, 'POST', '/v1/billing/checkout', { plan: 'growth' });
      t.equal(again.status, 409);
      t.equal(again.body.code, 'subscription_exists');

      const trialEnd = dateOf(trialing.trial.ends_at);
      await h.local.runClock(new Date(trialEnd.getTime() + 60_000));
      const active = await h.billing(owner);
      t.equal(active.subscription_status, 'active', 'the trial converted');
      t.equal(active.summary.current_period_start, trialEnd.toISOString());
      t.equal(active.summary.fixes.included_per_month, 60);
      const invoices = await h.call(owner, 'GET', '/v1/billing/invoices');
      t.same(
        invoices.body.items.map((i) => [i.amount_paid_usd, i.status]),
        [
          [99, 'paid'],
          [0, 'paid'],
        ],
        'newest first: the first charge, then the trial',
      );
    },
  );

  await t.test('cancel at period end; the period ends; a new checkout has no trial', async (t) => {
    const owner = await h.owner();
    await h.subscribe(owner, 'indie');
    const trialing = await h.billing(owner);
    await h.local.runClock(new Date(dateOf(trialing.trial.ends_at).getTime() + 1000));

    const canceled = await h.call(owner, 'POST', '/v1/billing/cancel');
    t.equal(canceled.status, 200, canceled.payload);
    t.equal(canceled.body.summary.cancel_at_period_end, true);
    t.equal(canceled.body.subscription_status, 'active', 'still running until the period ends');
    t.equal((await h.call(owner, 'POST', '/v1/billing/cancel')).status, 200, 'cancelling twice is harmless');
    t.equal((await h.audit(owner.organization.id, 'billing.subscription_cancel_requested')).length, 1);

    await h.local.runClock(new Date(dateOf(canceled.body.summary.current_period_end).getTime() + 1000));
    const ended = await h.billing(owner);
    t.equal(ended.subscription_status, 'canceled');
    t.equal(ended.summary.plan, 'none');
    t.equal(ended.has_subscription, false);
    t.equal(ended.trial_available, false);

    const checkout = await h.call(owner, 'POST', '/v1/billing/checkout', { plan: 'indie' });
    t.equal(checkout.status, 200);
    const page = await h.page(checkout.body.url);
    t.notMatch(page.payload, /free trial/, 'no second trial');
    await h.page(checkout.body.url, { card: LOCAL_TEST_CARDS.ok });
    const back = await h.billing(owner);
    t.equal(back.subscription_status, 'active', 'canceled → active with a new subscription, no trial');
  });

  await t.test('a plan switch is prorated for the rest of the period', async (t) => {
    const owner = await h.owner();
    await h.subscribe(owner, 'indie');
    const trialing = await h.billing(owner);
    const start = dateOf(trialing.trial.ends_at);
    const at = new Date(start.getTime() + 3 * DAY);
    await h.local.runClock(at);
    const active = await h.billing(owner);
    const end = dateOf(active.summary.current_period_end);

    const switched = await h.call(owner, 'POST', '/v1/billing/plan', { plan: 'growth' });
    t.equal(switched.status, 200, switched.payload);
    t.equal(switched.body.summary.plan, 'growth');
    t.equal(switched.body.subscription_status, 'active');
    const expected =
      Math.round((249 - 29) * ((end.getTime() - at.getTime()) / (end.getTime() - start.getTime())) * 100) / 100;
    const invoices = (await h.call(owner, 'GET', '/v1/billing/invoices')).body.items;
    t.ok(
      Math.abs(invoices[0].amount_paid_usd - expected) <= 0.02,
      `prorated charge ${invoices[0].amount_paid_usd} ≈ ${expected}`,
    );
    t.equal(invoices[0].purpose, 'subscription');
    t.equal(switched.body.summary.fixes.included_per_month, 200);
    const balances = (await h.call(owner, 'GET', '/v1/billing/credits')).body.balances;
    const period = balances.filter((b) => b.reference.startsWith('period:'));
    t.same(
      period.map((b) => b.granted_fixes).sort((a, b) => a - b),
      [15, 185],
      'the period allowance is topped up to the new plan (15 + 185)',
    );
    const audit = await h.audit(owner.organization.id, 'billing.plan_switched');
    t.match(audit[0]?.changes, { plan: { before: 'indie', after: 'growth' } });
    t.equal(
      (await h.call(owner, 'POST', '/v1/billing/plan', { plan: 'growth' })).status,
      200,
      'the same plan again changes nothing',
    );
    t.equal((await h.call(owner, 'GET', '/v1/billing/invoices')).body.items.length, invoices.length);
  });

  await t.test('a switch during the trial charges nothing; without a subscription it is refused', async (t) => {
    const owner = await h.owner();
    const none = await h.call(owner, 'POST', '/v1/billing/plan', { plan: 'growth' });
    t.equal(none.status, 409);
    t.equal(none.body.code, 'no_subscription');
    await h.subscribe(owner, 'indie');
    const switched = await h.call(owner, 'POST', '/v1/billing/plan', { plan: 'startup' });
    t.equal(switched.body.summary.plan, 'startup');
    t.equal(switched.body.subscription_status, 'trialing');
    const invoices = (await h.call(owner, 'GET', '/v1/billing/invoices')).body.items;
    t.same(
      invoices.map((i) => i.amount_paid_usd),
      [0],
    );
  });
});
