import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { ConsumerStatus, type AsyncMessage, type Envelope, type Publisher } from 'rabbitmq-client';
import type { BusMessage, MessageHandler, OutgoingMessage } from './bus.js';
import { isDatabaseUnavailable } from '../data/unavailable.js';
import { recordDeadLetter } from './dead-letters.js';
import { backoffDelay, envelopeJson, errorMessage, readEnvelope, withTimeout, type BusLog } from './support.js';

/** Attempt number of a delivery; absent on the first one. */
const ATTEMPT_HEADER = 'x-attempt';

export interface QueueNames {
  main: string;
  retry: string;
  dead: string;
}

export interface ConsumerDef {
  name: string;
  patterns: string[];
  handler: MessageHandler;
  prefetch: number;
  maxAttempts: number;
  backoffMs: number[];
  queues: QueueNames;
}

/**
 * What RabbitBus does with one delivery: runs the consumer's handler and acks; a failure is
 * republished (with confirms) to the consumer's `.retry` queue with the next attempt number, or
 * after the last attempt to `.dead` and the `dead_letters` table; an unreadable body is dropped
 * to `.dead`.
 */
export class RabbitDelivery {
  constructor(private readonly options: { db: Knex; log: BusLog; publishTimeoutMs: number }) {}

  private get log(): BusLog {
    return this.options.log;
  }

  private get publishTimeoutMs(): number {
    return this.options.publishTimeoutMs;
  }

  async onDelivery(def: ConsumerDef, requeuer: Publisher, msg: AsyncMessage): Promise<ConsumerStatus> {
    const envelope = readEnvelope(msg.body);
    const attempt = attemptOf(msg);
    if (!envelope) return this.dropUnreadable(def, msg, attempt);
    const message: BusMessage = { ...envelope, attempt };
    try {
      await def.handler(message);
      return ConsumerStatus.ACK;
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        // Postgres restarting is nobody's fault: the attempt is not spent (an outage longer than the
        // retry span would dead-letter everything in flight). Requeued after a pause, same attempt.
        this.log.warn(
          { consumer: def.name, messageId: message.id, attempt, err: errorMessage(err) },
          'database unavailable; message requeued without spending an attempt',
        );
        await sleep(Math.min(Math.max(backoffDelay(def.backoffMs, 1), 250), 5_000));
        return ConsumerStatus.REQUEUE;
      }
      await this.afterFailure(def, requeuer, message, err);
      return ConsumerStatus.ACK;
    }
  }

  /**
   * Moves a failed message on (to `.retry` or, after its last attempt, to `.dead` and the
   * table) before the original is acked. If that fails (broker or database trouble) the error
   * propagates: the delivery is requeued and the handler runs again with the same attempt.
   */
  private async afterFailure(def: ConsumerDef, requeuer: Publisher, message: BusMessage, err: unknown): Promise<void> {
    const fields = {
      consumer: def.name,
      messageId: message.id,
      type: message.type,
      attempt: message.attempt,
      err: errorMessage(err),
    };
    try {
      if (message.attempt >= def.maxAttempts) {
        this.log.error(fields, 'message dead-lettered after its last attempt');
        // The table first: it is what operators look at, and a failure here leaves no copy in `.dead`.
        await recordDeadLetter(this.options.db, def.name, message, err);
        await this.send(requeuer, def.queues.dead, message, {
          [ATTEMPT_HEADER]: message.attempt,
          'x-error': errorMessage(err).slice(0, 500),
        });
        return;
      }
      const delay = backoffDelay(def.backoffMs, message.attempt);
      this.log.warn({ ...fields, retryInMs: delay }, 'handler failed; retrying');
      await this.send(requeuer, def.queues.retry, message, { [ATTEMPT_HEADER]: message.attempt + 1 }, String(delay));
    } catch (moveErr) {
      this.log.error({ ...fields, moveErr: errorMessage(moveErr) }, 'could not move failed message; requeueing it');
      // Pause so a broken database or broker does not turn the requeue into a hot loop.
      await sleep(Math.min(backoffDelay(def.backoffMs, 1), 5_000));
      throw moveErr;
    }
  }

  /** Publishes straight to a queue through the default exchange and waits for the confirm. */
  private async send(
    requeuer: Publisher,
    queue: string,
    message: BusMessage,
    headers: Record<string, unknown>,
    expiration?: string,
  ): Promise<void> {
    const envelope: Envelope = { exchange: '', routingKey: queue, ...messageProperties(message), headers, expiration };
    await withTimeout(
      this.publishTimeoutMs,
      `publish to ${queue}`,
      requeuer.send(envelope, Buffer.from(envelopeJson(message))),
    );
  }

  private async dropUnreadable(def: ConsumerDef, msg: AsyncMessage, attempt: number): Promise<ConsumerStatus> {
    const raw = Buffer.isBuffer(msg.body) ? msg.body.toString('utf8') : JSON.stringify(msg.body);
    const message: BusMessage = {
      id: msg.messageId ?? `unreadable-${Date.now()}`,
      type: msg.routingKey,
      orgId: null,
      occurredAt: new Date().toISOString(),
      attempt,
      payload: raw.slice(0, 10_000),
    };
    this.log.error(
      { consumer: def.name, messageId: message.id, type: message.type },
      'unreadable message sent to the dead-letter queue',
    );
    await recordDeadLetter(this.options.db, def.name, message, new Error('message body is not a bus envelope')).catch(
      (err: unknown) => this.log.error({ consumer: def.name, err: errorMessage(err) }, 'could not store dead letter'),
    );
    return ConsumerStatus.DROP;
  }
}

/** Properties every copy of a message carries (original, retries, dead letter). */
export function messageProperties(message: OutgoingMessage): Envelope {
  return { durable: true, messageId: message.id, type: message.type, contentType: 'application/json' };
}

function attemptOf(msg: AsyncMessage): number {
  const value: unknown = msg.headers?.[ATTEMPT_HEADER];
  return typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : 1;
}
