import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { mailDomainOf } from '../../../core/kernel/mail-domain.js';
import { WriteBatch } from '../../../core/data/write-batch.js';
import type { DeliveryEvent, InboundDelivery, ParsedInboundEmail } from '../../../core/contracts/index.js';
import { InboundEmail, type InboxChannel, type InboundReason, type InboundStatus } from '../models/index.js';
import { classifyEmail, loadClassifyContext, verdict, type Verdict } from './classification.js';
import { detectBounce, detectForwardingConfirmation, viaForwarding, type OwnIdentity } from './classify.js';
import type { InboxDeps, InboxWorkspace } from './deps.js';
import { confirmationReceived, forwarded, testReturned } from './forwarding-effects.js';
import { deliverToTicket, findThread, openTicket, QuotaCache, TicketQuotaReached, type Delivered } from './intake.js';
import { contentKey, readMessage, type MessageFacts } from './mime.js';
import { InboundRouter } from './routing.js';
import { scoreSpam } from './spam.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

/** One line of the webhook's answer. */
export interface InboundResult {
  recipient: string;
  status: InboundStatus | 'ignored';
  /** InboundEmail.reason, or `unknown_recipient` for an address no workspace owns (not stored). */
  reason: InboundReason | 'unknown_recipient' | null;
  ticket_id: string | null;
}

/** What a delivery event changed. */
export interface EventResult {
  type: DeliveryEvent['type'];
  provider_message_id: string;
  recipient: string;
  /** Messages of conversations whose delivery_status changed. */
  messages_updated: number;
}

/** A unique violation of the dedupe index: another delivery of the same message won the race. */
const isDedupeViolation = (err: unknown): boolean => isUniqueViolation(err, /inbox_emails_dedupe_uq/);

/**
 * The inbound pipeline behind POST /v1/webhooks/email/{provider}: the adapter checks the
 * signature and reads the delivery; each email is routed by its envelope recipient, classified
 * (docs/inbox.md lists the order), logged as an InboundEmail and, when it passes, opens or joins
 * a ticket, all in one transaction per email. Delivery events update the delivery status of the
 * service's own replies.
 */
export class InboundPipeline {
  readonly router: InboundRouter;
  private readonly quota = new QuotaCache();

  constructor(private readonly d: InboxDeps) {
    this.router = new InboundRouter(d.db, d.workspaces, () => d.tickets);
  }

  private get own(): OwnIdentity {
    const host = new URL(this.d.config.server.publicBaseUrl).hostname;
    return {
      domains: [...new Set([this.d.workspaces.inboundDomain, host, mailDomainOf(this.d.config.server.publicBaseUrl)])],
      senders: this.d.ownSenders,
    };
  }

  async receive(delivery: InboundDelivery): Promise<{ results: InboundResult[]; events: EventResult[] }> {
    const parsed = await this.d.channelAdapter.parseInbound(delivery);
    const facts = new Map<Buffer, Promise<MessageFacts>>();
    const results: InboundResult[] = [];
    for (const email of parsed.emails) {
      if (!facts.has(email.raw)) facts.set(email.raw, readMessage(email.raw));
      results.push(await this.handle(delivery.provider, email, await facts.get(email.raw)!));
    }
    const events: EventResult[] = [];
    for (const event of parsed.events) events.push(await this.handleEvent(event));
    return { results, events };
  }

  /** Classifies and stores one email for one recipient. */
  async handle(provider: string, email: ParsedInboundEmail, facts: MessageFacts): Promise<InboundResult> {
    const route = await this.router.route(email.recipient);
    if (!route) return { recipient: email.recipient, status: 'ignored', reason: 'unknown_recipient', ticket_id: null };
    const ws = route.workspace;
    const receivedAt = new Date();
    const messageKey = facts.messageId ?? `sha256:${facts.rawHash}`;
    const ctx = await loadClassifyContext(this.d, ws, facts, messageKey, receivedAt);
    const channel = ctx.channel;
    const spam = scoreSpam(facts, email.providerVerdicts, receivedAt);
    const row = {
      org_id: ws.org_id,
      workspace_id: ws.id,
      channel_id: channel.id,
      provider,
      provider_message_id: email.providerMessageId,
      recipient: email.recipient,
      from_address: facts.from?.address ?? null,
      from_name: facts.from?.name ?? null,
      subject: facts.subject.slice(0, 998) || null,
      message_id: facts.messageId,
      message_key: messageKey,
      sender_key: facts.from?.address ?? null,
      content_key: contentKey(facts),
      received_at: receivedAt,
      spam_score: Math.min(spam.score, 1000),
      size: facts.size,
    };
    const v = classifyEmail(this.d, this.own, ws, ctx, facts, spam);
    const signals = [...v.signals, ...spam.signals.filter((s) => !v.signals.includes(s))];

    if (v.status === 'processed' && v.reason === null) {
      const logRow = (out: Delivered) => ({
        ...row,
        status: 'processed',
        reason: null,
        signals,
        ticket_id: out.ticketId,
        ticket_created: out.created,
      });
      try {
        const deps = { tickets: this.d.tickets, planLimits: this.d.planLimits, quota: this.quota };
        const thread = route.ticket ?? (await findThread(this.d.db, this.d.tickets, ws, facts));
        let out: Delivered;
        if (thread) {
          // A reply joins its ticket under the ticket's row lock, with its log row, in one transaction.
          out = await this.d.db.transaction(async (trx) => {
            const joined = await deliverToTicket(trx, deps, {
              workspace: ws,
              channel,
              facts,
              ticket: thread,
              receivedAt,
            });
            await this.queueLog(new WriteBatch(), logRow(joined)).run(trx);
            return joined;
          });
        } else {
          // A new ticket: the ticket, its message, files, events and the log row in one statement.
          // No event of ours: tickets.created / tickets.message_received announce it.
          const batch = new WriteBatch();
          out = await openTicket(this.d.db, deps, { workspace: ws, channel, facts, receivedAt, batch });
          await this.queueLog(batch, logRow(out)).run(this.d.db);
        }
        // After the commit, outside the ticket's transaction: a busy forwarded inbox must not queue on its channel row.
        if (viaForwarding(facts, channel.forwarding_address)) await forwarded(this.d.db, channel, receivedAt);
        return { recipient: email.recipient, status: 'processed', reason: null, ticket_id: out.ticketId };
      } catch (err) {
        if (isDedupeViolation(err)) return this.store(email, { ...row, signals }, verdict('ignored', 'duplicate'));
        if (err instanceof TicketQuotaReached)
          return this.store(
            email,
            { ...row, signals },
            verdict('quarantined', 'not_in_plan', 'tickets_per_month', true),
          );
        throw err;
      }
    }
    return this.store(email, { ...row, signals }, v, this.effectOf(v, ws, channel, facts, receivedAt));
  }

  /** The side effect of a stored email's reason, written with its log row; none for most reasons. */
  private effectOf(
    v: Verdict,
    ws: InboxWorkspace,
    channel: InboxChannel,
    facts: MessageFacts,
    receivedAt: Date,
  ): ((trx: Knex) => Promise<void>) | undefined {
    if (v.reason === 'forwarding_confirmation')
      return (trx) => confirmationReceived(trx, channel, detectForwardingConfirmation(facts)!, receivedAt);
    if (v.reason === 'forwarding_test') return (trx) => testReturned(trx, channel, receivedAt);
    const ids = v.reason === 'bounce' ? (detectBounce(facts)?.originalMessageIds ?? []) : [];
    if (ids.length)
      return async (trx) =>
        void (await this.d.tickets.setDeliveryStatus(trx, { orgId: ws.org_id, emailMessageIds: ids }, 'bounced'));
    return undefined;
  }

  /** Queues the InboundEmail row into `batch`; its id is `batch`'s to write. */
  private queueLog(batch: WriteBatch, row: Record<string, unknown>): WriteBatch {
    const now = new Date();
    return batch.insert(
      'inbox_emails',
      [{ ...row, id: newId(InboundEmail.idPrefix), signals: row.signals ?? [], created_at: now, updated_at: now }],
      ['signals'],
    );
  }

  /**
   * Stores an email that opens no ticket: its log row, with the side effects of its reason in one
   * transaction when it has any, else in one statement (a duplicate, an auto-reply …).
   */
  private async store(
    email: ParsedInboundEmail,
    row: Record<string, unknown> & { workspace_id: string; org_id: string },
    v: Verdict,
    effect?: (trx: Knex) => Promise<void>,
  ): Promise<InboundResult> {
    const write = async (r: Record<string, unknown>, vv: Verdict, fx?: (trx: Knex) => Promise<void>) => {
      const batch = this.queueLog(new WriteBatch(), {
        ...r,
        status: vv.status,
        reason: vv.reason,
        signals: [...vv.signals, ...((r.signals as string[]) ?? []).filter((s) => !vv.signals.includes(s))],
        raw: vv.keepRaw ? email.raw : null,
        ticket_id: null,
      });
      if (vv.status === 'quarantined') {
        const id = batch.rowsOf('inbox_emails')[0].id as string;
        this.d.outbox.queue(batch, [
          {
            type: 'inbox.email_received',
            payload: {
              email_id: id,
              workspace_id: row.workspace_id,
              status: vv.status,
              reason: vv.reason,
              ticket_id: null,
              created: false,
            },
            orgId: row.org_id,
          },
        ]);
      }
      if (!fx) return batch.run(this.d.db);
      await this.d.db.transaction(async (trx) => {
        await batch.run(trx);
        await fx(trx);
      });
    };
    try {
      await write(row, v, effect);
    } catch (err) {
      if (!isDedupeViolation(err)) throw err;
      v = verdict('ignored', 'duplicate');
      await write(row, v);
    }
    return { recipient: email.recipient, status: v.status, reason: v.reason, ticket_id: null };
  }

  // ---- delivery events

  async handleEvent(event: DeliveryEvent): Promise<EventResult> {
    // mail_messages belongs to the mail plugin; delivery events find their mail by the provider's id (indexed).
    const mails = (await this.d
      .db('mail_messages')
      .select('id')
      .where({ provider_message_id: event.providerMessageId })
      .limit(10)) as { id: string }[];
    const changed = mails.length
      ? await this.d.tickets.setDeliveryStatus(this.d.db, { mailMessageIds: mails.map((m) => m.id) }, event.type)
      : [];
    return {
      type: event.type,
      provider_message_id: event.providerMessageId,
      recipient: event.recipient,
      messages_updated: changed.length,
    };
  }
}
