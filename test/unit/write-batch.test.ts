import t from 'tap';
import { WriteBatch } from '../../core/data/write-batch.js';
import { createTestDb } from '../helpers/db.js';

t.test('a batch is one statement: CTEs for several inserts, defaults for absent columns, JSON stringified', (t) => {
  const one = new WriteBatch().insert('a', [{ x: 1 }]).toSql();
  t.same(one, { text: 'insert into "a" ("x") values ($1)', values: [1] }, 'one insert is a plain INSERT');
  const b = new WriteBatch()
    .insert({ tableName: 'parent', jsonAttributes: ['meta'] }, [{ id: 'p1', meta: { k: [1] } }])
    .insert(
      'child',
      [
        { id: 'c1', parent_id: 'p1', note: 'x' },
        { id: 'c2', parent_id: 'p1' },
      ],
      ['tags'],
    );
  const { text, values } = b.toSql();
  t.equal(
    text,
    'with w0 as (insert into "parent" ("id", "meta") values ($1, $2)), w1 as (insert into "child" ("id", "parent_id", "note") values ($3, $4, $5), ($6, $7, default)) select 1',
  );
  t.same(values, ['p1', '{"k":[1]}', 'c1', 'p1', 'x', 'c2', 'p1']);
  t.same(
    b.rowsOf('child').map((r) => r.id),
    ['c1', 'c2'],
  );
  t.ok(new WriteBatch().insert('a', []).isEmpty, 'no rows, nothing to write');
  t.end();
});

t.test('a batch is atomic, keeps foreign keys between its inserts, and calls back after the commit only', async (t) => {
  const { db, close } = await createTestDb();
  t.teardown(close);
  await db.raw(
    "create table wb_parent (id text primary key, meta jsonb not null default '{}', n int not null default 7)",
  );
  await db.raw(
    'create table wb_child (id text primary key, parent_id text not null references wb_parent(id), tags jsonb)',
  );

  let committed = 0;
  await new WriteBatch()
    .insert({ tableName: 'wb_parent', jsonAttributes: ['meta'] }, [{ id: 'p1', meta: { a: 1 } }])
    .insert('wb_child', [{ id: 'c1', parent_id: 'p1', tags: ['x', 'y'] }], ['tags'])
    .onCommitted(() => committed++)
    .run(db);
  t.equal(committed, 1, 'called back once, outside a transaction at once');
  t.same(
    await db('wb_parent').select('id', 'meta', 'n'),
    [{ id: 'p1', meta: { a: 1 }, n: 7 }],
    'the parent, with the column default',
  );
  t.same((await db<{ tags: string[] }>('wb_child').first('tags'))?.tags, ['x', 'y'], 'a JSON array stays JSON');

  // The second row breaks the primary key: nothing of the statement is kept.
  const failing = new WriteBatch()
    .insert('wb_parent', [{ id: 'p2' }])
    .insert('wb_child', [{ id: 'c1', parent_id: 'p2' }])
    .onCommitted(() => committed++);
  await t.rejects(failing.run(db), /duplicate key/);
  t.same(
    (await db('wb_parent').select('id')).map((r: { id: string }) => r.id),
    ['p1'],
    'p2 was not kept',
  );
  t.equal(committed, 1, 'no callback for a failed batch');

  // In a transaction: the callback waits for the commit, and never comes on rollback.
  await db.transaction(async (trx) => {
    await new WriteBatch()
      .insert('wb_parent', [{ id: 'p3' }])
      .onCommitted(() => committed++)
      .run(trx);
    t.equal(committed, 1, 'not before the commit');
  });
  await new Promise((r) => setImmediate(r));
  t.equal(committed, 2, 'after the commit');
  await db
    .transaction(async (trx) => {
      await new WriteBatch()
        .insert('wb_parent', [{ id: 'p4' }])
        .onCommitted(() => committed++)
        .run(trx);
      throw new Error('the handler fails after the batch');
    })
    .catch(() => undefined);
  await new Promise((r) => setImmediate(r));
  t.equal(committed, 2, 'never after a rollback');
  t.notOk(await db('wb_parent').where({ id: 'p4' }).first(), 'rolled back');
});
