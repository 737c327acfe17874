import t from 'tap';
import { LOCAL_TEST_CARDS } from '../../../adapters/payment-local/index.js';
import { dateOf, startBilling } from './helpers.js';

const DAY = 86_400_000;

t.test('portal, payment failures, top-ups and roles on payment-local', async (t) => {
  const h = await startBilling(t);

  await t.test('the portal shows the subscription and cancels it; without a customer there is no portal', async (t) => {
    const owner = await h.owner();
    const none = await h.call(owner, 'POST', '/v1/billing/portal');
    t.equal(none.status, 409);
    t.equal(none.body.code, 'no_customer');
    await h.subscribe(owner, 'startup');
    const portal = await h.call(owner, 'POST', '/v1/billing/portal');
    t.equal(portal.status, 200);
    t.match(portal.body.url, /\/pay\/local\/portal\/bps_local_/);
    const page = await h.page(portal.body.url);
    t.match(page.payload, /startup/);
    t.match(page.payload, /•••• 4242/);
    const done = await h.page(portal.body.url, { action: 'cancel' });
    t.equal(done.status, 200);
    t.equal((await h.billing(owner)).summary.cancel_at_period_end, true, 'the portal cancelled through a webhook');
    await h.page(portal.body.url, { action: 'resume' });
    t.equal((await h.billing(owner)).summary.cancel_at_period_end, false);
  });

  await t.test('a failing card: past due after the trial, active again after a new card in the portal', async (t) => {
    const owner = await h.owner();
    await h.subscribe(owner, 'indie', LOCAL_TEST_CARDS.failsLater);
    const trialing = await h.billing(owner);
    await h.local.runClock(new Date(dateOf(trialing.trial.ends_at).getTime() + 1000));
    const due = await h.billing(owner);
    t.equal(due.subscription_status, 'past_due');
    t.equal(due.past_due, true);
    t.equal((await h.call(owner, 'GET', '/v1/billing/invoices')).body.items[0].status, 'payment_failed');
    const portal = await h.call(owner, 'POST', '/v1/billing/portal');
    await h.page(portal.body.url, { action: 'update_card', card: LOCAL_TEST_CARDS.ok });
    const back = await h.billing(owner);
    t.equal(back.subscription_status, 'active');
    t.equal(
      (await h.call(owner, 'GET', '/v1/billing/invoices')).body.items[0].status,
      'paid',
      'the open invoice was paid',
    );
  });

  await t.test('a top-up grants its fixes once; a declined card grants nothing', async (t) => {
    const owner = await h.owner();
    const noPlan = await h.call(owner, 'POST', '/v1/billing/topups', { pack: 'topup_10' });
    t.equal(noPlan.status, 409);
    t.equal(noPlan.body.code, 'topups_not_available');
    await h.subscribe(owner, 'startup');

    const declined = await h.call(owner, 'POST', '/v1/billing/topups', { pack: 'topup_10' });
    const refused = await h.page(declined.body.url, { card: LOCAL_TEST_CARDS.declined });
    t.equal(refused.status, 402);
    t.match(refused.payload, /declined/);

    const topup = await h.call(
      owner,
      'POST',
      '/v1/billing/topups',
      { pack: 'topup_50' },
      { 'idempotency-key': 'topup-1' },
    );
    const same = await h.call(
      owner,
      'POST',
      '/v1/billing/topups',
      { pack: 'topup_50' },
      { 'idempotency-key': 'topup-1' },
    );
    t.equal(same.body.url, topup.body.url, 'the same Idempotency-Key opens the same checkout');
    t.equal((await h.page(topup.body.url, { card: LOCAL_TEST_CARDS.ok })).status, 303);
    t.equal(
      (await h.page(topup.body.url, { card: LOCAL_TEST_CARDS.ok })).status,
      410,
      'a completed checkout cannot be paid twice',
    );

    const billing = await h.billing(owner);
    const bySource = Object.fromEntries(billing.summary.credits_by_source.map((c) => [c.source, c.fixes_remaining]));
    t.same(bySource, { plan: 10, topup: 50 });
    t.equal(billing.summary.fixes.credits_remaining, 60);
    const credits = await h.call(owner, 'GET', '/v1/billing/credits');
    t.equal(credits.status, 200);
    const topupBalance = credits.body.balances.find((b) => b.source === 'topup');
    t.match(topupBalance, { granted_fixes: 50, fixes_remaining: 50 });
    t.ok(new Date(topupBalance?.expires_at ?? 0).getTime() > Date.now() + 360 * DAY, 'top-ups last a year');
    t.ok(credits.body.ledger.some((e) => e.kind === 'grant' && e.fixes === 50 && e.source === 'topup'));
    const invoices = (await h.call(owner, 'GET', '/v1/billing/invoices')).body.items;
    t.match(invoices[0], { purpose: 'topup', amount_paid_usd: 125, status: 'paid' });
    t.equal((await h.audit(owner.organization.id, 'billing.topup_paid')).length, 1);
  });

  await t.test('input and roles', async (t) => {
    const owner = await h.owner();
    const bad = await h.call(owner, 'POST', '/v1/billing/checkout', { plan: 'enterprise' });
    t.equal(bad.status, 400);
    t.equal(bad.body.code, 'invalid_request');
    const reviewer = await h.member(owner, 'reviewer');
    t.equal((await h.call(reviewer, 'GET', '/v1/billing')).status, 200, 'reviewers read billing');
    t.equal((await h.call(reviewer, 'POST', '/v1/billing/checkout', { plan: 'indie' })).status, 403);
    t.equal((await h.call(reviewer, 'GET', '/v1/billing/invoices')).status, 403);
    const viewer = await h.member(owner, 'client_viewer');
    t.equal((await h.call(viewer, 'GET', '/v1/billing')).status, 403);
    t.equal((await h.call(null, 'GET', '/v1/billing')).status, 401);
  });
});
