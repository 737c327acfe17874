import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDb } from '../helpers/db.js';
import { waitFor as poll } from '../helpers/wait.js';
import { keep } from '../helpers/bus.js';
import {
  MemoryBus,
  topicMatches,
  Outbox,
  OutboxRelay,
  idempotent,
  purgeInbox,
  type OutgoingMessage,
} from '../../core/bus/index.js';
import { newId } from '../../core/data/ids.js';

const { db, config, close } = await createTestDb();
t.teardown(close);

/** test/helpers/wait.ts's poll, naming what is awaited first, polling every 10 ms. */
const waitFor = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000) =>
  poll(check, what, timeoutMs, 10);

function event(type: string, payload: unknown = {}, id = newId('evt')): OutgoingMessage {
  return { id, type, orgId: 'org_1', occurredAt: new Date().toISOString(), payload };
}

function newBus(): MemoryBus {
  const bus = new MemoryBus(config.bus, { db });
  t.teardown(() => bus.stop());
  return bus;
}

t.test('topic patterns: * is one word, # is zero or more words', (t) => {
  const cases: [string, string, boolean][] = [
    ['tickets.created', 'tickets.created', true],
    ['tickets.created', 'tickets.updated', false],
    ['tickets.*', 'tickets.created', true],
    ['tickets.*', 'tickets', false],
    ['tickets.*', 'tickets.created.late', false],
    ['*.created', 'tickets.created', true],
    ['*.created', 'created', false],
    ['tickets.#', 'tickets', true],
    ['tickets.#', 'tickets.a.b.c', true],
    ['#', 'anything.at.all', true],
    ['#.created', 'a.b.created', true],
    ['#.created', 'created', true],
    ['a.#.z', 'a.z', true],
    ['a.#.z', 'a.b.c.z', true],
    ['a.#.z', 'a.b.c.y', false],
    ['a.*.#', 'a', false],
    ['a.*.#', 'a.b', true],
  ];
  for (const [pattern, key, expected] of cases) t.equal(topicMatches(pattern, key), expected, `${pattern} ~ ${key}`);
  t.end();
});

t.test('each consumer queue receives the routing keys its patterns match', async (t) => {
  const bus = newBus();
  const seen: Record<string, string[]> = { exact: [], star: [], hash: [], all: [] };
  const collect = (name: string) => keep(seen[name], (m) => m.type);
  bus.consume('route.exact', ['tickets.created'], collect('exact'));
  bus.consume('route.star', ['*.created'], collect('star'));
  bus.consume('route.hash', ['tickets.#', 'inbox.email_received'], collect('hash'));
  bus.consume('route.all', ['#'], collect('all'));
  await bus.start();
  await bus.startConsumers();
  for (const type of [
    'tickets.created',
    'tickets.replied.late',
    'fixes.created',
    'inbox.email_received',
    'billing.paid',
  ])
    await bus.publish(event(type));
  await waitFor('all deliveries', () => seen.all.length === 5);
  await sleep(20);
  t.same(seen.exact, ['tickets.created']);
  t.same(seen.star, ['tickets.created', 'fixes.created']);
  t.same(seen.hash, ['tickets.created', 'tickets.replied.late', 'inbox.email_received']);
  t.same(seen.all, [
    'tickets.created',
    'tickets.replied.late',
    'fixes.created',
    'inbox.email_received',
    'billing.paid',
  ]);
});

t.test('messages published before startConsumers wait in the queues of declared consumers', async (t) => {
  const bus = newBus();
  const got: string[] = [];
  bus.consume(
    'early.consumer',
    ['early.#'],
    keep(got, (m) => m.id),
  );
  const first = event('early.one');
  await bus.publish(first);
  bus.consume('late.consumer', ['early.#'], () => {
    t.fail('declared after the publish: must not receive it');
    return Promise.resolve();
  });
  await sleep(30);
  t.same(got, [], 'nothing delivered before consumers start');
  await bus.startConsumers();
  await waitFor('queued delivery', () => got.length === 1);
  t.same(got, [first.id]);
});

t.test('a failing handler is retried with back-off, then dead-lettered in the table', async (t) => {
  const bus = newBus();
  const attempts: { attempt: number; at: number }[] = [];
  bus.consume(
    'retry.always_fails',
    ['retry.boom'],
    (m) => {
      attempts.push({ attempt: m.attempt, at: Date.now() });
      return Promise.reject(new Error(`boom on attempt ${m.attempt}`));
    },
    { maxAttempts: 3, backoffMs: [30, 60] },
  );
  await bus.startConsumers();
  const msg = event('retry.boom', { n: [1, 2, 3] });
  await bus.publish(msg);
  await waitFor('dead letter', async () => (await bus.deadLetters('retry.always_fails')).length === 1);
  t.same(
    attempts.map((a) => a.attempt),
    [1, 2, 3],
    'attempt numbers 1..maxAttempts',
  );
  t.ok(attempts[1].at - attempts[0].at >= 25, 'first back-off waited');
  t.ok(attempts[2].at - attempts[1].at >= 55, 'second back-off waited');
  const [dead] = await bus.deadLetters('retry.always_fails');
  t.equal(dead.consumer, 'retry.always_fails');
  t.match(dead.message, { id: msg.id, type: 'retry.boom', orgId: 'org_1', attempt: 3, payload: { n: [1, 2, 3] } });
  t.match(dead.error, /boom on attempt 3/);
  t.match(dead.failedAt, /^\d{4}-\d\d-\d\dT/);
  const row = await db<{ consumer: string; message_id: string }>('dead_letters')
    .where({ consumer: 'retry.always_fails' })
    .first();
  t.equal(row?.message_id, msg.id, 'operators find it in dead_letters');
  await sleep(100);
  t.equal(attempts.length, 3, 'no attempt after the last one');
});

t.test('a handler that fails once succeeds on the retry', async (t) => {
  const bus = newBus();
  const attempts: number[] = [];
  bus.consume('retry.flaky', ['retry.flaky'], (m) => {
    attempts.push(m.attempt);
    return m.attempt === 1 ? Promise.reject(new Error('transient')) : Promise.resolve();
  });
  await bus.startConsumers();
  await bus.publish(event('retry.flaky'));
  await waitFor('second attempt', () => attempts.length === 2);
  t.same(attempts, [1, 2]);
  t.same(await bus.deadLetters('retry.flaky'), []);
});

t.test('an idempotent consumer handles a redelivered message once', async (t) => {
  const bus = newBus();
  const handled: string[] = [];
  bus.consume(
    'idem.counter',
    ['idem.#'],
    idempotent(db, 'idem.counter', async (m, trx) => {
      await trx('inbox').where({ consumer: 'idem.counter', message_id: m.id }).first(); // work in the same transaction
      handled.push(m.id);
    }),
  );
  await bus.startConsumers();
  const msg = event('idem.happened');
  await bus.publish(msg);
  await bus.publish(msg); // the relay crashed before marking it: published twice
  await bus.publish(event('idem.other'));
  await waitFor('both distinct messages', () => handled.length >= 2);
  await sleep(50);
  t.equal(handled.filter((id) => id === msg.id).length, 1, 'same id handled once');
  t.equal(handled.length, 2);
  const rows = await db('inbox').where({ consumer: 'idem.counter' });
  t.equal(rows.length, 2);
});

t.test('a throwing idempotent handler rolls back its inbox row, so the retry runs it again', async (t) => {
  const bus = newBus();
  const runs: number[] = [];
  bus.consume(
    'idem.flaky',
    ['idem.flaky'],
    idempotent(db, 'idem.flaky', async (m, trx) => {
      runs.push(m.attempt);
      await trx('audit_entries').insert({
        id: newId('aud'),
        org_id: 'org_1',
        actor_type: 'system',
        action: `flaky.${m.attempt}`,
      });
      if (m.attempt === 1) throw new Error('fails after writing');
    }),
  );
  await bus.startConsumers();
  await bus.publish(event('idem.flaky'));
  await waitFor('retry ran', () => runs.length === 2);
  await sleep(30);
  t.same(runs, [1, 2]);
  const actions = (await db('audit_entries').where('action', 'like', 'flaky.%')).map(
    (r: { action: string }) => r.action,
  );
  t.same(actions, ['flaky.2'], 'the failed attempt left nothing behind');
  t.equal((await db('inbox').where({ consumer: 'idem.flaky' })).length, 1);
});

t.test('prefetch bounds the handlers running at once per consumer', async (t) => {
  const bus = newBus();
  let running = 0;
  let peak = 0;
  let done = 0;
  bus.consume(
    'prefetch.two',
    ['prefetch.job'],
    async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(25);
      running--;
      done++;
    },
    { prefetch: 2 },
  );
  await bus.startConsumers();
  for (let i = 0; i < 8; i++) await bus.publish(event('prefetch.job', { i }));
  await waitFor('all jobs', () => done === 8);
  t.equal(peak, 2, 'never more than prefetch handlers at once');
});

t.test('stop waits for the in-flight handler and drops pending retries', async (t) => {
  const bus = new MemoryBus(config.bus, { db });
  let finished = false;
  let started = false;
  const retried: number[] = [];
  bus.consume('stop.slow', ['stop.slow'], async () => {
    started = true;
    await sleep(150);
    finished = true;
  });
  bus.consume(
    'stop.retry',
    ['stop.retry'],
    (m) => {
      retried.push(m.attempt);
      return Promise.reject(new Error('always'));
    },
    { backoffMs: [100] },
  );
  await bus.startConsumers();
  await bus.publish(event('stop.slow'));
  await bus.publish(event('stop.retry'));
  await waitFor('handlers started', () => started && retried.length === 1);
  await bus.stop();
  t.ok(finished, 'stop resolved only after the handler finished');
  await sleep(150);
  t.same(retried, [1], 'the delayed retry was dropped on stop');
  await t.rejects(bus.publish(event('stop.slow')), /stopped/);
  t.same(await bus.health(), { ok: false, detail: 'in-process bus stopped' });
});

t.test('outbox: rolled-back rows are never published, committed ones are, in id order', async (t) => {
  await db('outbox').del();
  const bus = newBus();
  const relay = new OutboxRelay({ db, bus, batchSize: 3, pollMs: 1000, backoffMs: config.bus.backoffMs });
  const outbox = new Outbox({ onCommitted: () => relay.kick() });
  const received: string[] = [];
  bus.consume(
    'outbox.reader',
    ['orders.#'],
    keep(received, (m) => m.id),
  );
  await bus.startConsumers();
  relay.start();
  t.teardown(() => relay.stop());

  const committed: string[] = [];
  await db.transaction(async (trx) => {
    for (let i = 0; i < 4; i++) committed.push(await outbox.add(trx, 'orders.placed', { i }, { orgId: 'org_1' }));
  });
  const rolledBack: string[] = [];
  await t.rejects(
    db.transaction(async (trx) => {
      rolledBack.push(await outbox.add(trx, 'orders.placed', { lost: true }));
      throw new Error('business rule failed');
    }),
  );
  await db.transaction(async (trx) => {
    for (let i = 4; i < 7; i++) committed.push(await outbox.add(trx, 'orders.placed', { i }));
  });

  // pollMs is 1 s: arriving well before that shows the commit kicked the relay.
  await waitFor('committed rows delivered', () => received.length === committed.length, 900);
  t.same(received, committed, 'published in id (commit) order');
  t.notOk(received.includes(rolledBack[0]), 'rolled-back row never published');
  t.same(await db('outbox').where({ id: rolledBack[0] }), [], 'and it does not exist');
  // The in-process bus delivers before the relay's transaction commits: wait for the mark.
  await waitFor(
    'all marked published',
    async () => (await db('outbox').whereIn('id', committed).whereNull('published_at')).length === 0,
  );
  t.pass('all marked published');
});

t.test('outbox: add validates the routing key and payload and honours a caller id', async (t) => {
  const outbox = new Outbox();
  await t.rejects(outbox.add(db, 'nodot', {}), TypeError);
  await t.rejects(outbox.add(db, 'tickets.*', {}), TypeError);
  await t.rejects(outbox.add(db, 'tickets.created', undefined), TypeError);
  const id = await outbox.add(db, 'tickets.created', ['a', 'b'], { id: 'evt_fixed_1' });
  t.equal(id, 'evt_fixed_1');
  const row = await db<{ id: string; payload: unknown }>('outbox').where({ id }).first();
  t.same(row?.payload, ['a', 'b'], 'arrays stay JSON arrays');
  await db('outbox').where({ id }).del();
  const ids = await db.transaction(async (trx) => {
    const out: string[] = [];
    for (let i = 0; i < 50; i++) out.push(await outbox.add(trx, 'tickets.created', { i }));
    return out;
  });
  t.same(ids, [...ids].sort(), 'ids increase in the order events are added, even within one millisecond');
  await db('outbox').whereIn('id', ids).del();
});

t.test('outbox: addMany writes several events in one statement, in order, or none of them', async (t) => {
  const outbox = new Outbox();
  t.same(await outbox.addMany(db, []), [], 'nothing to write');
  await t.rejects(
    outbox.addMany(db, [
      { type: 'tickets.created', payload: { a: 1 } },
      { type: 'bad', payload: {} },
    ]),
    TypeError,
  );
  t.equal(
    (await db('outbox').where({ type: 'tickets.created' })).length,
    0,
    'a bad event refuses the whole call before anything is written',
  );
  const ids = await outbox.addMany(db, [
    { type: 'tickets.created', payload: { n: 1 }, orgId: 'org_1' },
    { type: 'tickets.message_received', payload: { n: 2 }, orgId: 'org_1' },
  ]);
  t.equal(ids.length, 2);
  t.ok(ids[0] < ids[1], 'the first event sorts (and is published) first');
  const rows = await db('outbox').whereIn('id', ids).orderBy('id');
  t.same(
    rows.map((r: { type: string; org_id: string; payload: unknown }) => [r.type, r.org_id, r.payload]),
    [
      ['tickets.created', 'org_1', { n: 1 }],
      ['tickets.message_received', 'org_1', { n: 2 }],
    ],
  );
  await db('outbox').whereIn('id', ids).del();
});

/** A bus whose broker can be switched off, to drive the relay's failure path. */
class FlakyBus extends MemoryBus {
  up = false;
  override async publish(message: OutgoingMessage): Promise<void> {
    if (!this.up) throw new Error('connection refused');
    return super.publish(message);
  }
  override health(): Promise<{ ok: boolean; detail?: string }> {
    return Promise.resolve(this.up ? { ok: true } : { ok: false, detail: 'connection refused' });
  }
}

t.test('outbox: rows stay unpublished while the bus is down and go out when it is back', async (t) => {
  await db('outbox').del();
  const bus = new FlakyBus(config.bus, { db });
  t.teardown(() => bus.stop());
  const relay = new OutboxRelay({ db, bus, batchSize: 10, pollMs: 20, backoffMs: [10, 20] });
  const outbox = new Outbox({ onCommitted: () => relay.kick() });
  const received: string[] = [];
  bus.consume(
    'outage.reader',
    ['outage.#'],
    keep(received, (m) => m.id),
  );
  await bus.startConsumers();
  relay.start();
  t.teardown(() => relay.stop());

  const ids = await db.transaction(async (trx) =>
    Promise.all([1, 2, 3].map((i) => outbox.add(trx, 'outage.event', { i }))),
  );
  await waitFor('attempts recorded', async () => {
    const rows = await db('outbox').whereIn('id', ids);
    return rows.every((r: { attempts: number }) => r.attempts >= 2);
  });
  const pending = await db('outbox').whereIn('id', ids).orderBy('id');
  t.ok(
    pending.every(
      (r: { published_at: unknown; last_error: string }) =>
        r.published_at === null && /connection refused/.test(r.last_error),
    ),
    'kept with last_error',
  );
  t.same(received, []);

  bus.up = true;
  await waitFor('published after recovery', () => received.length === 3);
  t.same([...received].sort(), [...ids].sort());
  await waitFor(
    'all marked published',
    async () => (await db('outbox').whereIn('id', ids).whereNull('published_at')).length === 0,
  );
  t.pass('all marked published');
});

/** A healthy bus that refuses one kind of message (say, one the broker finds too large). */
class PickyBus extends MemoryBus {
  override async publish(message: OutgoingMessage): Promise<void> {
    if (message.type === 'poison.bad') throw new Error('refused');
    return super.publish(message);
  }
}

t.test('outbox: a row the bus refuses while healthy does not hold up the others', async (t) => {
  await db('outbox').del();
  const bus = new PickyBus(config.bus, { db });
  t.teardown(() => bus.stop());
  const relay = new OutboxRelay({ db, bus, batchSize: 10, backoffMs: [60_000] });
  const outbox = new Outbox();
  const received: string[] = [];
  bus.consume(
    'poison.reader',
    ['poison.#'],
    keep(received, (m) => m.type),
  );
  await bus.startConsumers();
  await db.transaction(async (trx) => {
    await outbox.add(trx, 'poison.good', { n: 1 });
    await outbox.add(trx, 'poison.bad', {});
    await outbox.add(trx, 'poison.good', { n: 2 });
  });
  const pass = await relay.runOnce();
  t.same(pass, { selected: 3, published: 2, deferred: 1 });
  await waitFor('good ones delivered', () => received.length === 2);
  const bad = await db<{ type: string; attempts: number; last_error: string | null }>('outbox')
    .where({ type: 'poison.bad' })
    .first();
  t.equal(bad?.attempts, 1);
  t.equal(bad?.last_error, 'refused');
  t.same(await relay.runOnce(), { selected: 0, published: 0, deferred: 0 }, 'deferred row waits for its back-off');
});

t.test('outbox: two relays publish every row exactly once', async (t) => {
  await db('outbox').del();
  const bus = newBus();
  const received: string[] = [];
  bus.consume(
    'race.reader',
    ['race.#'],
    keep(received, (m) => m.id),
  );
  await bus.startConsumers();
  const outbox = new Outbox();
  const ids: string[] = [];
  await db.transaction(async (trx) => {
    for (let i = 0; i < 60; i++) ids.push(await outbox.add(trx, 'race.event', { i }));
  });
  const relays = [1, 2].map(() => new OutboxRelay({ db, bus, batchSize: 7, pollMs: 10 }));
  for (const r of relays) r.start();
  await waitFor('all received', () => received.length >= 60);
  await sleep(100);
  await Promise.all(relays.map((r) => r.stop()));
  t.equal(received.length, 60, 'no duplicates');
  t.same([...received].sort(), [...ids].sort());
});

t.test('purging published outbox rows and old inbox rows', async (t) => {
  await db('outbox').del();
  await db('inbox').del();
  await db('outbox').insert([
    { id: 'evt_old', type: 'p.old', payload: '{}', published_at: db.raw(`now() - interval '2 days'`) },
    { id: 'evt_new', type: 'p.new', payload: '{}', published_at: db.raw('now()') },
    { id: 'evt_pending', type: 'p.pending', payload: '{}' },
  ]);
  await db('inbox').insert([
    { consumer: 'c', message_id: 'old', handled_at: db.raw(`now() - interval '8 days'`) },
    { consumer: 'c', message_id: 'new' },
  ]);
  const relay = new OutboxRelay({ db, bus: newBus() });
  t.equal(await relay.purgePublished(24 * 3600_000), 1);
  t.same(
    (await db('outbox').orderBy('id')).map((r: { id: string }) => r.id),
    ['evt_new', 'evt_pending'],
  );
  t.equal(await purgeInbox(db, 7 * 24 * 3600_000), 1);
  t.same(
    (await db('inbox')).map((r: { message_id: string }) => r.message_id),
    ['new'],
  );
});
