import t from 'tap';
import { startBilling } from './helpers.js';

// The operator's desk of a self-hosted installation: staff see every organization with its plan
// and credits, put one on enterprise (sold by no checkout; the only plan with single sign-on),
// and review credit claims. Nobody else reaches it; each change is audited where it happens.
t.test('staff grant enterprise to an organization, which can then claim an SSO domain', async (t) => {
  const h = await startBilling(t);
  const staff = await h.owner();
  await h.app.db('users').where({ id: staff.user.id }).update({ staff: true });
  const initech = await h.owner();
  await h.app.db('organizations').where({ id: initech.organization.id }).update({ name: 'Initech 100% Real_Co' });

  // Owners, even of their own organization, are not staff.
  for (const [method, url] of [
    ['GET', '/v1/staff/organizations'],
    ['GET', `/v1/staff/organizations/${initech.organization.id}`],
    ['GET', '/v1/staff/claims'],
  ] as const) {
    t.match(
      await h.call(initech, method, url),
      { status: 403, body: { code: 'forbidden' } },
      `${method} ${url} is staff only`,
    );
  }
  t.match(
    await h.call(initech, 'PUT', `/v1/staff/organizations/${initech.organization.id}/plan`, {
      plan: 'enterprise',
      reason: 'self-service',
    }),
    { status: 403 },
  );
  t.equal((await h.call(null, 'GET', '/v1/staff/organizations')).status, 401);

  // Before: no plan, single sign-on refused with the plan reason.
  t.match(await h.call(initech, 'POST', '/v1/security/sso/domains', { domain: 'initech.example' }), {
    status: 402,
    body: { code: 'feature_not_in_plan' },
  });

  // The list: search by name (LIKE wildcards are literal), by exact id, by plan; paged.
  const found = await h.call(staff, 'GET', `/v1/staff/organizations?q=${encodeURIComponent('100% real_')}`);
  t.equal(found.status, 200);
  t.same(
    found.body.items.map((o) => o.id),
    [initech.organization.id],
    '% and _ match themselves',
  );
  t.same(
    (await h.call(staff, 'GET', `/v1/staff/organizations?q=${encodeURIComponent('1%0')}`)).body.items,
    [],
    'a % in the term is not a wildcard',
  );
  t.same(
    (await h.call(staff, 'GET', `/v1/staff/organizations?q=${initech.organization.id}`)).body.items.map((o) => o.id),
    [initech.organization.id],
  );
  const first = await h.call(staff, 'GET', '/v1/staff/organizations?limit=1');
  t.equal(first.body.items.length, 1);
  t.equal(first.body.items[0].id, initech.organization.id, 'newest first');
  const second = await h.call(staff, 'GET', `/v1/staff/organizations?limit=1&cursor=${first.body.next_cursor}`);
  t.equal(second.body.items[0].id, staff.organization.id, 'the next page continues');
  t.match(first.body.items[0], { plan: 'none', subscription_status: 'none', credits_remaining: 0, members: 1 });

  // Bad input: a plan that does not exist, no reason, an unknown organization.
  t.match(
    await h.call(staff, 'PUT', `/v1/staff/organizations/${initech.organization.id}/plan`, {
      plan: 'platinum',
      reason: 'x y z',
    }),
    { status: 400 },
  );
  t.match(
    await h.call(staff, 'PUT', `/v1/staff/organizations/${initech.organization.id}/plan`, { plan: 'enterprise' }),
    { status: 400 },
  );
  t.match(
    await h.call(staff, 'PUT', '/v1/staff/organizations/org_missing/plan', {
      plan: 'enterprise',
      reason: 'contract 42',
    }),
    { status: 404 },
  );

  // The grant: the plan, its monthly fixes at once, one audit entry in Initech's log naming the staff member.
  const granted = await h.call(staff, 'PUT', `/v1/staff/organizations/${initech.organization.id}/plan`, {
    plan: 'enterprise',
    reason: 'Contract 2026-114',
  });
  t.equal(granted.status, 200);
  t.match(granted.body, { plan: 'enterprise', subscription_status: 'none', workspaces: 0 });
  t.ok(granted.body.credits_remaining > 0, "the plan's fixes are granted");
  t.match(granted.body.credits_by_source, [{ source: 'plan', fixes_remaining: granted.body.credits_remaining }]);
  const again = await h.call(staff, 'PUT', `/v1/staff/organizations/${initech.organization.id}/plan`, {
    plan: 'enterprise',
    reason: 'Contract 2026-114',
  });
  t.equal(again.body.credits_remaining, granted.body.credits_remaining, 'granting the same plan again changes nothing');
  const audit = await h.audit(initech.organization.id, 'billing.plan_granted');
  t.equal(audit.length, 1, 'one audit entry');
  t.match(audit[0], {
    actor_type: 'staff',
    actor_id: staff.user.id,
    actor_email: staff.user.email,
    changes: { plan: { before: 'none', after: 'enterprise' } },
    metadata: { reason: 'Contract 2026-114' },
  });
  t.equal(
    (await h.audit(staff.organization.id, 'billing.plan_granted')).length,
    0,
    "nothing in the staff member's own organization",
  );
  t.equal((await h.billing(initech)).summary.plan, 'enterprise', 'the organization sees its plan');

  // After: single sign-on works for them.
  t.equal((await h.call(initech, 'POST', '/v1/security/sso/domains', { domain: 'initech.example' })).status, 201);
});

t.test('a paying organization is not put on a plan by hand; staff review credit claims', async (t) => {
  const h = await startBilling(t);
  const staff = await h.owner();
  await h.app.db('users').where({ id: staff.user.id }).update({ staff: true });
  const paying = await h.owner();
  t.equal((await h.subscribe(paying, 'startup')).status, 303, 'paid on the hosted page, sent back');
  const refused = await h.call(staff, 'PUT', `/v1/staff/organizations/${paying.organization.id}/plan`, {
    plan: 'enterprise',
    reason: 'upgrade',
  });
  t.match(refused, { status: 409, body: { code: 'subscription_exists', details: { plan: 'startup' } } });
  t.equal((await h.billing(paying)).summary.plan, 'startup', 'the plan did not change');

  // Claims of every organization, with its name; a decision grants the credits once.
  const claim = await h.call(paying, 'POST', '/v1/billing/claims', {
    kind: 'review',
    url: 'https://reviews.example/patchwell',
  });
  t.equal(claim.status, 201);
  const queue = await h.call(staff, 'GET', '/v1/staff/claims?status=pending');
  t.match(queue.body.items, [{ id: claim.body.id, org_id: paying.organization.id, status: 'pending', kind: 'review' }]);
  t.equal(queue.body.items[0].organization_name, paying.organization.name);
  t.match(await h.call(staff, 'POST', '/v1/staff/claims/clm_missing/decision', { decision: 'approve' }), {
    status: 404,
  });
  const decided = await h.call(staff, 'POST', `/v1/staff/claims/${claim.body.id}/decision`, {
    decision: 'approve',
    note: 'Published, 5 stars',
  });
  t.match(decided, { status: 200, body: { id: claim.body.id, status: 'approved' } });
  t.match(await h.call(staff, 'POST', `/v1/staff/claims/${claim.body.id}/decision`, { decision: 'reject' }), {
    status: 409,
    body: { code: 'claim_decided' },
  });
  const sources = (await h.billing(paying)).summary.credits_by_source.map((c) => c.source);
  t.ok(sources.includes('review'), 'the review credits are granted');
  t.match(await h.audit(paying.organization.id, 'billing.claim_approved'), [
    { actor_type: 'staff', actor_id: staff.user.id },
  ]);
  t.same((await h.call(staff, 'GET', '/v1/staff/claims?status=pending')).body.items, [], 'the queue is empty');
});
