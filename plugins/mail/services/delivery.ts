import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Outbox } from '../../../core/bus/outbox.js';
import {
  isAdapterError,
  type ChannelAdapter,
  type EmailAddress,
  type OutgoingEmail,
} from '../../../core/contracts/index.js';
import type { MailMessage } from '../models/mail-message.js';
import { MAIL_REQUESTED } from './mailer.js';

export type DeliveryOutcome = 'sent' | 'already_sent' | 'missing' | 'failed' | 'busy';

export interface MailDeliveryOptions {
  db: Knex;
  outbox: Outbox;
  /** The selected channel adapter, looked up at each send. */
  channel: () => ChannelAdapter;
  log: Logger;
  /** Attempts of the consumer; the last failing one marks the mail `failed`. */
  maxAttempts: number;
  /** How long a worker holds a mail while sending it. */
  leaseMs: number;
}

type Row = Pick<
  MailMessage,
  | 'id'
  | 'org_id'
  | 'to_address'
  | 'from_address'
  | 'from_name'
  | 'reply_to'
  | 'subject'
  | 'text'
  | 'html'
  | 'headers'
  | 'message_id'
  | 'status'
  | 'attempts'
> & { attachments?: MailMessage['attachments'] | string };

const ms = (db: Knex, value: number) => db.raw(`now() + (?::bigint * interval '1 millisecond')`, [Math.floor(value)]);
const ago = (db: Knex, value: number) => db.raw(`now() - (?::bigint * interval '1 millisecond')`, [Math.floor(value)]);

/** Thrown (so the bus retries later) when another worker holds the mail right now. */
export class MailBusyError extends Error {
  override name = 'MailBusyError';
}

/**
 * Sends stored mail through the channel adapter. No transaction is held while the provider is
 * called: the row is claimed with a short lease (so two deliveries of one event never send at
 * once), sent, then marked. A mail already `sent` is never sent again.
 */
export class MailDelivery {
  constructor(private readonly o: MailDeliveryOptions) {}

  /**
   * Sends one mail. Resolves when it was sent, was sent before, does not exist, failed for good (a permanent
   * provider error) or is still held by another delivery at the last attempt; throws to have the bus retry (after
   * recording the error, or while another delivery holds the mail).
   */
  async deliver(mailId: string, attempt: number): Promise<DeliveryOutcome> {
    const { db, log } = this.o;
    const [row] = (await db('mail_messages')
      .where({ id: mailId })
      .whereNot('status', 'sent')
      .where((q) => q.whereNull('locked_until').orWhere('locked_until', '<', db.fn.now()))
      .update({ attempts: db.raw('attempts + 1'), locked_until: ms(db, this.o.leaseMs), updated_at: db.fn.now() })
      .returning('*')) as Row[];
    if (!row) return this.unclaimed(mailId, attempt);

    let providerMessageId: string;
    try {
      ({ providerMessageId } = await this.o.channel().send(outgoing(row)));
    } catch (err) {
      return this.failed(row, attempt, err);
    }
    await db('mail_messages').where({ id: row.id }).update({
      status: 'sent',
      provider_message_id: providerMessageId,
      sent_at: db.fn.now(),
      locked_until: null,
      last_error: null,
      updated_at: db.fn.now(),
    });
    log.info({ mailId: row.id, orgId: row.org_id, providerMessageId, attempt: row.attempts }, 'mail sent');
    return 'sent';
  }

  /**
   * Announces again queued mail (younger than `maxAgeMs`) that nobody has touched for `idleMs`, or whose send
   * lease lapsed unfinished (a finished attempt clears it: its worker died mid-send): the in-process bus loses
   * pending deliveries when the process stops, and a killed worker's redeliveries found the mail still held.
   */
  async requeueStuck(idleMs: number, maxAgeMs = 24 * 60 * 60 * 1000): Promise<number> {
    const { db, outbox } = this.o;
    return db.transaction(async (trx) => {
      const rows = (await trx('mail_messages')
        .select('id', 'org_id')
        .where('status', 'queued')
        .where('created_at', '>', ago(trx, maxAgeMs))
        .where((q) =>
          q
            .where((idle) => idle.whereNull('locked_until').where('updated_at', '<', ago(trx, idleMs)))
            .orWhere('locked_until', '<', trx.fn.now()),
        )
        .orderBy('updated_at')
        .limit(100)
        .forUpdate()
        .skipLocked()) as Array<{ id: string; org_id: string | null }>;
      for (const row of rows) await outbox.add(trx, MAIL_REQUESTED, { mail_id: row.id }, { orgId: row.org_id });
      if (rows.length > 0) {
        await trx('mail_messages')
          .whereIn(
            'id',
            rows.map((r) => r.id),
          )
          .update({ updated_at: trx.fn.now(), locked_until: null });
        this.o.log.warn({ mailIds: rows.map((r) => r.id) }, 'queued mail announced again');
      }
      return rows.length;
    });
  }

  /** Deletes sent and failed mail older than `olderThanMs` (bodies hold links with one-time tokens); returns how many. */
  async purge(olderThanMs: number): Promise<number> {
    const { db } = this.o;
    // `returning` because knex-pglite reports no row count for a plain delete.
    const deleted = await db('mail_messages')
      .whereIn('status', ['sent', 'failed'])
      .where('created_at', '<', ago(db, olderThanMs))
      .del()
      .returning('id');
    return deleted.length;
  }

  private async unclaimed(mailId: string, attempt: number): Promise<DeliveryOutcome> {
    const row: { status: string } | undefined = await this.o.db('mail_messages').where({ id: mailId }).first('status');
    if (!row) {
      this.o.log.warn({ mailId }, 'mail.requested for a mail that does not exist');
      return 'missing';
    }
    if (row.status === 'sent') {
      this.o.log.debug({ mailId }, 'mail already sent; not sending again');
      return 'already_sent';
    }
    // Held by another delivery: come back later. At the last attempt the holder may have died with its lease (a
    // killed worker): not a dead letter, since requeueStuck announces a mail whose lease lapsed unfinished.
    if (attempt >= this.o.maxAttempts) {
      this.o.log.warn({ mailId, attempt }, 'mail held by another delivery; left to its lease');
      return 'busy';
    }
    throw new MailBusyError(`mail ${mailId} is being sent by another worker`);
  }

  private async failed(row: Row, attempt: number, err: unknown): Promise<DeliveryOutcome> {
    const { db, log } = this.o;
    const permanent = isAdapterError(err) && !err.retryable;
    const final = permanent || attempt >= this.o.maxAttempts;
    const message = err instanceof Error ? `${isAdapterError(err) ? `${err.code}: ` : ''}${err.message}` : String(err);
    await db('mail_messages')
      .where({ id: row.id })
      .whereNot('status', 'sent')
      .update({
        status: final ? 'failed' : 'queued',
        last_error: message.slice(0, 2000),
        locked_until: null,
        updated_at: db.fn.now(),
      });
    const fields = { mailId: row.id, orgId: row.org_id, attempt, sendAttempts: row.attempts, err: message };
    if (permanent) {
      // Retrying cannot help (the provider refused the message itself): end here, no dead letter.
      log.error(fields, 'mail refused by the provider; marked failed');
      return 'failed';
    }
    if (final) log.error(fields, 'mail not sent after the last attempt; marked failed');
    else log.warn(fields, 'mail not sent; the bus retries');
    throw err;
  }
}

function parseAddress(value: string): EmailAddress {
  const m = /^\s*"?(.*?)"?\s*<([^>]+)>\s*$/.exec(value);
  if (!m) return { address: value.trim() };
  const name = m[1].replace(/\\(["\\])/g, '$1');
  return name ? { address: m[2], name } : { address: m[2] };
}

/** The OutgoingEmail of a stored mail: exactly what was rendered at enqueue time. */
export function outgoing(row: Row): OutgoingEmail {
  const from: EmailAddress = row.from_name
    ? { address: row.from_address, name: row.from_name }
    : { address: row.from_address };
  const headers =
    typeof row.headers === 'string' ? (JSON.parse(row.headers) as Record<string, string>) : (row.headers ?? {});
  return {
    from,
    to: row.to_address
      .split(',')
      .map((a) => ({ address: a.trim() }))
      .filter((a) => a.address),
    ...(row.reply_to ? { replyTo: parseAddress(row.reply_to) } : {}),
    subject: row.subject,
    text: row.text,
    html: row.html,
    messageId: row.message_id,
    headers: { ...headers, 'Message-ID': row.message_id },
    ...attachmentsOf(row),
  };
}

function attachmentsOf(row: Row): Pick<OutgoingEmail, 'attachments'> {
  const list =
    typeof row.attachments === 'string' ? (JSON.parse(row.attachments) as MailMessage['attachments']) : row.attachments;
  if (!list?.length) return {};
  return {
    attachments: list.map((a) => ({
      filename: a.filename,
      contentType: a.content_type,
      content: Buffer.from(a.content_base64, 'base64'),
    })),
  };
}
