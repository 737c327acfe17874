import t from 'tap';
import { createTestDb } from '../helpers/db.js';

t.test('migrations apply and the core tables exist', async (t) => {
  const { db, close } = await createTestDb();
  t.teardown(close);
  for (const table of ['outbox', 'inbox', 'dead_letters', 'rate_limits', 'audit_entries']) {
    t.ok(await db.schema.hasTable(table), table);
  }
  const r = await db.raw<{ rows: { one: number }[] }>('select 1 as one');
  t.equal(r.rows[0].one, 1);
});
