import type { Knex } from 'knex';
import type { BusMessage, MessageHandler } from './bus.js';
import { silentLog, type BusLog } from './support.js';

/** A handler whose database work runs in the transaction that also records the message as handled. */
export type TransactionalHandler<T = unknown> = (message: BusMessage<T>, trx: Knex.Transaction) => Promise<void>;

export interface IdempotentOptions {
  log?: BusLog;
}

/**
 * Wraps a handler so that each message id is handled once per consumer, however often the bus
 * delivers it (outbox relays and brokers are at-least-once).
 *
 * In one transaction: insert (consumer, message id) into `inbox`, skip if it was there, else run
 * the handler with that transaction. A throwing handler rolls the inbox row back with its own
 * work, so the retry runs it again. A concurrent duplicate waits on the row's primary key and
 * then skips (or runs, if the first one rolled back).
 *
 * Inside the handler, use `trx` for every query: on PGlite there is one connection, and a query
 * on the outer `db` would wait for this transaction forever.
 */
export function idempotent<T = unknown>(
  db: Knex,
  consumer: string,
  handler: TransactionalHandler<T>,
  options: IdempotentOptions = {},
): MessageHandler<T> {
  const log = options.log ?? silentLog;
  return (message) =>
    db.transaction(async (trx) => {
      const claimed = await trx('inbox')
        .insert({ consumer, message_id: message.id })
        .onConflict(['consumer', 'message_id'])
        .ignore()
        .returning('message_id');
      if (claimed.length === 0) {
        log.debug({ consumer, messageId: message.id, attempt: message.attempt }, 'duplicate message skipped');
        return;
      }
      await handler(message, trx);
    });
}

/**
 * Deletes inbox rows handled more than `olderThanMs` ago; returns how many. Keep them longer than
 * a message can still be redelivered (outbox retention plus the longest retry span), or a late
 * duplicate would be handled again.
 */
export async function purgeInbox(db: Knex, olderThanMs: number): Promise<number> {
  // `returning` because knex-pglite reports no row count for a plain delete.
  const deleted = await db('inbox')
    .where(
      'handled_at',
      '<',
      db.raw(`now() - (?::bigint * interval '1 millisecond')`, [Math.max(0, Math.floor(olderThanMs))]),
    )
    .del()
    .returning('message_id');
  return deleted.length;
}
