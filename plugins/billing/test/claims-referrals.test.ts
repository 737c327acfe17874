import t from 'tap';
import { sessionFrom } from '../../../test/helpers/accounts.js';
import type { Claims } from '../services/claims.js';
import { BILLING } from '../services/deps.js';
import { startBilling } from './helpers.js';

t.test('claims and referrals', async (t) => {
  const h = await startBilling(t, {
    plugins: { billing: { options: { plans: { none: { tickets_per_month: 77 } } } } },
  });

  await t.test("the plan catalogue carries billing's configured numbers, AuthContext included", async (t) => {
    const owner = await h.owner();
    t.equal((owner.context.plan as { limits: { tickets_per_month: number } }).limits.tickets_per_month, 77);
    t.equal((await h.billing(owner)).summary.tickets.limit_per_workspace, 77);
  });

  await t.test('a review claim: requested once, listed, approved by staff with review credits', async (t) => {
    const owner = await h.owner();
    const created = await h.call(owner, 'POST', '/v1/billing/claims', {
      kind: 'review',
      url: 'https://reviews.example/patchwell',
      note: 'Five stars',
    });
    t.equal(created.status, 201, created.payload);
    t.match(created.body, {
      kind: 'review',
      status: 'pending',
      fixes: 10,
      url: 'https://reviews.example/patchwell',
      note: 'Five stars',
      decided_at: null,
    });
    const twice = await h.call(owner, 'POST', '/v1/billing/claims', {
      kind: 'review',
      url: 'https://reviews.example/again',
    });
    t.equal(twice.status, 409);
    t.equal(twice.body.code, 'claim_exists');
    t.equal(
      (await h.call(owner, 'POST', '/v1/billing/claims', { kind: 'case_study', url: 'https://blog.example/case' }))
        .status,
      201,
      'a case study is another kind',
    );
    t.equal(
      (await h.call(owner, 'POST', '/v1/billing/claims', { kind: 'tweet', url: 'https://x.example' })).status,
      400,
    );
    t.equal(
      (await h.call(owner, 'POST', '/v1/billing/claims', { kind: 'review', url: 'javascript:alert(1)' })).status,
      400,
    );

    const reviewer = await h.member(owner, 'reviewer');
    t.equal(
      (await h.call(reviewer, 'POST', '/v1/billing/claims', { kind: 'review', url: 'https://r.example' })).status,
      403,
    );
    const page1 = await h.call(reviewer, 'GET', '/v1/billing/claims?limit=1');
    t.equal(page1.status, 200);
    t.equal(page1.body.items.length, 1);
    t.equal(page1.body.items[0].kind, 'case_study', 'newest first');
    const page2 = await h.call(reviewer, 'GET', `/v1/billing/claims?limit=1&cursor=${page1.body.next_cursor}`);
    t.equal(page2.body.items[0].id, created.body.id);
    t.equal(page2.body.next_cursor, null);

    const other = await h.owner();
    t.same(
      (await h.call(other, 'GET', '/v1/billing/claims')).body.items,
      [],
      "another organization's claims are not listed",
    );

    const claims = h.app.container.resolve<Claims>('billingClaims');
    await t.rejects(
      claims.decide(other.organization.id, created.body.id, true, BILLING),
      { message: /claim not found/ },
      'decided within its own organization only',
    );
    const approved = await claims.decide(owner.organization.id, created.body.id, true, {
      ...BILLING,
      type: 'staff',
      id: 'staff_1',
    });
    t.equal(approved.status, 'approved');
    const billing = await h.billing(owner);
    t.same(
      billing.summary.credits_by_source.map((c) => [c.source, c.fixes_remaining]),
      [['review', 10]],
    );
    t.equal((await h.audit(owner.organization.id, 'billing.claim_approved')).length, 1);
    await t.rejects(claims.decide(owner.organization.id, created.body.id, true, BILLING), {
      message: /already approved/,
    });
  });

  await t.test('a referred signup credits the referrer once', async (t) => {
    const referrer = await h.owner();
    const mine = await h.call(referrer, 'GET', '/v1/referrals');
    t.equal(mine.status, 200, mine.payload);
    t.match(mine.body, { referred_count: 0, earned_fixes: 0, referrer_fixes: 10, referred_fixes: 5 });
    t.match(mine.body.url, new RegExp(`/signup\\?ref=${mine.body.code}$`));

    const signup = await h.app.server.inject({
      method: 'POST',
      url: '/v1/auth/signup',
      payload: {
        name: 'Rita',
        email: `rita-${Date.now()}@example.test`,
        password: 'correct horse battery staple',
        organization_name: 'Referred Co',
        accept_terms: true,
        referral_code: mine.body.code,
      },
    });
    t.equal(signup.statusCode, 201, signup.payload);
    const referred = { auth: { headers: { cookie: `pw_session=${sessionFrom(signup)}` } } };

    const after = await h.call(referrer, 'GET', '/v1/referrals');
    t.match(after.body, { referred_count: 1, earned_fixes: 10 });
    t.match(after.body.items[0], { organization_name: 'Referred Co', fixes: 10 });
    t.equal(
      (await h.call(referrer, 'GET', '/v1/referrals')).body.earned_fixes,
      10,
      'reading again credits nothing more',
    );
    const credits = (await h.call(referrer, 'GET', '/v1/billing/credits')).body.balances.filter(
      (b) => b.source === 'referral',
    );
    t.equal(credits.length, 1);
    t.equal(credits[0].granted_fixes, 10);
    const theirs = (await h.call(referred, 'GET', '/v1/billing/credits')).body.balances;
    t.match(theirs, [{ source: 'referral', granted_fixes: 5 }], 'the referred organization gets its welcome fixes');
    t.equal((await h.app.db('referrals').where({ org_id: referrer.organization.id })).length, 1);

    const reviewer = await h.member(referrer, 'reviewer');
    t.equal((await h.call(reviewer, 'GET', '/v1/referrals')).status, 403);
  });
});
