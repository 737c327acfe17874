import t from 'tap';
import type { Knex } from 'knex';
import {
  call,
  receiveEmail,
  waitFor,
  type CountRow,
  type JobRow,
  shopWithRepository,
  startManagedFixesApp,
  fixWithPullRequest,
} from './helpers.js';
import { BUG_REPORT, REPO_FILES } from './fixtures/cart.js';

t.test(
  'fix-in-managed: an escalated bug of a runner workspace is fixed in the managed sandbox for one fix credit',
  async (t) => {
    const app = await startManagedFixesApp(t);
    const db = app.db as Knex;
    const { owner, ws } = await shopWithRepository(
      app,
      { execution_mode: 'runner', test_command: 'node test.js', confidence_threshold: 0.5 },
      REPO_FILES,
      { credits: 0 },
    );
    const id = await receiveEmail(app, ws.inbound_address, BUG_REPORT);
    await waitFor(
      async () => ((await call(app, owner, 'GET', `/v1/tickets/${id}`)).body.state === 'escalated' ? true : null),
      'escalated: no runner executor here',
    );

    const credits = async () =>
      Number(
        (
          (await db('credit_balances')
            .where({ org_id: owner.organization.id })
            .sum('fixes_remaining as n')
            .first()) as CountRow
        ).n ?? 0,
      );
    const before = await credits();
    if (before === 0) {
      const ledger = app.container.resolve('creditLedger');
      await db.transaction((trx) =>
        ledger.grant(trx, {
          orgId: owner.organization.id,
          source: 'topup',
          fixes: 1,
          reference: 'test-topup',
          expiresAt: null,
        }),
      );
    }
    const granted = await credits();

    // A fix job at work refuses.
    await db('fix_jobs').insert({
      id: 'job_fake_running',
      org_id: owner.organization.id,
      workspace_id: ws.id,
      ticket_id: id,
      kind: 'fix',
      executor: 'agent-elsewhere',
      mode: 'runner',
      status: 'running',
      lease_expires_at: new Date(Date.now() + 3_600_000),
      payload: {},
    });
    const busy = await call(app, owner, 'POST', `/v1/tickets/${id}/fix-in-managed`);
    t.match(busy, { status: 409, body: { code: 'fix_job_active', details: { job_id: 'job_fake_running' } } });
    // A queued one is replaced.
    await db('fix_jobs')
      .where({ id: 'job_fake_running' })
      .update({ status: 'queued', lease_expires_at: null, run_after: new Date(Date.now() + 3_600_000) });

    const res = await call(app, owner, 'POST', `/v1/tickets/${id}/fix-in-managed`);
    t.equal(res.status, 200, res.payload);
    t.equal(res.body.state, 'fixing');
    t.equal(
      ((await db('fix_jobs').where({ id: 'job_fake_running' }).first()) as JobRow).status,
      'cancelled',
      'the queued fix is replaced',
    );
    t.equal(await credits(), granted - 1, 'one fix credit');
    const attempt = await fixWithPullRequest(db, id, 'the managed fix');
    t.match(attempt, { status: 'verified', tests_passed: true });
    t.match(await db('fix_jobs').where({ fix_attempt_id: attempt.id }).first(), {
      executor: 'agent-managed',
      mode: 'managed',
      status: 'succeeded',
    });
    t.equal((await call(app, owner, 'GET', `/v1/tickets/${id}`)).body.state, 'awaiting_approval');
    t.equal((await call(app, owner, 'POST', `/v1/tickets/${id}/fix-in-managed`)).status, 409, 'not escalated: 409');
    t.ok(await db('audit_entries').where({ action: 'fix.managed_requested' }).first(), 'audited');
  },
);
