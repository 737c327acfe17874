import t from 'tap';
import { insertWorkspace } from '../../../test/helpers/accounts.js';
import type { BillingGate } from '../services/gate.js';
import type { PlanLimits } from '../services/limits.js';
import { startBilling } from './helpers.js';

t.test('billing settings, add-ons and agency billing', async (t) => {
  const h = await startBilling(t);
  const gate = h.app.container.resolve<BillingGate>('billingGate');
  const limits = h.app.container.resolve<PlanLimits>('planLimits');
  /** The gate's answer for a job of the organization (outside any workspace), in its own transaction. */
  const authorize = (orgId: string, kind: 'fix' | 'diagnosis', estimatedCostUsd: number, jobId?: string) =>
    h.app.db.transaction((trx) => gate.authorizeJob(trx, { orgId, workspaceId: null, kind, estimatedCostUsd, jobId }));
  let jobs = 0;
  const runFix = async (orgId: string) => {
    const jobId = `job_${++jobs}`;
    await authorize(orgId, 'fix', 0.5, jobId);
    await h.app.db.transaction((trx) => gate.recordJobCost(trx, { orgId, jobId, costUsd: 0.42, consumedFix: true }));
  };
  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
      return null;
    } catch (err) {
      const e = err as { output?: { statusCode: number }; data?: { code: string; details: Record<string, unknown> } };
      return { status: e.output?.statusCode, code: e.data?.code, reason: e.data?.details?.reason };
    }
  };

  await t.test('the open-source plan: only without a plan, audited, public repositories only', async (t) => {
    const owner = await h.owner();
    const res = await h.call(owner, 'POST', '/v1/billing/open-source');
    t.equal(res.status, 200, res.payload);
    t.equal(res.body.summary.plan, 'open_source');
    t.equal(res.body.subscription_status, 'none');
    t.same(
      res.body.summary.credits_by_source.map((c) => [c.source, c.fixes_remaining]),
      [['plan', 20]],
      'the monthly fixes of the plan',
    );
    const audit = await h.audit(owner.organization.id, 'billing.open_source_enabled');
    t.equal(audit.length, 1);
    t.match(audit[0], {
      actor_type: 'user',
      actor_id: owner.user.id,
      changes: { plan: { before: 'none', after: 'open_source' } },
    });
    t.equal((await h.call(owner, 'POST', '/v1/billing/open-source')).status, 200, 'again: no change');
    t.equal((await h.audit(owner.organization.id, 'billing.open_source_enabled')).length, 1);

    const ok = await h.app.db.transaction((trx) =>
      limits.assert(trx, owner.organization.id, 'public_repos_only', { isPublic: true }),
    );
    t.equal(ok.limit, 'public_repos_only');
    const refused = await refusal(
      h.app.db.transaction((trx) =>
        limits.assert(trx, owner.organization.id, 'public_repos_only', { isPublic: false }),
      ),
    );
    t.same(refused, { status: 402, code: 'plan_limit_reached', reason: 'public_repos_only' });

    const subscribed = await h.owner();
    await h.subscribe(subscribed, 'indie');
    const taken = await h.call(subscribed, 'POST', '/v1/billing/open-source');
    t.equal(taken.status, 409);
    t.equal(taken.body.code, 'plan_exists');
  });

  await t.test('overage: refused on a plan without paid fixes, audited when turned on', async (t) => {
    const owner = await h.owner();
    const none = await h.call(owner, 'PUT', '/v1/billing/overage', { enabled: true });
    t.equal(none.status, 409);
    t.equal(none.body.code, 'overage_not_available');
    await h.subscribe(owner, 'startup');
    const on = await h.call(owner, 'PUT', '/v1/billing/overage', { enabled: true });
    t.equal(on.status, 200);
    t.equal(on.body.summary.fixes.overage_enabled, true);
    t.equal(on.body.summary.fixes.overage_price_usd, 3.5);
    t.match((await h.audit(owner.organization.id, 'billing.overage_changed'))[0], {
      changes: { overage_enabled: { before: false, after: true } },
    });
  });

  await t.test('credits, then overage, then the spend cap: alert at 80 % once, jobs blocked at the cap', async (t) => {
    const owner = await h.owner();
    const orgId = owner.organization.id;
    await h.subscribe(owner, 'indie'); // 5 trial fixes, overage at 4 USD
    for (let i = 0; i < 5; i++) await runFix(orgId);
    const exhausted = await refusal(authorize(orgId, 'fix', 1));
    t.same(
      exhausted,
      { status: 402, code: 'plan_limit_reached', reason: 'fix_credits_exhausted' },
      'no credits and overage off',
    );

    await h.call(owner, 'PUT', '/v1/billing/overage', { enabled: true });
    const cap = await h.call(owner, 'PUT', '/v1/billing/spend-cap', { cap_usd: 10 });
    t.equal(cap.status, 200);
    t.equal(cap.body.summary.spend.cap_usd, 10);
    t.equal(cap.body.summary.spend.alert_ratio, 0.8);

    await runFix(orgId); // 4 USD: 40 %
    t.equal((await h.mails(orgId, 'billing.spend_cap_alert')).length, 0);
    await runFix(orgId); // 8 USD: 80 %
    const alerts = await h.mails(orgId, 'billing.spend_cap_alert');
    t.equal(alerts.length, 1, 'the alert mail at 80 %');
    t.equal(alerts[0]?.to_address, owner.email);
    t.match(alerts[0]?.subject, /80 % of your monthly spend cap/);

    const over = await refusal(authorize(orgId, 'fix', 1));
    t.same(
      over,
      { status: 402, code: 'plan_limit_reached', reason: 'spend_cap' },
      'a fix that would pass the cap is refused',
    );
    const diagnosis = await authorize(orgId, 'diagnosis', 0.1);
    t.equal(diagnosis.funding, 'included', 'diagnoses still run below the cap');

    let billing = await h.billing(owner);
    t.match(billing.summary.spend, { spent_this_period_usd: 8, alert_sent: true, blocked: false });
    t.match(billing.usage, { fixes: 7, overage_fixes: 2, overage_usd: 8, cost_usd: 2.94, cost_per_fix_usd: 0.42 });

    await h.call(owner, 'PUT', '/v1/billing/spend-cap', { cap_usd: 8 });
    billing = await h.billing(owner);
    t.equal(billing.summary.spend.blocked, true, 'spend at the cap blocks');
    const blocked = await refusal(authorize(orgId, 'diagnosis', 0.1));
    t.same(blocked, { status: 402, code: 'plan_limit_reached', reason: 'spend_cap' }, 'every job is blocked at 100 %');
    t.equal((await h.mails(orgId, 'billing.spend_cap_alert')).length, 1, 'one alert per period');

    const removed = await h.call(owner, 'PUT', '/v1/billing/spend-cap', { cap_usd: null });
    t.equal(removed.body.summary.spend.cap_usd, null, 'null removes the cap');
    t.equal((await h.audit(orgId, 'billing.spend_cap_changed')).length, 3);
  });

  await t.test('plan limits', async (t) => {
    const owner = await h.owner();
    const orgId = owner.organization.id;
    const check = (name: Parameters<PlanLimits['assert']>[2], ctx: Parameters<PlanLimits['assert']>[3]) =>
      refusal(h.app.db.transaction((trx) => limits.assert(trx, orgId, name, ctx)));
    t.same(await check('tickets_per_month', { workspaceId: 'ws_1', count: 50 }), {
      status: 402,
      code: 'plan_limit_reached',
      reason: 'tickets_per_month',
    });
    t.equal(await check('tickets_per_month', { workspaceId: 'ws_1', count: 49 }), null);
    t.same(await check('repositories_per_workspace', { workspaceId: 'ws_1', count: 1 }), {
      status: 402,
      code: 'plan_limit_reached',
      reason: 'repositories_per_workspace',
    });
    await insertWorkspace(h.app, orgId);
    t.same(
      await check('workspaces_included', {}),
      { status: 402, code: 'plan_limit_reached', reason: 'workspaces_included' },
      'no extra workspaces without a plan',
    );
    await h.subscribe(owner, 'indie');
    const extra = await h.app.db.transaction((trx) => limits.assert(trx, orgId, 'workspaces_included', {}));
    t.match(extra, { extra: true, extraPriceUsd: 15 }, 'Indie sells extra workspaces');
    t.equal(await check('repositories_per_workspace', { workspaceId: 'ws_1', count: 1 }), null);
    t.equal((await h.billing(owner)).summary.workspaces.used, 1);
  });
});
