import type { Knex } from 'knex';
import type { WriteBatch } from '../../../core/data/write-batch.js';
import type { InboxChannel } from '../models/index.js';
import type { InboxWorkspace, PlanLimitsPort, TicketMessageInput, TicketPort, TicketRef } from './deps.js';
import { isNoReplySender } from './classify.js';
import type { MessageFacts } from './mime.js';

/**
 * Spares the plan check of most new tickets while the month's quota is far away: after a check
 * that shows `allowed - used` of headroom, the next tenth of it (at most for a minute) is taken
 * without asking billing again, per process. Near the limit every ticket is checked.
 */
export class QuotaCache {
  private readonly free = new Map<string, { left: number; until: number }>();

  take(key: string, now = Date.now()): boolean {
    const e = this.free.get(key);
    if (!e || e.until < now || e.left <= 0) return false;
    e.left--;
    return true;
  }

  remember(key: string, result: { ok: boolean; allowed?: unknown; used?: unknown }, now = Date.now()): void {
    const headroom =
      typeof result.allowed === 'number' && typeof result.used === 'number' ? result.allowed - result.used - 1 : 0;
    if (!result.ok || headroom < 20) this.free.delete(key);
    else this.free.set(key, { left: Math.floor(headroom / 10), until: now + 60_000 });
  }
}

/** A new ticket would pass the plan's tickets of the month. */
export class TicketQuotaReached extends Error {
  override name = 'TicketQuotaReached';
}

export interface Delivered {
  ticketId: string;
  created: boolean;
}

/**
 * The customer of a message: Reply-To when it names a person (contact forms send From a
 * no-reply address with the visitor in Reply-To), else From.
 */
export function customerOf(f: MessageFacts): { address: string | null; name: string | null } {
  if (f.replyTo && !isNoReplySender(f.replyTo.address) && f.replyTo.address !== f.from?.address) {
    return {
      address: f.replyTo.address,
      name: f.replyTo.name ?? (f.from && isNoReplySender(f.from.address) ? null : (f.from?.name ?? null)),
    };
  }
  return { address: f.from?.address ?? null, name: f.from?.name ?? null };
}

export function messageInput(f: MessageFacts, receivedAt: Date): TicketMessageInput {
  const customer = customerOf(f);
  return {
    from: customer.address,
    fromName: customer.name,
    to: f.to.map((m) => m.address),
    cc: f.cc.map((m) => m.address),
    subject: f.subject || null,
    bodyText: f.text || null,
    bodyHtml: f.html,
    emailMessageId: f.messageId,
    inReplyTo: f.inReplyTo,
    references: f.references.length ? f.references.join(' ') : null,
    attachments: f.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      contentId: a.contentId,
      inline: a.inline,
    })),
    receivedAt,
  };
}

/** The ticket of the workspace whose conversation the message continues (In-Reply-To, then References), if any. */
export async function findThread(
  db: Knex,
  tickets: TicketPort,
  ws: InboxWorkspace,
  facts: MessageFacts,
): Promise<TicketRef | null> {
  const ids = [
    ...new Set([facts.inReplyTo, ...[...facts.references].reverse()].filter((id): id is string => !!id)),
  ].slice(0, 50);
  return (await tickets.findByEmailMessageIds(db, ws.org_id, ws.id, ids)) ?? null;
}

/**
 * Opens a ticket for the message or adds it to the one it continues: the per-ticket reply
 * address first, then In-Reply-To and References against the workspace's conversations. A new
 * ticket checks the plan's tickets of the month when billing is on (TicketQuotaReached).
 */
export async function deliverToTicket(
  trx: Knex,
  d: { tickets: TicketPort; planLimits: PlanLimitsPort | null; quota?: QuotaCache },
  input: {
    workspace: InboxWorkspace;
    channel: InboxChannel;
    facts: MessageFacts;
    ticket: TicketRef | null;
    receivedAt: Date;
  },
): Promise<Delivered> {
  const ticket = input.ticket ?? (await findThread(trx, d.tickets, input.workspace, input.facts));
  if (ticket) {
    await d.tickets.addInboundMessage(trx, {
      ...messageInput(input.facts, input.receivedAt),
      orgId: input.workspace.org_id,
      ticketId: ticket.id,
    });
    return { ticketId: ticket.id, created: false };
  }
  return openTicket(trx, d, input);
}

/**
 * A new ticket for the message, after the plan check. With `batch`, its rows join the caller's
 * WriteBatch (written by the caller, with its own rows, in one statement); else written in `db`.
 */
export async function openTicket(
  db: Knex,
  d: { tickets: TicketPort; planLimits: PlanLimitsPort | null; quota?: QuotaCache },
  input: {
    workspace: InboxWorkspace;
    channel: InboxChannel;
    facts: MessageFacts;
    receivedAt: Date;
    batch?: WriteBatch;
  },
): Promise<Delivered> {
  const { workspace: ws, facts } = input;
  const quotaKey = `${ws.org_id}:${ws.id}`;
  if (d.planLimits && !d.quota?.take(quotaKey)) {
    const check = await d.planLimits.check(db, ws.org_id, 'tickets_per_month', { workspaceId: ws.id });
    d.quota?.remember(quotaKey, check);
    if (!check.ok) throw new TicketQuotaReached("the plan's tickets of this month are used up");
  }
  const customer = customerOf(facts);
  const created = await d.tickets.createTicket(
    db,
    {
      orgId: ws.org_id,
      workspaceId: ws.id,
      origin: 'email',
      subject: facts.subject || '(no subject)',
      channelId: input.channel.id,
      customerEmail: customer.address,
      customerName: customer.name,
      message: messageInput(facts, input.receivedAt),
      workspace: ws,
    },
    { batch: input.batch },
  );
  return { ticketId: created.id, created: true };
}
