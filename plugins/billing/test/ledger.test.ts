import t from 'tap';
import { newId } from '../../../core/data/ids.js';
import { createTestDb } from '../../../test/helpers/db.js';
import { CreditLedger } from '../services/credit-ledger.js';
import { judgeTransition, SUBSCRIPTION_TRANSITIONS } from '../services/subscription-status.js';

const DAY = 86_400_000;

t.test('the credits ledger', async (t) => {
  const { db, close } = await createTestDb();
  t.teardown(close);
  const ledger = new CreditLedger();
  const newOrg = async () => {
    const id = newId('org');
    await db('organizations').insert({ id, name: id, slug: id });
    return id;
  };

  await t.test('consumption takes the soonest-expiring balance first, and never the expired', async (t) => {
    const orgId = await newOrg();
    const now = Date.now();
    await ledger.grant(db, { orgId, source: 'topup', fixes: 2, reference: 'never', expiresAt: null });
    await ledger.grant(db, { orgId, source: 'plan', fixes: 1, reference: 'late', expiresAt: new Date(now + 10 * DAY) });
    await ledger.grant(db, {
      orgId,
      source: 'referral',
      fixes: 1,
      reference: 'soon',
      expiresAt: new Date(now + 2 * DAY),
    });
    await ledger.grant(db, { orgId, source: 'review', fixes: 5, reference: 'gone', expiresAt: new Date(now - DAY) });
    const again = await ledger.grant(db, {
      orgId,
      source: 'plan',
      fixes: 1,
      reference: 'late',
      expiresAt: new Date(now + 10 * DAY),
    });
    t.equal(again.created, false, 'a grant with the same reference is made once');

    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      const b = await db.transaction((trx) => ledger.consume(trx, { orgId, jobId: `job_${i}` }));
      order.push(b ? b.reference : 'none');
    }
    t.same(order, ['soon', 'late', 'never', 'never', 'none']);
    t.equal(await ledger.remaining(db, orgId), 0);

    const repeat = await db.transaction((trx) => ledger.consume(trx, { orgId, jobId: 'job_0' }));
    t.equal(repeat?.reference, 'soon', 'a job consumes once: repeating answers its balance');
    t.equal((await db('credit_ledger').where({ org_id: orgId, kind: 'consume' })).length, 4);
  });

  await t.test('refund, adjust and expiry write entries; the balance is the sum of its entries', async (t) => {
    const orgId = await newOrg();
    const { balance } = await ledger.grant(db, {
      orgId,
      source: 'sponsored',
      fixes: 3,
      reference: 'oss',
      expiresAt: new Date(Date.now() + DAY),
    });
    await db.transaction((trx) => ledger.consume(trx, { orgId, jobId: 'a' }));
    t.equal(await db.transaction((trx) => ledger.refund(trx, { orgId, jobId: 'a' })), true);
    t.equal(await db.transaction((trx) => ledger.refund(trx, { orgId, jobId: 'a' })), false, 'refunded once');
    t.equal(await db.transaction((trx) => ledger.refund(trx, { orgId, jobId: 'never-consumed' })), false);
    await db.transaction((trx) =>
      ledger.adjust(trx, { orgId, balanceId: balance.id, fixes: -10, note: 'staff correction' }),
    );
    t.equal(await ledger.remaining(db, orgId), 0, 'an adjustment never takes a balance below zero');
    await db.transaction((trx) =>
      ledger.adjust(trx, { orgId, balanceId: balance.id, fixes: 2, note: 'staff correction' }),
    );
    t.equal(await ledger.remaining(db, orgId), 2);

    const expired = await ledger.expireDue(db, new Date(Date.now() + 2 * DAY), orgId);
    t.equal(expired, 1);
    const entries = await db('credit_ledger')
      .where({ balance_id: balance.id })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    t.same(
      entries.map((e: { kind: string; fixes: number }) => [e.kind, e.fixes]),
      [
        ['grant', 3],
        ['consume', -1],
        ['refund', 1],
        ['adjust', -3],
        ['adjust', 2],
        ['expire', -2],
      ],
    );
    const row = (await db('credit_balances').where({ id: balance.id }).first()) as { fixes_remaining: number };
    t.equal(row.fixes_remaining, 0);
    t.equal(
      entries.reduce((s: number, e: { fixes: number }) => s + e.fixes, 0),
      row.fixes_remaining,
      'remaining = Σ entries',
    );
    await t.rejects(
      async () => await db('credit_balances').where({ id: balance.id }).update({ fixes_remaining: -1 }),
      /credit_balances_remaining_check/,
      'the database refuses a negative balance',
    );
  });

  await t.test(
    'parallel consumers never take more than there is',
    {
      skip: process.env.DATABASE_URL
        ? false
        : 'PGlite has one connection, so transactions cannot run in parallel; run with DATABASE_URL',
    },
    async (t) => {
      const orgId = await newOrg();
      await ledger.grant(db, {
        orgId,
        source: 'topup',
        fixes: 3,
        reference: 'p1',
        expiresAt: new Date(Date.now() + DAY),
      });
      await ledger.grant(db, {
        orgId,
        source: 'plan',
        fixes: 2,
        reference: 'p2',
        expiresAt: new Date(Date.now() + 2 * DAY),
      });
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          db.transaction(async (trx) => {
            const b = await ledger.consume(trx, { orgId, jobId: `parallel_${i}` });
            await new Promise((r) => setTimeout(r, 5)); // hold the lock a little, so transactions overlap
            return b;
          }),
        ),
      );
      t.equal(results.filter(Boolean).length, 5, 'exactly the 5 fixes there were');
      const rows = await db('credit_balances').where({ org_id: orgId });
      t.same(
        rows.map((r: { fixes_remaining: number }) => r.fixes_remaining),
        [0, 0],
      );
      t.equal((await db('credit_ledger').where({ org_id: orgId, kind: 'consume' })).length, 5);
    },
  );

  await t.test('the subscription status table', (t) => {
    const at = (s: number) => new Date(1_700_000_000_000 + s * 1000);
    const cur = (status: string, eventAt: Date | null = at(10), rank = 0) => ({
      status: status as never,
      subscriptionId: 'sub_1',
      eventAt,
      eventRank: rank,
    });
    const next = (status: string, s = 20, subscriptionId = 'sub_1') => ({
      status: status as never,
      subscriptionId,
      occurredAt: at(s),
    });
    t.same(judgeTransition(cur('none', null), next('trialing')), { apply: true });
    t.same(judgeTransition(cur('trialing'), next('active')), { apply: true });
    t.same(
      judgeTransition(cur('active'), next('trialing')),
      { apply: false, reason: 'not_allowed' },
      'no way back to a trial',
    );
    t.same(judgeTransition(cur('active'), next('past_due', 5)), { apply: false, reason: 'stale' });
    t.same(
      judgeTransition(cur('past_due', at(20), 4), next('canceled', 20)),
      { apply: true },
      'same time: canceled outranks past_due',
    );
    t.same(judgeTransition(cur('canceled', at(20), 5), next('past_due', 20)), { apply: false, reason: 'stale' });
    t.same(
      judgeTransition(cur('canceled'), next('active', 30, 'sub_2')),
      { apply: true },
      'a new subscription after cancellation',
    );
    t.same(judgeTransition(cur('active'), next('active', 30, 'sub_2')), { apply: false, reason: 'other_subscription' });
    t.same(judgeTransition(cur('lifetime'), next('canceled')), { apply: false, reason: 'lifetime' });
    t.same(SUBSCRIPTION_TRANSITIONS.lifetime, []);
    t.end();
  });
});
