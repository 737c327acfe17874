import t from 'tap';
import type { Knex } from 'knex';
import { signUp } from '../../../test/helpers/accounts.js';
import type { BillingGate } from '../services/gate.js';
import {
  call,
  connectRepository,
  createWorkspace,
  receiveEmail,
  startFixesApp,
  waitFor,
} from '../../fixes/test/helpers.js';

/** The columns the test reads of a fix job, a fix attempt, a job's billed cost. */
interface JobRow {
  id: string;
  status: string;
  cost_usd: string | number;
  result: unknown;
}
interface AttemptRow {
  id: string;
  status: string;
}
interface CostRow {
  cost_usd: string | number;
}

const CART = 'exports.cartTotal = (items) => items.reduce((sum, i) => sum + i.price, 0);\n';
const TEST =
  "const assert = require('node:assert');\nassert.strictEqual(require('./cart.js').cartTotal([{ price: 2, qty: 3 }]), 6);\n";
const AGENT = `sed -i 's/sum + i.price,/sum + i.price * i.qty,/' cart.js`;

// One service for the file: billing on payment-local (the default) and the fix loop with the managed agent.
const app = await startFixesApp(
  t,
  {},
  {},
  { list: ['agent-builtin', 'agent-managed'], options: { 'agent-managed': { command: AGENT } } },
);
const db = app.db as Knex;

t.test('workspaces the plan includes: the none plan refuses a second one, a paid plan bills it as extra', async (t) => {
  const owner = await signUp(app);
  const first = await call(app, owner, 'POST', '/v1/workspaces', { name: 'Shop' });
  t.equal(first.status, 201, 'the none plan includes one workspace');
  const second = await call(app, owner, 'POST', '/v1/workspaces', { name: 'Blog' });
  t.match(second, {
    status: 402,
    body: { code: 'plan_limit_reached', details: { reason: 'workspaces_included', plan: 'none', limit: 1, used: 1 } },
  });
  t.equal(
    Number(
      (
        (await db('workspaces').where({ org_id: owner.organization.id }).count({ n: '*' }).first()) as {
          n: number | string;
        }
      ).n,
    ),
    1,
    'nothing stored',
  );

  // An archived workspace no longer counts.
  t.equal((await call(app, owner, 'POST', `/v1/workspaces/${first.body.id}/archive`)).status, 200);
  t.equal(
    (await call(app, owner, 'POST', '/v1/workspaces', { name: 'Blog' })).status,
    201,
    'the archived one freed its place',
  );

  // The indie plan (1 included, 15 USD a month per extra workspace), through a real checkout on payment-local.
  const buyer = await signUp(app);
  const checkout = await call(app, buyer, 'POST', '/v1/billing/checkout', { plan: 'indie' });
  t.equal(checkout.status, 200, JSON.stringify(checkout.body));
  const url = new URL(checkout.body.url);
  const paid = await app.server.inject({
    method: 'POST',
    url: url.pathname + url.search,
    payload: new URLSearchParams({ card: '4242 4242 4242 4242' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.ok(paid.statusCode < 400, `checkout page: ${paid.statusCode}`);
  t.equal((await call(app, buyer, 'POST', '/v1/workspaces', { name: 'Shop' })).status, 201);
  const extra = await call(app, buyer, 'POST', '/v1/workspaces', { name: 'Blog' });
  t.equal(extra.status, 201, 'an extra workspace is allowed on a plan that prices it');
  const billing = await call(app, buyer, 'GET', '/v1/billing');
  t.equal(billing.status, 200);
  t.equal(billing.body.summary.plan, 'indie');
  t.same(billing.body.summary.workspaces, { used: 2, included: 1, extra: 1, extra_price_usd: 15 });
  const audit = (await db('audit_entries')
    .where({ org_id: buyer.organization.id, action: 'workspace.created' })
    .orderBy('created_at')) as Array<{ metadata: Record<string, unknown> }>;
  t.equal(audit.length, 2);
  t.match(audit[0].metadata, { plan: 'indie', extra_workspace: false, extra_price_usd: 0 });
  t.match(audit[1].metadata, { plan: 'indie', extra_workspace: true, extra_price_usd: 15 });
});

t.test(
  "the fix loop records each job's cost once: usage and the ledger count a verified fix once, a repeated finish changes nothing",
  async (t) => {
    const owner = await signUp(app);
    const orgId = owner.organization.id;
    const ws = await createWorkspace(app, owner, 'Shop', {
      execution_mode: 'runner',
      test_command: 'node test.js',
      confidence_threshold: 0.5,
    });
    await connectRepository(app, owner, ws.id, 'shop', { 'cart.js': CART, 'test.js': TEST });
    const ticketId = await receiveEmail(app, ws.inbound_address, {
      subject: 'Cart total is wrong',
      body: 'The cart total is wrong: cartTotal ignores the quantity. Error 500 at checkout.',
    });
    await waitFor(
      async () => ((await call(app, owner, 'GET', `/v1/tickets/${ticketId}`)).body.state === 'escalated' ? true : null),
      'escalated: no runner executor here',
    );

    // The diagnosis job is recorded as an answer.
    const dxJob = (await db('fix_jobs')
      .where({ org_id: orgId, ticket_id: ticketId, kind: 'diagnose' })
      .first()) as JobRow;
    t.match(await db('billing_job_costs').where({ org_id: orgId, job_id: dxJob.id }), [
      { kind: 'diagnosis', status: 'recorded', consumed_fix: false },
    ]);

    await db.transaction(async (trx) => {
      const ledger = app.container.resolve('creditLedger');
      await ledger.grant(trx, { orgId, source: 'topup', fixes: 2, reference: 'test-topup', expiresAt: null });
    });
    const credits = async () =>
      Number(
        (
          (await db('credit_balances').where({ org_id: orgId }).sum('fixes_remaining as n').first()) as {
            n: number | string | null;
          }
        ).n ?? 0,
      );
    t.equal(await credits(), 2);
    t.equal(
      (await call(app, owner, 'GET', `/v1/workspaces/${ws.id}`)).body.available_fix_credits,
      2,
      'the workspace shows the credits it can spend',
    );

    const res = await call(app, owner, 'POST', `/v1/tickets/${ticketId}/fix-in-managed`);
    t.equal(res.status, 200, res.payload);
    const attempt = await waitFor(
      async () => {
        const a = (await db('fix_attempts').where({ ticket_id: ticketId }).first()) as AttemptRow | undefined;
        return a && a.status !== 'running' ? a : null;
      },
      'the managed fix',
      40_000,
    );
    t.equal(attempt.status, 'verified');
    const job = (await db('fix_jobs').where({ fix_attempt_id: attempt.id }).first()) as JobRow;
    t.equal(job.status, 'succeeded');

    const costs = (await db('billing_job_costs').where({ org_id: orgId, job_id: job.id })) as CostRow[];
    t.equal(costs.length, 1, 'one cost row for the job');
    t.match(costs[0], { kind: 'fix', status: 'recorded', funding: 'credit', consumed_fix: true });
    t.equal(Number(costs[0].cost_usd), Number(job.cost_usd), "the job's cost as the loop reported it");
    t.equal(await credits(), 1, 'one credit for the verified fix');

    const usage = async () => (await call(app, owner, 'GET', '/v1/billing')).body.usage;
    const before = await usage();
    t.equal(before.fixes, 1);
    t.ok(before.answers >= 1, 'the diagnosis counts as an answer');

    // The finish is retried (a worker's second delivery) and billing is told again: nothing changes.
    const queue = app.container.resolve('fixJobs') as {
      finish(jobId: string, owner: string | null, result: unknown): Promise<boolean>;
    };
    t.equal(await queue.finish(job.id, null, job.result), false, 'a finished job takes no second result');
    const gate = app.container.resolve<BillingGate>('billingGate');
    await db.transaction((trx) => gate.recordJobCost(trx, { orgId, jobId: job.id, costUsd: 9.99, consumedFix: true }));
    t.equal((await db('billing_job_costs').where({ org_id: orgId, job_id: job.id })).length, 1);
    t.same(await usage(), before, 'usage unchanged');
    t.equal(await credits(), 1, 'no second credit');
    t.equal(
      (await db('credit_ledger').where({ org_id: orgId, job_id: job.id, kind: 'consume' })).length,
      1,
      'one consume entry in the ledger',
    );
  },
);
