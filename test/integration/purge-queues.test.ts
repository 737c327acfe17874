import t from 'tap';
import { execFileSync } from 'node:child_process';
import { Connection } from 'rabbitmq-client';
import { idleQueues, purgeQueues } from '../../bench/purge-queues.js';

// bench/purge-queues.ts, which bench/run.ts and .ci/services use to delete queues that runs left on the
// broker: it must delete every idle queue under its prefix and nothing else.
const AMQP_URL = process.env.AMQP_URL;
const hasCli = (() => {
  try {
    execFileSync('rabbitmqctl', ['-q', '-t', '20', 'ping'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const skip = !AMQP_URL
  ? 'AMQP_URL is not set: no RabbitMQ to test against'
  : !hasCli
    ? 'rabbitmqctl does not reach the broker (it lists the queues)'
    : false;

void t.test('deletes the idle queues under a prefix, keeps a read queue and every other name', { skip }, async (t) => {
  const prefix = `pw_purge_${process.pid}_${Date.now().toString(36)}`;
  const conn = new Connection(AMQP_URL);
  conn.on('error', () => {});
  t.teardown(() => conn.close());
  const names = ['a', 'a.retry', 'a.dead', 'read'].map((n) => `${prefix}.${n}`);
  const other = `${prefix}x.kept`; // shares the text, not the prefix with its dot
  await conn.exchangeDeclare({ exchange: prefix, type: 'topic', durable: true });
  for (const queue of [...names, other]) await conn.queueDeclare({ queue, durable: true });
  t.teardown(async () => {
    for (const queue of [...names, other]) await conn.queueDelete({ queue }).catch(() => {});
    await conn.exchangeDelete({ exchange: prefix }).catch(() => {});
  });
  const consumer = conn.createConsumer({ queue: `${prefix}.read`, queueOptions: { durable: true } }, () => {});
  t.teardown(() => consumer.close());
  await new Promise<void>((resolve) => consumer.once('ready', () => resolve()));

  t.same(idleQueues([`${prefix}.`])?.sort(), names.slice(0, 3).sort(), 'the read queue is not idle');
  t.equal(await purgeQueues([`${prefix}.`], { url: AMQP_URL }), 3);
  t.same(idleQueues([prefix]), [other], 'only the other name is left idle');
  // The read queue is still there: declaring it passively succeeds.
  await t.resolves(conn.queueDeclare({ queue: `${prefix}.read`, passive: true }));
  await t.rejects(conn.queueDeclare({ queue: `${prefix}.a`, passive: true }), 'a deleted queue is gone');
  t.equal(await purgeQueues([`${prefix}.`], { url: AMQP_URL }), 0, 'nothing left to delete');
});
