import type { Knex } from 'knex';
import { newId } from '../data/ids.js';
import type { BusMessage, DeadLetter } from './bus.js';
import { describeError, isRecord, readEnvelope, toIso } from './support.js';

/**
 * The `dead_letters` table is where operators look for messages that exhausted their attempts,
 * whichever bus is configured (RabbitMQ also keeps a copy in the consumer's `.dead` queue).
 */
interface DeadLetterRow {
  id: string;
  consumer: string;
  message_id: string;
  type: string;
  org_id: string | null;
  message: unknown;
  error: string;
  failed_at: unknown;
}

export async function recordDeadLetter(db: Knex, consumer: string, message: BusMessage, error: unknown): Promise<void> {
  await db<DeadLetterRow>('dead_letters').insert({
    id: newId('dlq'),
    consumer,
    message_id: message.id,
    type: message.type,
    org_id: message.orgId,
    // Stringified so arrays and primitives in the payload survive pg's parameter conversion.
    message: JSON.stringify(message),
    error: describeError(error),
  });
}

/** The newest `limit` dead letters of one consumer, returned oldest first (newest last). */
export async function listDeadLetters(db: Knex, consumer: string, limit = 100): Promise<DeadLetter[]> {
  const rows = await db<DeadLetterRow>('dead_letters')
    .where({ consumer })
    .orderBy([
      { column: 'failed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
  return rows.reverse().map(toDeadLetter);
}

function toDeadLetter(row: DeadLetterRow): DeadLetter {
  return { consumer: row.consumer, message: parseStoredMessage(row), error: row.error, failedAt: toIso(row.failed_at) };
}

function parseStoredMessage(row: DeadLetterRow): BusMessage {
  const raw: unknown = typeof row.message === 'string' ? JSON.parse(row.message) : row.message;
  const envelope = readEnvelope(raw);
  if (envelope) return { ...envelope, attempt: attemptOf(raw) };
  // A row written by hand or by an older version: rebuild what the columns know.
  return {
    id: row.message_id,
    type: row.type,
    orgId: row.org_id,
    occurredAt: toIso(row.failed_at),
    attempt: 0,
    payload: raw,
  };
}

function attemptOf(raw: unknown): number {
  return isRecord(raw) && typeof raw.attempt === 'number' ? raw.attempt : 0;
}
