import t from 'tap';
import { acrossOrgs, forOrg, run, StatementError } from '../../core/data/statements.js';
import { createTestDb } from '../helpers/db.js';

t.test('tenant statements must filter on the organization they are given', async (t) => {
  t.throws(() => forOrg('select id from tickets where workspace_id = $1'), StatementError);
  t.throws(
    () => forOrg('select id from tickets where org_id = $2 and id = $1'),
    StatementError,
    'the organization is $1',
  );
  t.throws(() => acrossOrgs(' ', 'select 1'), StatementError, 'a reason is required');
  const s = forOrg('select id from tickets where org_id = $1');
  t.equal(forOrg('select id from tickets where org_id = $1'), s, 'one statement per text');
  t.match(s.name, /^pw_[0-9a-f]{20}$/);
  t.equal(
    forOrg('select id from tickets where org_id = $1', { customPlan: true }).name,
    null,
    'planned per run: not prepared under a name',
  );
  await t.rejects(
    run({} as never, s, [null]),
    StatementError,
    'refused without an organization id, before any connection',
  );
});

t.test('statements run on the pool and in a transaction, prepared once per connection', async (t) => {
  const { db, close } = await createTestDb();
  t.teardown(close);
  await db.raw(
    'create table stmt_probe (id text primary key, org_id text not null, name text not null, at timestamptz not null)',
  );
  await db('stmt_probe').insert([
    { id: 'p1', org_id: 'org_a', name: 'one', at: new Date('2026-01-02T03:04:05.678Z') },
    { id: 'p2', org_id: 'org_b', name: 'two', at: new Date('2026-01-02T03:04:05.678Z') },
  ]);
  const byOrg = forOrg('select p.id, p.name, p.at from stmt_probe p where p.org_id = $1 order by p.id');
  for (let i = 0; i < 7; i++) {
    const rows = await run<{ id: string; at: Date }>(db, byOrg, ['org_a']);
    t.same(
      rows.map((r) => r.id),
      ['p1'],
      'only the organization given',
    );
    t.ok(rows[0].at instanceof Date, 'timestamps as Dates');
  }
  await db
    .transaction(async (trx) => {
      await trx('stmt_probe').where({ id: 'p1' }).update({ name: 'uno' });
      const rows = await run<{ name: string }>(trx, byOrg, ['org_a']);
      t.equal(rows[0].name, 'uno', 'in a transaction: its own uncommitted write');
      await trx.rollback();
    })
    .catch(() => undefined);
  t.equal((await run<{ name: string }>(db, byOrg, ['org_a']))[0].name, 'one', 'rolled back');
  const custom = forOrg('select p.id from stmt_probe p where p.org_id = $1 and p.name = $2', { customPlan: true });
  t.same(await run(db, custom, ['org_b', 'two']), [{ id: 'p2' }], 'an unnamed statement runs too');
});

t.test(
  'on Postgres a statement is prepared under its name on the connection, unless database.transactionPooler is on',
  { skip: !process.env.DATABASE_URL && 'Postgres only (PGlite runs statements as plain queries)' },
  async (t) => {
    for (const prepareStatements of [true, false]) {
      const { db, close } = await createTestDb({ database: { transactionPooler: !prepareStatements } });
      await db.raw('create table stmt_named (id text primary key, org_id text not null)');
      const stmt = forOrg('select n.id from stmt_named n where n.org_id = $1');
      const names = await db.transaction(async (trx) => {
        await run(trx, stmt, ['org_a']);
        return (await trx.raw<{ rows: { name: string }[] }>('select name from pg_prepared_statements')).rows.map(
          (r) => r.name,
        );
      });
      t.equal(names.includes(stmt.name!), prepareStatements, `prepareStatements ${prepareStatements}`);
      await close();
    }
  },
);
