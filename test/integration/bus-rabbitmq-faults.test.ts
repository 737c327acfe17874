import t, { type Test } from 'tap';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Connection, type Channel, type Consumer } from 'rabbitmq-client';
import { createTestDb } from '../helpers/db.js';
import { waitFor as poll } from '../helpers/wait.js';
import { RabbitBus, type BusConfig, type BusLog, type BusMessage } from '../../core/bus/index.js';
import { newId } from '../../core/data/ids.js';

/**
 * Consumers on the real RabbitMQ survive what happens to brokers in production: the broker closes
 * their connection, a channel error, a deleted queue; and an upgrade meets queues of another type.
 * Only this file's own connections and queues are touched.
 */
const AMQP_URL = process.env.AMQP_URL;
const run = promisify(execFile);
const skip = AMQP_URL ? false : 'AMQP_URL is not set: no RabbitMQ to test against';

const ctx = skip ? null : await createTestDb();
const admin = skip ? null : new Connection(AMQP_URL);
if (ctx) t.teardown(() => ctx.close());
if (admin) {
  admin.on('error', () => {});
  t.teardown(() => admin.close());
}

/** test/helpers/wait.ts's poll, naming what is awaited first, polling every 25 ms. */
const waitFor = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) =>
  poll(check, what, timeoutMs, 25);

interface Logged {
  level: string;
  msg: string;
  obj: object;
}

function recordingLog(lines: Logged[]): BusLog {
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, msg: msg ?? '', obj });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

async function startBus(
  t: Test,
  overrides: Partial<BusConfig>,
  opts: { name?: string; log?: Logged[] } = {},
): Promise<RabbitBus> {
  const bus = new RabbitBus(
    { ...ctx!.config.bus, ...overrides },
    {
      db: ctx!.db,
      log: recordingLog(opts.log ?? []),
      publishTimeoutMs: 2000,
      connectTimeoutMs: 5000,
      connection: { retryLow: 100, retryHigh: 400, connectionName: opts.name ?? 'patchwell-faults-test' },
    },
  );
  t.teardown(() => bus.stop());
  await bus.start();
  return bus;
}

/** A handler that notes the ids it got. */
function collect(got: Set<string>): (m: BusMessage) => Promise<void> {
  return (m) => {
    got.add(m.id);
    return Promise.resolve();
  };
}

function send(bus: RabbitBus, type: string): Promise<string> {
  const id = newId('evt');
  return bus.publish({ id, type, orgId: null, occurredAt: new Date().toISOString(), payload: {} }).then(() => id);
}

/** Publishes until the consumer got one (a consumer that is setting itself up again misses none, but may be late). */
async function deliversAgain(bus: RabbitBus, type: string, got: Set<string>, what: string): Promise<void> {
  const id = await send(bus, type);
  await waitFor(what, () => got.has(id));
}

/** The broker-side pids of the connections whose client named itself `name` (rabbitmqctl's table form). */
async function brokerConnections(name: string): Promise<string[]> {
  const { stdout } = await run('rabbitmqctl', ['-q', 'list_connections', 'pid', 'client_properties'], {
    timeout: 30_000,
  });
  return stdout
    .split('\n')
    .filter((line) => line.includes(`"${name}"`))
    .map((line) => line.split('\t')[0] ?? '');
}

/** The consumer's current channel (rabbitmq-client keeps it private): to provoke a channel error. */
function channelOf(bus: RabbitBus): Channel {
  const runtimes = (bus as unknown as { runtimes: { consumer: Consumer }[] }).runtimes;
  const ch = (runtimes[0]?.consumer as unknown as { _ch?: Channel } | undefined)?._ch;
  if (!ch) throw new Error('consumer has no channel');
  return ch;
}

void t.test('a consumer resumes after the broker closes its connection', { skip }, async (t) => {
  const name = `pw-faults-${randomBytes(4).toString('hex')}`;
  const exchange = `${ctx!.config.bus.exchange}.conn`;
  const bus = await startBus(t, { exchange }, { name });
  const got = new Set<string>();
  bus.consume('it.conn', ['it.conn'], collect(got));
  await bus.startConsumers();
  await deliversAgain(bus, 'it.conn', got, 'a delivery before the fault');

  const [connection] = await brokerConnections(name);
  t.ok(connection, `the broker lists the bus connection (${connection})`);
  await run('rabbitmqctl', ['close_connection', connection ?? '', 'chaos test'], { timeout: 30_000 });
  await waitFor('the bus to notice', async () => !(await bus.health()).ok, 10_000).catch(() => undefined);
  await waitFor('the bus to reconnect', async () => (await bus.health()).ok);
  await deliversAgain(bus, 'it.conn', got, 'a delivery after the connection was closed');
  t.pass('consuming again after rabbitmqctl close_connection');
});

void t.test('a consumer resumes after a channel error and after its queue is deleted', { skip }, async (t) => {
  const exchange = `${ctx!.config.bus.exchange}.chan`;
  const bus = await startBus(t, { exchange });
  const got = new Set<string>();
  bus.consume('it.chan', ['it.chan'], collect(got));
  await bus.startConsumers();
  await deliversAgain(bus, 'it.chan', got, 'a delivery before the faults');

  // Acking a delivery tag the channel never had is a channel error: the broker closes that channel.
  const before = channelOf(bus);
  before.basicAck({ deliveryTag: 999_999 });
  await waitFor('the channel to close', () => !before.active);
  await deliversAgain(bus, 'it.chan', got, 'a delivery after the channel error');
  t.not(channelOf(bus), before, 'consuming on a new channel');

  // Deleting the queue cancels the consumer (basic.cancel): it declares the queue and its bindings again.
  await admin!.queueDelete({ queue: `${exchange}.it.chan` });
  await waitFor('the queue to be declared again', async () => {
    try {
      const { consumerCount } = await admin!.queueDeclare({ queue: `${exchange}.it.chan`, passive: true });
      return consumerCount === 1;
    } catch {
      return false;
    }
  });
  await deliversAgain(bus, 'it.chan', got, 'a delivery after the queue was deleted');
  t.pass('consuming again after the queue was deleted and re-declared');
});

void t.test(
  'an existing classic queue: auto keeps it and says so, an explicit quorum refuses to start',
  { skip },
  async (t) => {
    const exchange = `${ctx!.config.bus.exchange}.upgrade`;
    const queue = `${exchange}.it.upgrade`;
    // What an older Patchwell declared: a classic main queue dead-lettering to `.dead`.
    await admin!.queueDeclare({
      queue,
      durable: true,
      arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': `${queue}.dead` },
    });
    t.teardown(async () => {
      for (const q of [queue, `${queue}.retry`, `${queue}.dead`])
        await admin!.queueDelete({ queue: q }).catch(() => {});
    });

    const strictLog: Logged[] = [];
    const strict = await startBus(t, { exchange, queueType: 'quorum', deleteQueuesOnStop: false }, { log: strictLog });
    strict.consume('it.upgrade', ['it.upgrade'], collect(new Set()));
    await t.rejects(strict.startConsumers(), {
      message: /it\.upgrade exists with other arguments.*bus\.queueType.*docs\/bus\.md/,
    });
    t.match(await strict.health(), { ok: false, detail: /consumer it\.upgrade: .*PRECONDITION_FAILED/ });
    t.ok(
      strictLog.some((l) => l.level === 'error' && /NOT started/.test(l.msg)),
      'an error line says the consumer did not start',
    );
    await strict.stop();

    const autoLog: Logged[] = [];
    const auto = await startBus(t, { exchange, queueType: 'auto', deleteQueuesOnStop: false }, { log: autoLog });
    const got = new Set<string>();
    auto.consume('it.upgrade', ['it.upgrade'], collect(got));
    await auto.startConsumers();
    t.ok(
      autoLog.some((l) => l.level === 'warn' && l.msg.includes(`${queue} already exists as another type; keeping it`)),
      'a warning names the queue kept as classic and the migration section',
    );
    t.same(await auto.health(), { ok: true, detail: 'connected' });
    await deliversAgain(auto, 'it.upgrade', got, 'a delivery on the kept classic queue');
    t.pass('consuming on the classic queue');
  },
);

void t.test('a handler failing because Postgres is unreachable does not spend its attempts', { skip }, async (t) => {
  const exchange = `${ctx!.config.bus.exchange}.dbdown`;
  const bus = await startBus(t, { exchange, backoffMs: [50] });
  const attempts: number[] = [];
  bus.consume(
    'it.dbdown',
    ['it.dbdown'],
    (m: BusMessage) => {
      attempts.push(m.attempt);
      if (attempts.length <= 3) {
        const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        return Promise.reject(err);
      }
      return Promise.resolve();
    },
    { maxAttempts: 1 },
  );
  await bus.startConsumers();
  await send(bus, 'it.dbdown');
  await waitFor('the handler to succeed once the database is back', () => attempts.length === 4);
  t.same(attempts, [1, 1, 1, 1], 'redelivered with the same attempt number');
  t.same(await bus.deadLetters('it.dbdown'), [], 'nothing dead-lettered with maxAttempts 1');
});
