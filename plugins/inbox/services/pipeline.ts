import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { mailDomainOf } from '../../../core/kernel/mail-domain.js';
import { forOrg, run } from '../../../core/data/statements.js';
import { WriteBatch } from '../../../core/data/write-batch.js';
import type { DeliveryEvent, InboundDelivery, ParsedInboundEmail } from '../../../core/contracts/index.js';
import {
  InboundEmail,
  InboxChannel,
  type GmailConfirmation,
  type InboundReason,
  type InboundStatus,
} from '../models/index.js';
import { ensureChannel } from './channel-store.js';
import {
  detectAutoReply,
  detectBounce,
  detectForwardingConfirmation,
  detectMailingList,
  detectOwnMail,
  isForwardingTest,
  isNoReplySender,
  viaForwarding,
  type ForwardingConfirmationFinding,
  type OwnIdentity,
} from './classify.js';
import type { InboxDeps, InboxWorkspace } from './deps.js';
import { deliverToTicket, findThread, openTicket, QuotaCache, TicketQuotaReached, type Delivered } from './intake.js';
import { contentKey, readMessage, type MessageFacts } from './mime.js';
import { InboundRouter } from './routing.js';
import { scoreSpam } from './spam.js';

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

export interface Verdict {
  status: InboundStatus;
  reason: InboundReason | null;
  signals: string[];
  /** Kept for a person to release (quarantined only). */
  keepRaw: boolean;
}

/**
 * What classification reads, one prepared statement: the channel, the plan, whether the workspace
 * holds an original of the message (not a stored duplicate: the predicate of
 * inbox_emails_dedupe_uq), and the sender's recent mail. $1 org, $2 workspace, $3 message key,
 * $4 loop window start, $5 content key, $6 rate window start, $7 sender, $8 the earlier window.
 */
const CONTEXT = forOrg(`
  select r.same_content, r.total,
    (select row_to_json(c) from inbox_channels c where c.org_id = $1 and c.workspace_id = $2) as channel,
    (select o.plan from organizations o where o.id = $1) as plan,
    exists (select 1 from inbox_emails d where d.org_id = $1 and d.workspace_id = $2 and d.message_key = $3 and (d.reason is null or d.reason <> 'duplicate')) as seen
  from (select count(*) filter (where e.received_at > $4 and e.content_key = $5)::int as same_content,
               count(*) filter (where e.received_at > $6)::int as total
        from inbox_emails e
        where e.org_id = $1 and e.workspace_id = $2 and e.sender_key = $7 and e.received_at > $8 and (e.reason is null or e.reason <> 'duplicate')) r`);

interface ClassifyContext {
  channel: InboxChannel;
  plan: string;
  seen: boolean;
  sameContent: number;
  total: number;
}

const verdict = (
  status: InboundStatus,
  reason: InboundReason | null,
  signal?: string | null,
  keepRaw = false,
): Verdict => ({ status, reason, signals: signal ? [signal] : [], keepRaw });

/** A unique violation of the dedupe index: another delivery of the same message won the race. */
function isDedupeViolation(err: unknown): boolean {
  const e = err as { code?: string; nativeError?: { code?: string }; constraint?: string; message?: string } | null;
  const code = e?.code ?? e?.nativeError?.code;
  return code === '23505' && /inbox_emails_dedupe_uq/.test(String(e?.constraint ?? e?.message ?? ''));
}

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
    const ctx = await this.context(ws, facts, messageKey, receivedAt);
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
    const v = this.classify(ws, ctx, facts, spam);
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
        if (viaForwarding(facts, channel.forwarding_address)) await this.forwarded(channel, receivedAt);
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
      return (trx) => this.confirmationReceived(trx, channel, detectForwardingConfirmation(facts)!, receivedAt);
    if (v.reason === 'forwarding_test') return (trx) => this.testReturned(trx, channel, receivedAt);
    const ids = v.reason === 'bounce' ? (detectBounce(facts)?.originalMessageIds ?? []) : [];
    if (ids.length)
      return async (trx) =>
        void (await this.d.tickets.setDeliveryStatus(trx, { orgId: ws.org_id, emailMessageIds: ids }, 'bounced'));
    return undefined;
  }

  /**
   * What classification needs from the database, in one round trip: the channel, the plan,
   * whether the workspace holds an original of the message, and the sender's recent mail (the same
   * subject and text within the loop window, all within the rate window). Stored duplicates are not counted.
   */
  private async context(ws: InboxWorkspace, f: MessageFacts, messageKey: string, now: Date): Promise<ClassifyContext> {
    const { loop, senderRateLimit } = this.d.options;
    const loopSince = new Date(now.getTime() - loop.windowMinutes * 60_000);
    const rateSince = new Date(now.getTime() - senderRateLimit.windowMinutes * 60_000);
    const [row] = await run<{
      same_content: number;
      total: number;
      channel: Record<string, unknown> | null;
      plan: string | null;
      seen: boolean;
    }>(this.d.db, CONTEXT, [
      ws.org_id,
      ws.id,
      messageKey,
      loopSince,
      contentKey(f),
      rateSince,
      f.from?.address ?? null,
      loopSince < rateSince ? loopSince : rateSince,
    ]);
    const channel = row?.channel ? InboxChannel.fromDatabaseJson(row.channel) : await ensureChannel(this.d.db, ws);
    return {
      channel,
      plan: row?.plan ?? 'none',
      seen: !!row?.seen,
      sameContent: Number(row?.same_content ?? 0),
      total: Number(row?.total ?? 0),
    };
  }

  /**
   * The classification, in order: duplicate, channel_disabled, not_in_plan,
   * forwarding_confirmation, forwarding_test, bounce, auto_reply, loop (our own mail, then
   * repeated exchanges), no_reply, mailing_list, spam, rate_limited; otherwise processed.
   */
  private classify(
    ws: InboxWorkspace,
    ctx: ClassifyContext,
    f: MessageFacts,
    spam: { score: number; signals: string[] },
  ): Verdict {
    const channel = ctx.channel;
    if (ctx.seen) return verdict('ignored', 'duplicate');
    if (ws.archived_at || !ws.mailbox_enabled)
      return verdict('ignored', 'channel_disabled', ws.archived_at ? 'workspace_archived' : 'mailbox_disabled');
    if (!channel.enabled) return verdict('ignored', 'channel_disabled', 'channel_disabled');
    if (!this.d.planCatalog.hasFeature(ctx.plan, 'email_channel'))
      return verdict('quarantined', 'not_in_plan', 'email_channel', true);
    if (detectForwardingConfirmation(f))
      return verdict('processed', 'forwarding_confirmation', 'forwarding_confirmation');
    if (isForwardingTest(f, channel.test_code)) return verdict('processed', 'forwarding_test', 'forwarding_test');
    const bounce = detectBounce(f);
    if (bounce) return verdict('ignored', 'bounce', bounce.signal);
    const auto = detectAutoReply(f);
    if (auto) return verdict('ignored', 'auto_reply', auto);
    const own = detectOwnMail(f, this.own);
    if (own) return verdict('ignored', 'loop', own);
    if (f.from && ctx.sameContent + 1 >= this.d.options.loop.max)
      return verdict('ignored', 'loop', 'repeated_exchange');
    if (isNoReplySender(f.from?.address) && (!f.replyTo || isNoReplySender(f.replyTo.address)))
      return verdict('ignored', 'no_reply', 'no_reply_sender');
    const list = channel.accept_list_mail ? null : detectMailingList(f);
    if (list) return verdict('ignored', 'mailing_list', list);
    if (spam.score >= this.d.options.spamThreshold) return verdict('quarantined', 'spam', null, true);
    if (f.from && ctx.total + 1 > this.d.options.senderRateLimit.max)
      return verdict('quarantined', 'rate_limited', 'sender_rate', true);
    return verdict('processed', null);
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

  // ---- forwarding effects

  private async confirmationReceived(
    trx: Knex,
    channel: InboxChannel,
    found: ForwardingConfirmationFinding,
    at: Date,
  ): Promise<void> {
    const pending: GmailConfirmation = {
      code: found.code,
      url: found.url,
      requested_by: found.requestedBy,
      received_at: at.toISOString(),
      verified: false,
    };
    const patch: Partial<InboxChannel> = { pending_gmail_confirmation: pending };
    if (channel.forwarding_address && found.requestedBy === channel.forwarding_address)
      patch.gmail_confirmation = pending;
    await InboxChannel.query(trx).forOrg(channel.org_id).patch(patch).where('id', channel.id);
  }

  private async testReturned(trx: Knex, channel: InboxChannel, at: Date): Promise<void> {
    await InboxChannel.query(trx)
      .forOrg(channel.org_id)
      .patch({
        forwarding_verified_at: channel.forwarding_verified_at ?? at,
        forwarding_tested_at: at,
        ...confirmedByForwarding(channel),
      })
      .where('id', channel.id);
  }

  /** Notes mail that came through the forwarding (at most once a minute, unless a confirmation is pending). */
  private async forwarded(channel: InboxChannel, at: Date): Promise<void> {
    const confirm = confirmedByForwarding(channel);
    const recent = channel.last_forwarded_at && at.getTime() - new Date(channel.last_forwarded_at).getTime() < 60_000;
    if (recent && Object.keys(confirm).length === 0) return;
    await InboxChannel.query(this.d.db)
      .forOrg(channel.org_id)
      .patch({ last_forwarded_at: at, ...confirm })
      .where('id', channel.id);
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

/**
 * Mail that came through the forwarding proves a pending provider confirmation was accepted:
 * it becomes the forwarding's confirmation, verified.
 */
function confirmedByForwarding(channel: InboxChannel): Partial<InboxChannel> {
  const pending = channel.pending_gmail_confirmation;
  if (pending && (!pending.requested_by || pending.requested_by === channel.forwarding_address)) {
    return { gmail_confirmation: { ...pending, verified: true }, pending_gmail_confirmation: null };
  }
  if (channel.gmail_confirmation && !channel.gmail_confirmation.verified)
    return { gmail_confirmation: { ...channel.gmail_confirmation, verified: true } };
  return {};
}
