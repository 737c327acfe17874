/** A message as consumers see it. `id` is unique per published event and is the idempotency key. */
export interface BusMessage<T = unknown> {
  id: string;
  /** Routing key, `<plugin>.<event>`, e.g. `tickets.created`. */
  type: string;
  orgId: string | null;
  /** ISO 8601 time the event happened (the outbox row's creation). */
  occurredAt: string;
  /** 1 on first delivery, grows with each retry. */
  attempt: number;
  payload: T;
}

export type OutgoingMessage<T = unknown> = Omit<BusMessage<T>, 'attempt'>;

export type MessageHandler<T = unknown> = (message: BusMessage<T>) => Promise<void>;

export interface ConsumerOptions {
  /** Messages handled at once by this consumer in this process. */
  prefetch?: number;
  /** Deliveries before the message goes to the consumer's dead-letter queue. */
  maxAttempts?: number;
  /** Delay before attempt n+1 is backoffMs[min(n-1, len-1)]. */
  backoffMs?: number[];
}

export interface DeadLetter {
  consumer: string;
  message: BusMessage;
  error: string;
  failedAt: string;
}

/**
 * The bus port. One topic exchange; each consumer has its own durable queue bound to its routing
 * patterns, bounded retries with back-off, then a dead-letter queue. `publish` resolves only once
 * the broker has confirmed the message.
 */
export interface Bus {
  readonly kind: 'memory' | 'rabbitmq';
  /** Connects (publishing works after this). */
  start(): Promise<void>;
  /** Publishes and waits for the broker's confirm. */
  publish(message: OutgoingMessage): Promise<void>;
  /** Declares a consumer; it receives messages once `startConsumers` has run. */
  consume(name: string, patterns: string[], handler: MessageHandler, options?: ConsumerOptions): void;
  /** Starts every declared consumer (worker role). */
  startConsumers(): Promise<void>;
  /** Stops consuming, waits for in-flight handlers, closes the connection. */
  stop(): Promise<void>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  /** Messages that exhausted their attempts, newest last (for operators and tests). */
  deadLetters(consumer: string, limit?: number): Promise<DeadLetter[]>;
}
