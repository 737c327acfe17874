import t, { type Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Connection } from 'rabbitmq-client';
import { createTestDb } from '../helpers/db.js';
import { waitFor as poll } from '../helpers/wait.js';
import { keep } from '../helpers/bus.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import {
  RabbitBus,
  Outbox,
  OutboxRelay,
  idempotent,
  createBus,
  type BusConfig,
  type BusMessage,
  type OutgoingMessage,
} from '../../core/bus/index.js';
import { newId } from '../../core/data/ids.js';

const AMQP_URL = process.env.AMQP_URL;
const run = promisify(execFile);
const skip = AMQP_URL
  ? false
  : 'AMQP_URL is not set (e.g. amqp://guest:guest@127.0.0.1:5672): no RabbitMQ to test against';

// Only touch the database and the broker when the tests run.
const ctx = skip ? null : await createTestDb();
const admin = skip ? null : new Connection(AMQP_URL);
if (ctx) t.teardown(ctx.close);
if (admin) {
  admin.on('error', () => {});
  t.teardown(() => admin.close());
}

/** test/helpers/wait.ts's poll, naming what is awaited first, polling every 20 ms. */
const waitFor = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) =>
  poll(check, what, timeoutMs, 20);

function event(type: string, payload: unknown = {}, id = newId('evt')): OutgoingMessage {
  return { id, type, orgId: 'org_it', occurredAt: new Date().toISOString(), payload };
}

/** A RabbitBus on this file's database with quick reconnects; stopped (and its queues deleted) at teardown. */
async function startBus(t: Test, overrides: Partial<BusConfig> = {}): Promise<RabbitBus> {
  const { db, config } = ctx!;
  const bus = new RabbitBus(
    { ...config.bus, ...overrides },
    {
      db,
      publishTimeoutMs: 2000,
      connectTimeoutMs: 5000,
      connection: { retryLow: 100, retryHigh: 400, connectionName: 'patchwell-bus-test' },
    },
  );
  t.teardown(() => bus.stop());
  await bus.start();
  return bus;
}

/** The type RabbitMQ reports for each queue whose name starts with `prefix` (rabbitmqctl, as the operator sees it). */
async function queueTypes(prefix: string): Promise<Record<string, string>> {
  const { stdout } = await run('rabbitmqctl', ['-q', 'list_queues', 'name', 'type', '--formatter', 'json'], {
    timeout: 30_000,
  });
  const rows = JSON.parse(stdout) as { name: string; type: string }[];
  return Object.fromEntries(rows.filter((r) => r.name.startsWith(prefix)).map((r) => [r.name, r.type]));
}

async function queueExists(queue: string): Promise<boolean> {
  try {
    await admin!.queueDeclare({ queue, passive: true });
    return true;
  } catch {
    return false;
  }
}

// The same behaviour on both queue types this broker offers (RabbitMQ 3.8+: quorum).
for (const queueType of ['quorum', 'classic'] as const) {
  void t.test(`on ${queueType} queues`, { skip }, async (t) => {
    const exchange = `${ctx!.config.bus.exchange}.${queueType}`;
    // Both suites share the file's database: each starts from empty bus tables.
    for (const table of ['dead_letters', 'inbox', 'outbox']) await ctx!.db(table).del();

    void t.test('createBus picks RabbitMQ when bus.url is set', { skip }, (t) => {
      const bus = createBus(ctx!.config, { db: ctx!.db });
      t.equal(bus.kind, 'rabbitmq');
      t.end();
    });

    void t.test('publish with confirms reaches the consumers whose patterns match', { skip }, async (t) => {
      const bus = await startBus(t, { queueType, exchange });
      const got: BusMessage[] = [];
      const other: string[] = [];
      bus.consume(
        'it.basic',
        ['it.basic.*'],
        keep(got, (m) => m),
      );
      bus.consume(
        'it.other',
        ['elsewhere.#'],
        keep(other, (m) => m.type),
      );
      await bus.startConsumers();
      for (const q of ['it.basic', 'it.basic.retry', 'it.basic.dead'])
        t.ok(await queueExists(`${exchange}.${q}`), `queue ${q} declared`);

      const sent = [
        event('it.basic.one', { n: 1, list: [1, 2] }),
        event('it.basic.two', { n: 2 }),
        event('it.other.three'),
      ];
      for (const m of sent) await bus.publish(m);
      await waitFor('two deliveries', () => got.length === 2);
      t.match(got[0], {
        id: sent[0].id,
        type: 'it.basic.one',
        orgId: 'org_it',
        attempt: 1,
        payload: { n: 1, list: [1, 2] },
      });
      t.equal(got[1].id, sent[1].id);
      t.same(other, []);
      t.same(await bus.health(), { ok: true, detail: 'connected' });
    });

    void t.test('a failing handler is retried through the retry queue, then dead-lettered', { skip }, async (t) => {
      const bus = await startBus(t, { queueType, exchange });
      const attempts: { attempt: number; at: number }[] = [];
      bus.consume(
        'it.fails',
        ['it.fails'],
        (m) => {
          attempts.push({ attempt: m.attempt, at: Date.now() });
          return Promise.reject(new Error(`nope ${m.attempt}`));
        },
        { maxAttempts: 3, backoffMs: [100, 200] },
      );
      await bus.startConsumers();
      const msg = event('it.fails', { keep: 'me' });
      await bus.publish(msg);
      await waitFor('dead letter row', async () => (await bus.deadLetters('it.fails')).length === 1);
      t.same(
        attempts.map((a) => a.attempt),
        [1, 2, 3],
      );
      t.ok(attempts[1].at - attempts[0].at >= 90, 'waited the first back-off in the retry queue');
      t.ok(attempts[2].at - attempts[1].at >= 190, 'waited the second back-off');
      const [dead] = await bus.deadLetters('it.fails');
      t.match(dead, {
        consumer: 'it.fails',
        message: { id: msg.id, attempt: 3, payload: { keep: 'me' } },
        error: /nope 3/,
      });

      const deadQueue = `${exchange}.it.fails.dead`;
      let copy = await admin!.basicGet({ queue: deadQueue, noAck: true });
      for (let i = 0; !copy && i < 50; i++) {
        await sleep(20);
        copy = await admin!.basicGet({ queue: deadQueue, noAck: true });
      }
      t.ok(copy, 'a copy waits in the .dead queue');
      t.equal(copy?.messageId, msg.id);
      t.equal(copy?.headers?.['x-attempt'], 3);
      t.match(copy?.body, { id: msg.id, payload: { keep: 'me' } });
      await sleep(300);
      t.equal(attempts.length, 3, 'no attempt after the last one');
    });

    void t.test('an idempotent consumer handles a redelivered message once', { skip }, async (t) => {
      const { db } = ctx!;
      const bus = await startBus(t, { queueType, exchange });
      const handled: string[] = [];
      bus.consume(
        'it.idem',
        ['it.idem'],
        idempotent(
          db,
          'it.idem',
          keep(handled, (m) => m.id),
        ),
        { prefetch: 4 },
      );
      await bus.startConsumers();
      const msg = event('it.idem');
      await bus.publish(msg);
      await bus.publish(msg);
      await bus.publish(event('it.idem'));
      await waitFor('distinct messages', () => handled.length === 2);
      await sleep(200);
      t.equal(handled.length, 2);
      t.equal(handled.filter((id) => id === msg.id).length, 1);
      t.equal((await db('inbox').where({ consumer: 'it.idem' })).length, 2);
    });

    void t.test(
      'outbox rows written while the broker is unreachable are published once it is back',
      { skip },
      async (t) => {
        const { db } = ctx!;
        await db('outbox').del();
        const proxy = new TcpProxy(AMQP_URL!);
        await proxy.restore();
        t.teardown(() => proxy.cut());

        const bus = await startBus(t, { queueType, url: proxy.url, exchange: `${exchange}.proxied` });
        const relay = new OutboxRelay({ db, bus, batchSize: 50, pollMs: 50, backoffMs: [100, 200] });
        const outbox = new Outbox({ onCommitted: () => relay.kick() });
        const deliveries = new Map<string, number>();
        bus.consume(
          'it.outage',
          ['outage.#'],
          idempotent(db, 'it.outage', (m) => {
            deliveries.set(m.id, (deliveries.get(m.id) ?? 0) + 1);
            return Promise.resolve();
          }),
        );
        await bus.startConsumers();
        relay.start();
        t.teardown(() => relay.stop());

        const before = await db.transaction((trx) => outbox.add(trx, 'outage.before', { n: 0 }, { orgId: 'org_it' }));
        await waitFor('delivery while up', () => deliveries.has(before));

        await proxy.cut();
        await waitFor('bus reports the outage', async () => !(await bus.health()).ok);
        t.match(await bus.health(), { ok: false, detail: /disconnected/ });

        const ids = await db.transaction(async (trx) => {
          const out: string[] = [];
          for (let i = 1; i <= 5; i++) out.push(await outbox.add(trx, 'outage.during', { n: i }, { orgId: 'org_it' }));
          return out;
        });
        await waitFor('failed attempts recorded', async () => {
          const rows = await db('outbox').whereIn('id', ids);
          return rows.length === 5 && rows.every((r: { attempts: number }) => r.attempts > 0);
        });
        const pending = await db('outbox').whereIn('id', ids);
        t.ok(
          pending.every((r: { published_at: unknown }) => r.published_at === null),
          'nothing published while down',
        );
        t.ok(
          pending.every((r: { last_error: string | null }) => /unavailable|timed out|closed/i.test(r.last_error ?? '')),
          'last_error says why',
        );
        t.equal(ids.filter((id) => deliveries.has(id)).length, 0);

        await proxy.restore();
        await waitFor(
          'rows published after recovery',
          async () => {
            const rows = await db('outbox').whereIn('id', ids).whereNotNull('published_at');
            return rows.length === 5;
          },
          15_000,
        );
        await waitFor(
          'consumed after recovery (the consumer reconnected)',
          () => ids.every((id) => deliveries.has(id)),
          15_000,
        );
        await sleep(300);
        t.same(
          ids.map((id) => deliveries.get(id)),
          [1, 1, 1, 1, 1],
          'each consumed exactly once',
        );
        t.same(await bus.health(), { ok: true, detail: 'connected' });

        // The publisher came back too: a direct publish after the outage is confirmed and consumed.
        const after = event('outage.after');
        await bus.publish(after);
        await waitFor('direct publish after recovery', () => deliveries.has(after.id));
      },
    );

    void t.test(
      'stop waits for in-flight handlers, then deletes the declared queues (deleteQueuesOnStop)',
      { skip },
      async (t) => {
        const cleanup = `${exchange}.cleanup`;
        const bus = await startBus(t, { queueType, exchange: cleanup });
        let started = false;
        let finished = false;
        bus.consume('it.cleanup', ['x.#'], async () => {
          started = true;
          await sleep(300);
          finished = true;
        });
        await bus.startConsumers();
        t.ok(await queueExists(`${cleanup}.it.cleanup`));
        await bus.publish(event('x.slow'));
        await waitFor('handler started', () => started);
        await bus.stop();
        t.ok(finished, 'stop waited for the in-flight handler');
        for (const q of ['', '.retry', '.dead'])
          t.notOk(await queueExists(`${cleanup}.it.cleanup${q}`), `queue it.cleanup${q} deleted`);
        t.match(await bus.health(), { ok: false, detail: 'not started' });
      },
    );

    void t.test('the queues are of the configured type', async (t) => {
      const bus = await startBus(t, { queueType, exchange });
      bus.consume('it.typed', ['it.typed'], async () => {});
      await bus.startConsumers();
      const types = await queueTypes(`${exchange}.it.typed`);
      t.same(types, {
        [`${exchange}.it.typed`]: queueType,
        [`${exchange}.it.typed.retry`]: queueType,
        [`${exchange}.it.typed.dead`]: queueType,
      });
    });
  });
}
