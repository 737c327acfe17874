import t from 'tap';
import { RateLimiter } from '../../core/http/rate-limit.js';
import { createTestDb } from '../helpers/db.js';

/** A row of rate_limits: the shared count of a key's window. */
interface WindowRow {
  key: string;
  count: number;
}

t.test('hit counts every request in the shared window and refuses past the limit with Retry-After', async (t) => {
  const { db, close } = await createTestDb();
  t.teardown(close);
  const limiter = new RateLimiter(db);
  const results = [];
  for (let i = 0; i < 4; i++) results.push(await limiter.hit('plain', 3, 60_000));
  t.same(
    results.map((r) => r.allowed),
    [true, true, true, false],
  );
  t.ok(results[3].retryAfterSeconds >= 59 && results[3].retryAfterSeconds <= 60, 'until the window ends');
  t.equal((await db<WindowRow>('rate_limits').where({ key: 'plain' }).first())?.count, 4, 'one upsert per hit');
});

t.test('reserved hits: one upsert per chunk, never more admitted than the limit across processes', async (t) => {
  const { db, close } = await createTestDb();
  t.teardown(close);
  // Two limiters on one database: two processes of the service.
  const a = new RateLimiter(db);
  const b = new RateLimiter(db);
  const all = await Promise.all(
    Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).hit('hot', 25, 60_000, { reserve: 4 })),
  );
  const allowed = all.filter((r) => r.allowed).length;
  t.ok(allowed <= 25, `at most the limit admitted (${allowed})`);
  t.ok(allowed >= 25 - 2 * 3, `at most a chunk per process short of it (${allowed})`);
  const row = await db<WindowRow>('rate_limits').where({ key: 'hot' }).first();
  if (!row) throw new Error('the window is stored');
  t.ok(row.count <= 25 + 2 * 4 + 2 * 4, `the shared count grew by reservations, not by requests (${row.count})`);

  // A refusal is kept by the process until the window ends: no query, even once the row is gone.
  const refused = await a.hit('hot', 25, 60_000, { reserve: 4 });
  t.equal(refused.allowed, false);
  await db('rate_limits').where({ key: 'hot' }).delete();
  t.equal((await a.hit('hot', 25, 60_000, { reserve: 4 })).allowed, false, 'still refused');
  t.notOk(await db('rate_limits').where({ key: 'hot' }).first(), 'without writing the shared counter');
  await a.reset('hot');
  t.equal((await a.hit('hot', 25, 60_000, { reserve: 4 })).allowed, true, 'reset forgets what the process held');
});

t.test('reserved hits start over with the next window', async (t) => {
  const { db, close } = await createTestDb();
  t.teardown(close);
  const limiter = new RateLimiter(db);
  const first = [];
  for (let i = 0; i < 3; i++) first.push((await limiter.hit('short', 2, 1000, { reserve: 2 })).allowed);
  t.same(first, [true, true, false]);
  await new Promise((r) => setTimeout(r, 1100));
  t.equal((await limiter.hit('short', 2, 1000, { reserve: 2 })).allowed, true, 'a new window');
});
