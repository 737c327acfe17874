import type { Knex } from 'knex';
import type { Bus, BusMessage, ConsumerOptions, DeadLetter, MessageHandler, OutgoingMessage } from './bus.js';
import { listDeadLetters, recordDeadLetter } from './dead-letters.js';
import {
  backoffDelay,
  errorMessage,
  envelopeJson,
  readEnvelope,
  silentLog,
  type BusConfig,
  type BusLog,
} from './support.js';

/**
 * AMQP topic matching: words are separated by `.`, `*` matches exactly one word and `#` zero or
 * more words. Exported for tests and for tools that explain routing.
 */
export function topicMatches(pattern: string, routingKey: string): boolean {
  return matchWords(pattern.split('.'), 0, routingKey.split('.'), 0);
}

function matchWords(pattern: string[], p: number, key: string[], k: number): boolean {
  if (p === pattern.length) return k === key.length;
  const word = pattern[p];
  if (word === '#') {
    // `#` swallows 0..n words: try every split; patterns are short so this stays cheap.
    for (let skip = k; skip <= key.length; skip++) if (matchWords(pattern, p + 1, key, skip)) return true;
    return false;
  }
  if (k === key.length) return false;
  return (word === '*' || word === key[k]) && matchWords(pattern, p + 1, key, k + 1);
}

/** One delivery waiting in a queue: the serialised envelope (as a broker would hold it) and its attempt. */
interface Delivery {
  body: string;
  attempt: number;
}

interface QueueSettings {
  prefetch: number;
  maxAttempts: number;
  backoffMs: number[];
}

interface QueueDeps {
  db: Knex;
  log: BusLog;
}

/**
 * The in-process counterpart of one consumer's RabbitMQ queue: a FIFO of deliveries, at most
 * `prefetch` handlers at once, retries after back-off, dead letters in the database.
 */
class MemoryQueue {
  private readonly ready: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly retryTimers = new Map<NodeJS.Timeout, Delivery>();
  private state: 'declared' | 'running' | 'stopping' = 'declared';

  constructor(
    readonly name: string,
    private readonly patterns: string[],
    private readonly handler: MessageHandler,
    private readonly settings: QueueSettings,
    private readonly deps: QueueDeps,
  ) {}

  accepts(routingKey: string): boolean {
    return this.patterns.some((pattern) => topicMatches(pattern, routingKey));
  }

  /** Like a durable queue, it holds deliveries until its consumer starts. */
  enqueue(delivery: Delivery): void {
    if (this.state === 'stopping') return;
    this.ready.push(delivery);
    this.pump();
  }

  start(): void {
    if (this.state !== 'declared') return;
    this.state = 'running';
    this.pump();
  }

  /**
   * Waits for running handlers. Queued deliveries and delayed retries live only in memory and
   * are dropped (and logged): with the in-process bus nothing survives a restart.
   */
  async stop(): Promise<void> {
    this.state = 'stopping';
    const dropped = [...this.ready, ...this.retryTimers.values()];
    for (const timer of this.retryTimers.keys()) clearTimeout(timer);
    this.retryTimers.clear();
    this.ready.length = 0;
    if (dropped.length > 0) {
      const ids = dropped.map((d) => readEnvelope(JSON.parse(d.body))?.id ?? '?');
      this.deps.log.warn(
        { consumer: this.name, dropped: dropped.length, messageIds: ids },
        'in-process bus stopped with undelivered messages',
      );
    }
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private pump(): void {
    while (this.state === 'running' && this.inFlight.size < this.settings.prefetch && this.ready.length > 0) {
      this.run(this.ready.shift()!);
    }
  }

  private run(delivery: Delivery): void {
    const work = this.deliver(delivery).finally(() => {
      this.inFlight.delete(work);
      this.pump();
    });
    this.inFlight.add(work);
  }

  private async deliver(delivery: Delivery): Promise<void> {
    const envelope = readEnvelope(JSON.parse(delivery.body));
    if (!envelope) return; // cannot happen: publish wrote the body
    const message: BusMessage = { ...envelope, attempt: delivery.attempt };
    try {
      await this.handler(message);
    } catch (err) {
      await this.onFailure(delivery, message, err);
    }
  }

  private async onFailure(delivery: Delivery, message: BusMessage, err: unknown): Promise<void> {
    const fields = {
      consumer: this.name,
      messageId: message.id,
      type: message.type,
      attempt: message.attempt,
      err: errorMessage(err),
    };
    if (message.attempt >= this.settings.maxAttempts) {
      this.deps.log.error(fields, 'message dead-lettered after its last attempt');
      await this.deadLetter(message, err);
      return;
    }
    if (this.state === 'stopping') {
      this.deps.log.warn(fields, 'handler failed while the in-process bus stops; retry dropped');
      return;
    }
    const delay = backoffDelay(this.settings.backoffMs, message.attempt);
    this.deps.log.warn({ ...fields, retryInMs: delay }, 'handler failed; retrying');
    this.scheduleRetry({ body: delivery.body, attempt: delivery.attempt + 1 }, delay);
  }

  private scheduleRetry(delivery: Delivery, delay: number): void {
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.enqueue(delivery);
    }, delay);
    this.retryTimers.set(timer, delivery);
  }

  private async deadLetter(message: BusMessage, err: unknown): Promise<void> {
    try {
      await recordDeadLetter(this.deps.db, this.name, message, err);
    } catch (dbErr) {
      // Nowhere else to keep it: log the whole message so an operator can still replay it.
      this.deps.log.error({ consumer: this.name, message, err: errorMessage(dbErr) }, 'could not store dead letter');
    }
  }
}

export interface MemoryBusOptions {
  /** Database holding the `dead_letters` table. */
  db: Knex;
  log?: BusLog;
}

/**
 * The embedded default bus: RabbitMQ's semantics (topic routing, one queue per consumer,
 * prefetch, bounded retries with back-off, dead letters) inside one process. Messages are
 * serialised to JSON on publish, as on the wire, so handlers see the same shapes on both buses.
 *
 * Durability: the outbox guarantees that committed events reach the bus; once handed over, a
 * message waiting in memory (queued, or waiting for a retry) is lost if the process stops.
 */
export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  private readonly queues = new Map<string, MemoryQueue>();
  private readonly log: BusLog;
  private consuming = false;
  private stopped = false;

  constructor(
    private readonly config: BusConfig,
    private readonly options: MemoryBusOptions,
  ) {
    this.log = options.log ?? silentLog;
  }

  /** Nothing to connect to; publishing works from construction on. A stopped bus stays stopped. */
  async start(): Promise<void> {}

  publish(message: OutgoingMessage): Promise<void> {
    // In the executor, a throw rejects the promise, as it would from the broker's bus.
    return new Promise((resolve) => {
      if (this.stopped) throw new Error('bus is stopped');
      // Serialising here fails on the same payloads (BigInt, cycles) the broker would refuse.
      const body = envelopeJson(message);
      for (const queue of this.queues.values()) if (queue.accepts(message.type)) queue.enqueue({ body, attempt: 1 });
      resolve();
    });
  }

  consume(name: string, patterns: string[], handler: MessageHandler, options: ConsumerOptions = {}): void {
    if (this.queues.has(name)) throw new Error(`consumer "${name}" is already declared`);
    const settings: QueueSettings = {
      prefetch: Math.max(1, options.prefetch ?? this.config.prefetch),
      maxAttempts: Math.max(1, options.maxAttempts ?? this.config.maxAttempts),
      backoffMs: options.backoffMs ?? this.config.backoffMs,
    };
    const queue = new MemoryQueue(name, patterns, handler, settings, { db: this.options.db, log: this.log });
    this.queues.set(name, queue);
    if (this.consuming) queue.start();
  }

  startConsumers(): Promise<void> {
    this.consuming = true;
    for (const queue of this.queues.values()) queue.start();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.consuming = false;
    await Promise.all([...this.queues.values()].map((queue) => queue.stop()));
  }

  health(): Promise<{ ok: boolean; detail?: string }> {
    return Promise.resolve(
      this.stopped ? { ok: false, detail: 'in-process bus stopped' } : { ok: true, detail: 'in-process bus' },
    );
  }

  deadLetters(consumer: string, limit?: number): Promise<DeadLetter[]> {
    return listDeadLetters(this.options.db, consumer, limit);
  }
}
