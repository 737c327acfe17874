import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { Connection, type Consumer, type ConnectionOptions, type Envelope, type Publisher } from 'rabbitmq-client';
import type { Bus, ConsumerOptions, DeadLetter, MessageHandler, OutgoingMessage } from './bus.js';
import { listDeadLetters } from './dead-letters.js';
import { RabbitDelivery, messageProperties, type ConsumerDef } from './rabbit-delivery.js';
import {
  declareQueues,
  featuresOf,
  isPreconditionFailed,
  preferredType,
  QueueMismatchError,
  readBrokerVersion,
  type BrokerFeatures,
  type QueuePlan,
  type QueueDeclaration,
} from './rabbit-queues.js';
import { envelopeJson, errorMessage, silentLog, withTimeout, type BusConfig, type BusLog } from './support.js';

export interface RabbitBusOptions {
  /** Database holding the `dead_letters` table. */
  db: Knex;
  log?: BusLog;
  /** How long `publish` waits for a connection plus the broker's confirm before failing. Default 10 s. */
  publishTimeoutMs?: number;
  /** How long `start` and `startConsumers` wait for the broker before carrying on in the background. Default 10 s. */
  connectTimeoutMs?: number;
  /** rabbitmq-client connection settings (reconnect back-off, heartbeat, name); tests shorten them. */
  connection?: Pick<
    ConnectionOptions,
    'retryLow' | 'retryHigh' | 'heartbeat' | 'connectionName' | 'acquireTimeout' | 'connectionTimeout'
  >;
}

/** A started consumer: its rabbitmq-client Consumer, and the confirming publisher for its retry and dead queues. */
interface ConsumerRuntime {
  def: ConsumerDef;
  consumer: Consumer;
  requeuer: Publisher;
}

/**
 * The bus on RabbitMQ (rabbitmq-client). Topology, all durable:
 * - one topic exchange `config.bus.exchange`;
 * - per consumer a queue `<exchange>.<name>` bound to its patterns; handler failures are
 *   republished (with confirms) to `<exchange>.<name>.retry`, where each message waits for its
 *   back-off (`expiration`) and is then dead-lettered back to the main queue through the default
 *   exchange; after maxAttempts it goes to `<exchange>.<name>.dead` and the `dead_letters` table.
 * The attempt number travels in the `x-attempt` header. Queues are quorum or classic per
 * `bus.queueType` (rabbit-queues.ts). rabbitmq-client reconnects by itself and re-declares the
 * topology on every new channel, so consumers resume after a channel error, a connection loss or a
 * deleted queue.
 */
export class RabbitBus implements Bus {
  readonly kind = 'rabbitmq' as const;
  private readonly log: BusLog;
  private readonly url: string;
  private readonly publishTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly defs = new Map<string, ConsumerDef>();
  private readonly runtimes: ConsumerRuntime[] = [];
  private conn: Connection | null = null;
  private publisher: Publisher | null = null;
  private consuming = false;
  private lastError: string | null = null;
  private blockedReason: string | null = null;
  private features: BrokerFeatures | null = null;
  /** Consumers that cannot start, with why (health() reports them). */
  private readonly problems = new Map<string, string>();
  /** Consumer setups begun (by name); a setup waits for the broker in the background. */
  private readonly setups = new Map<string, Promise<void>>();
  private readonly delivery: RabbitDelivery;

  constructor(
    private readonly config: BusConfig,
    private readonly options: RabbitBusOptions,
  ) {
    if (!config.url) throw new Error('RabbitBus needs config.bus.url (an amqp:// URL)');
    this.url = config.url;
    this.log = options.log ?? silentLog;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 10_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.delivery = new RabbitDelivery({ db: options.db, log: this.log, publishTimeoutMs: this.publishTimeoutMs });
  }

  /**
   * Opens the connection and waits for it up to connectTimeoutMs. A broker that is down does not
   * fail the boot: the client keeps reconnecting, health() reports it, the outbox keeps events.
   */
  async start(): Promise<void> {
    if (this.conn) return;
    // Reconnect back-off 1 s → 5 s (rabbitmq-client's default tops out at 30 s): an idle api process
    // is back (and ready) within seconds of the broker.
    const conn = new Connection({ retryLow: 1000, retryHigh: 5000, ...this.options.connection, url: this.url });
    this.conn = conn;
    this.watchConnection(conn);
    this.publisher = conn.createPublisher({ confirm: true, maxAttempts: 2, exchanges: [this.exchangeDeclaration()] });
    try {
      await conn.onConnect(this.connectTimeoutMs, true);
      await conn.exchangeDeclare(this.exchangeDeclaration());
    } catch (err) {
      this.log.error(
        { err: errorMessage(err), exchange: this.config.exchange },
        'RabbitMQ not reachable at start; reconnecting in the background',
      );
    }
  }

  async publish(message: OutgoingMessage): Promise<void> {
    const { conn, publisher } = this.started();
    const envelope: Envelope = {
      exchange: this.config.exchange,
      routingKey: message.type,
      ...messageProperties(message),
    };
    const body = Buffer.from(envelopeJson(message));
    await withTimeout(
      this.publishTimeoutMs,
      `publish ${message.type}`,
      (async () => {
        await conn.onConnect(this.publishTimeoutMs, true);
        await publisher.send(envelope, body);
      })(),
    );
  }

  consume(name: string, patterns: string[], handler: MessageHandler, options: ConsumerOptions = {}): void {
    if (this.defs.has(name)) throw new Error(`consumer "${name}" is already declared`);
    const main = `${this.config.exchange}.${name}`;
    const def: ConsumerDef = {
      name,
      patterns,
      handler,
      prefetch: Math.max(1, options.prefetch ?? this.config.prefetch),
      maxAttempts: Math.max(1, options.maxAttempts ?? this.config.maxAttempts),
      backoffMs: options.backoffMs ?? this.config.backoffMs,
      queues: { main, retry: `${main}.retry`, dead: `${main}.dead` },
    };
    this.defs.set(name, def);
    // Declared after startConsumers (a plugin loaded late): start it right away, like the others.
    if (this.consuming) {
      this.startConsumer(def).catch((err: unknown) =>
        this.log.error({ consumer: name, err: errorMessage(err) }, 'consumer failed to start'),
      );
    }
  }

  async startConsumers(): Promise<void> {
    this.started();
    this.consuming = true;
    const pending = [...this.defs.values()].filter((def) => !this.setups.has(def.name));
    await Promise.all(pending.map((def) => this.startConsumer(def)));
  }

  /**
   * Stops consuming (waiting for running handlers), closes the publishers and the connection.
   * With deleteQueuesOnStop (tests) it first deletes the queues and the exchange it declared.
   */
  async stop(): Promise<void> {
    const conn = this.conn;
    if (!conn) return;
    this.consuming = false;
    // During an outage nothing can be acked or deleted anyway; closing the connection first ends
    // the consumers' pending channel setups (they would otherwise wait for acquireTimeout).
    // In-flight handlers are still awaited; their messages are redelivered after a restart.
    const reachable = conn.ready;
    if (!reachable) await conn.close();
    await Promise.allSettled(this.runtimes.map((r) => r.consumer.close()));
    await Promise.allSettled([...this.runtimes.map((r) => r.requeuer.close()), this.publisher?.close()]);
    if (this.config.deleteQueuesOnStop) await this.deleteTopology(conn);
    this.runtimes.length = 0;
    this.setups.clear();
    this.problems.clear();
    this.publisher = null;
    this.conn = null;
    if (reachable) await conn.close();
  }

  health(): Promise<{ ok: boolean; detail?: string }> {
    return Promise.resolve(this.healthNow());
  }

  private healthNow(): { ok: boolean; detail?: string } {
    if (!this.conn) return { ok: false, detail: 'not started' };
    const [problem] = this.problems.entries();
    if (problem) return { ok: false, detail: `consumer ${problem[0]}: ${problem[1]}` };
    // Blocked (a memory or disk alarm): publishing waits, the api keeps working through the outbox.
    if (this.conn.ready && this.blockedReason)
      return { ok: true, detail: `connected, blocked by the broker: ${this.blockedReason}` };
    if (this.conn.ready) return { ok: true, detail: 'connected' };
    if (this.blockedReason) return { ok: false, detail: `blocked by the broker: ${this.blockedReason}` };
    return { ok: false, detail: `disconnected${this.lastError ? `: ${this.lastError}` : ''}` };
  }

  deadLetters(consumer: string, limit?: number): Promise<DeadLetter[]> {
    return listDeadLetters(this.options.db, consumer, limit);
  }

  private started(): { conn: Connection; publisher: Publisher } {
    if (!this.conn || !this.publisher) throw new Error('RabbitBus is not started (call start() first)');
    return { conn: this.conn, publisher: this.publisher };
  }

  private watchConnection(conn: Connection): void {
    conn.on('error', (err: unknown) => {
      this.lastError = errorMessage(err);
      this.log.warn({ err: this.lastError }, 'RabbitMQ connection error');
    });
    conn.on('connection', () => {
      this.lastError = null;
      this.log.info({ exchange: this.config.exchange }, 'RabbitMQ connection (re)established');
    });
    conn.on('connection.blocked', (reason: string) => {
      this.blockedReason = reason;
      this.log.warn({ reason }, 'RabbitMQ blocked publishing');
    });
    conn.on('connection.unblocked', () => {
      this.blockedReason = null;
      this.log.info({}, 'RabbitMQ unblocked publishing');
    });
  }

  private exchangeDeclaration(): { exchange: string; type: 'topic'; durable: true } {
    return { exchange: this.config.exchange, type: 'topic', durable: true };
  }

  /**
   * Declares the consumer's queues (their type per `bus.queueType`, see rabbit-queues.ts) and starts
   * consuming. Waits up to connectTimeoutMs; a broker that is not reachable yet is waited for in the
   * background. A queue of another type than an explicit `bus.queueType` rejects (the worker does not
   * start half-consuming) and stays in health() until fixed.
   */
  private async startConsumer(def: ConsumerDef): Promise<void> {
    const setup = this.setupConsumer(def);
    this.setups.set(def.name, setup);
    setup.catch(() => undefined); // a failure after the wait below is logged by setupConsumer
    try {
      await withTimeout(this.connectTimeoutMs, `consumer ${def.name} setup`, setup);
    } catch (err) {
      if (err instanceof QueueMismatchError) throw err;
      this.log.error(
        { consumer: def.name, err: errorMessage(err) },
        'consumer not ready yet; it starts when RabbitMQ is reachable',
      );
    }
  }

  private async setupConsumer(def: ConsumerDef): Promise<void> {
    for (let attempt = 1; this.consuming; attempt++) {
      const conn = this.conn;
      if (!conn) return;
      try {
        const features = await this.brokerFeatures();
        const plan = await withTimeout(
          this.connectTimeoutMs,
          `declaring the queues of ${def.name}`,
          declareQueues(conn, def.queues, this.config.queueType, features, this.log),
        );
        if (!this.consuming || this.conn !== conn) return;
        const consumer = this.createConsumer(conn, def, plan);
        await new Promise<void>((resolve) => consumer.once('ready', resolve));
        this.problems.delete(def.name);
        this.log.debug({ consumer: def.name, queue: def.queues.main, type: queueTypeOf(plan.main) }, 'consumer ready');
        return;
      } catch (err) {
        if (err instanceof QueueMismatchError) {
          this.problems.set(def.name, err.message);
          this.log.error({ consumer: def.name, err: err.message }, 'consumer NOT started: queue type mismatch');
          throw err;
        }
        if (attempt === 1)
          this.log.warn({ consumer: def.name, err: errorMessage(err) }, 'consumer setup failed; retrying');
        await sleep(Math.min(250 * 2 ** Math.min(attempt, 5), 5_000));
      }
    }
  }

  private createConsumer(conn: Connection, def: ConsumerDef, plan: QueuePlan): Consumer {
    const { main } = def.queues;
    // The requeuer declares the retry and dead queues on every channel it opens, so they exist
    // before anything is sent there, also after a broker restart or a manual delete.
    const requeuer = conn.createPublisher({ confirm: true, maxAttempts: 2, queues: [plan.retry, plan.dead] });
    // rabbitmq-client sets the consumer up again on a new channel after a channel error, a
    // connection loss or a basic.cancel (queue deleted): declarations, bindings, qos, consume.
    const consumer = conn.createConsumer(
      {
        queue: main,
        // Messages the bus cannot even read are nacked without requeue and land in `.dead`.
        queueOptions: plan.main,
        exchanges: [this.exchangeDeclaration()],
        queueBindings: def.patterns.map((routingKey) => ({ exchange: this.config.exchange, queue: main, routingKey })),
        qos: { prefetchCount: def.prefetch },
        concurrency: def.prefetch,
        requeue: true,
      },
      (msg) => this.delivery.onDelivery(def, requeuer, msg),
    );
    consumer.on('error', (err: unknown) => {
      if (isPreconditionFailed(err)) {
        // Someone re-created the queue with other arguments: setup retries forever, say why once per error.
        this.problems.set(def.name, errorMessage(err));
        this.log.error(
          { consumer: def.name, queue: main, err: errorMessage(err) },
          'RabbitMQ refuses the consumer queue declaration (PRECONDITION_FAILED); see docs/bus.md, "Moving to quorum queues"',
        );
        return;
      }
      this.log.warn({ consumer: def.name, err: errorMessage(err) }, 'RabbitMQ consumer error');
    });
    consumer.on('ready', () => this.problems.delete(def.name));
    this.runtimes.push({ def, consumer, requeuer });
    return consumer;
  }

  /** The broker's version (read once per process); unknown → classic queues with `auto`, logged. */
  private async brokerFeatures(): Promise<BrokerFeatures> {
    if (this.features) return this.features;
    const version = await readBrokerVersion(this.url, Math.min(this.connectTimeoutMs, 5_000));
    const features = featuresOf(version);
    if (version) {
      this.features = features;
      this.log.info(
        { version, queueType: preferredType(this.config.queueType, features), setting: this.config.queueType },
        `RabbitMQ ${version}: consumer queues are ${preferredType(this.config.queueType, features)}`,
      );
    } else if (this.config.queueType === 'auto') {
      this.log.warn(
        { url: redactUrl(this.url) },
        'RabbitMQ version not readable; bus.queueType auto declares classic queues',
      );
    }
    return features;
  }

  private async deleteTopology(conn: Connection): Promise<void> {
    if (!conn.ready) {
      this.log.warn({ exchange: this.config.exchange }, 'broker unreachable; queues not deleted');
      return;
    }
    const deletions = [...this.defs.values()].flatMap((def) =>
      [def.queues.main, def.queues.retry, def.queues.dead].map((queue) => () => conn.queueDelete({ queue })),
    );
    for (const remove of deletions) await this.bestEffort(remove);
    await this.bestEffort(() => conn.exchangeDelete({ exchange: this.config.exchange }));
  }

  private async bestEffort(work: () => Promise<unknown>): Promise<void> {
    try {
      await withTimeout(this.publishTimeoutMs, 'topology cleanup', work());
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'topology cleanup failed');
    }
  }
}

function queueTypeOf(declaration: QueueDeclaration): string {
  return declaration.arguments['x-queue-type'] === 'quorum' ? 'quorum' : 'classic';
}

function redactUrl(url: string): string {
  const u = new URL(url);
  u.password = u.password ? '***' : '';
  return u.toString();
}
