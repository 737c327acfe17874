import type { Knex } from 'knex';
import { conflict, notFound } from '../../../core/http/errors.js';
import { Ticket, TicketSubscriber } from '../models/index.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';
import type { TicketsDeps } from './deps.js';
import { maskEmail } from './mask.js';
import type { TicketService } from './ticket-service.js';
import { systemActor, type SignedInActor } from '../../../core/contracts/index.js';

/** The secret box context of unsubscribe tokens (a token opens nothing else). */
const UNSUBSCRIBE_CONTEXT = 'ticket-notice-unsubscribe:v1';

/**
 * People kept informed about a ticket besides its customer (release notices go to them):
 * customers of duplicates, affected users of an error group, people the team adds. Addresses
 * are stored for sending and only ever leave the API masked.
 */
export class SubscriberService {
  constructor(
    private readonly deps: TicketsDeps,
    private readonly tickets: TicketService,
  ) {}

  async list(actor: SignedInActor, ticketId: string): Promise<TicketSubscriber[]> {
    const ticket = await this.tickets.load(actor.principal, ticketId);
    return TicketSubscriber.query(this.deps.db)
      .forOrg(ticket.org_id)
      .where({ ticket_id: ticket.id })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  }

  /** Added by the team: 409 already_subscribed for the ticket's customer or an address already on the list. */
  async add(actor: SignedInActor, ticketId: string, email: string): Promise<TicketSubscriber> {
    return this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, ticketId, trx, { forUpdate: true });
      const sub = await this.subscribe(trx, ticket, {
        email,
        source: 'status_page',
        addedByUserId: actor.principal.userId,
      });
      if (!sub) throw conflict('already_subscribed', `${maskEmail(email)} already receives this ticket's updates`);
      await this.deps.audit.record(trx, {
        actor,
        action: 'ticket.subscriber_added',
        target: { type: 'ticket', id: ticket.id },
        workspaceId: ticket.workspace_id,
        metadata: { subscriber_id: sub.id, email_masked: maskEmail(email) },
      });
      return sub;
    });
  }

  async remove(actor: SignedInActor, ticketId: string, subscriberId: string): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, ticketId, trx);
      const deleted = await TicketSubscriber.query(trx)
        .forOrg(ticket.org_id)
        .where({ id: subscriberId, ticket_id: ticket.id })
        .delete()
        .returning('*');
      const sub = deleted[0];
      if (!sub) throw notFound('subscriber');
      await this.deps.audit.record(trx, {
        actor,
        action: 'ticket.subscriber_removed',
        target: { type: 'ticket', id: ticket.id },
        workspaceId: ticket.workspace_id,
        metadata: { subscriber_id: sub.id, email_masked: maskEmail(sub.email), source: sub.source },
      });
      await this.deps.outbox.add(
        trx,
        'tickets.subscriber_removed',
        { ticket_id: ticket.id, subscriber_id: sub.id },
        { orgId: ticket.org_id },
      );
    });
  }

  /**
   * Subscribes an address to a ticket in the caller's transaction; null when it already gets the
   * ticket's updates (its customer, or already subscribed). Announces `tickets.subscriber_added`.
   */
  async subscribe(
    trx: Knex,
    ticket: Ticket,
    input: {
      email: string;
      source: TicketSubscriber['source'];
      threadTicketId?: string | null;
      userHash?: string | null;
      addedByUserId?: string | null;
    },
  ): Promise<TicketSubscriber | null> {
    const email = input.email.trim().toLowerCase();
    if (ticket.customer_email && ticket.customer_email.toLowerCase() === email) return null;
    let sub: TicketSubscriber;
    try {
      // A savepoint: a duplicate address must not abort the caller's transaction.
      sub = await trx.transaction(
        async (sp) =>
          await TicketSubscriber.query(sp)
            .insert({
              org_id: ticket.org_id,
              ticket_id: ticket.id,
              thread_ticket_id: input.threadTicketId ?? null,
              email,
              user_hash: input.userHash ?? null,
              source: input.source,
              added_by_user_id: input.addedByUserId ?? null,
            })
            .returning('*'),
      );
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
    await this.deps.outbox.add(
      trx,
      'tickets.subscriber_added',
      {
        ticket_id: ticket.id,
        workspace_id: ticket.workspace_id,
        subscriber_id: sub.id,
        source: sub.source,
        thread_ticket_id: sub.thread_ticket_id,
      },
      { orgId: ticket.org_id },
    );
    return sub;
  }

  /** The original a ticket closed as a duplicate points at (its customer follows it), or null. */
  async originalOf(ticket: Pick<Ticket, 'org_id' | 'state' | 'duplicate_of_ticket_id'>): Promise<Ticket | null> {
    if (ticket.state !== 'closed' || !ticket.duplicate_of_ticket_id) return null;
    return (await Ticket.query(this.deps.db).forOrg(ticket.org_id).findById(ticket.duplicate_of_ticket_id)) ?? null;
  }

  // ---- notices and their unsubscribe links (docs/fixes.md, "Notices")

  /**
   * The unsubscribe link of a notice about `ticketId` sent to `email`: `/unsubscribe/<token>` on
   * PUBLIC_BASE_URL, the token sealed with the secret box (so it survives a key rotation and
   * names its address to nobody who reads the URL).
   */
  unsubscribeUrl(ticketId: string, email: string): string {
    const token = this.deps.secretBox.encrypt(
      JSON.stringify({ t: ticketId, e: email.trim().toLowerCase() }),
      UNSUBSCRIBE_CONTEXT,
    );
    return `${this.deps.config.server.publicBaseUrl.replace(/\/+$/, '')}/unsubscribe/${token}`;
  }

  /** A notice's unsubscribe link and its headers (RFC 2369 and RFC 8058 one-click), the same link in both. */
  unsubscribeLink(ticketId: string, email: string): { url: string; headers: Record<string, string> } {
    const url = this.unsubscribeUrl(ticketId, email);
    return { url, headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } };
  }

  /** What an unsubscribe token names, or null when it is not one of ours. */
  readToken(token: string): { ticketId: string; email: string } | null {
    try {
      const v = JSON.parse(this.deps.secretBox.decrypt(token, UNSUBSCRIBE_CONTEXT)) as { t?: unknown; e?: unknown };
      return typeof v.t === 'string' && typeof v.e === 'string' ? { ticketId: v.t, email: v.e } : null;
    } catch {
      return null;
    }
  }

  /**
   * The ticket an unsubscribe token is about (any organization), for its page; null for a token
   * that is not ours or whose ticket is gone.
   */
  async ticketOfToken(token: string): Promise<{ ticket: Ticket; email: string } | null> {
    const v = this.readToken(token);
    if (!v) return null;
    const ticket = await Ticket.query(this.deps.db).acrossOrgs('notice unsubscribe by token').findById(v.ticketId);
    return ticket ? { ticket, email: v.email } : null;
  }

  /**
   * Stops the notices of a ticket to the token's address: its subscriptions to the ticket (and,
   * for the customer of a duplicate, to the original it follows) get `unsubscribed_at`; the
   * ticket's own customer gets the ticket's `notices_unsubscribed_at`. Idempotent; false for a
   * token that is not ours.
   */
  async unsubscribe(token: string): Promise<boolean> {
    const found = await this.ticketOfToken(token);
    if (!found) return false;
    const { ticket, email } = found;
    const now = new Date();
    await this.deps.db.transaction(async (trx) => {
      const subs = await TicketSubscriber.query(trx)
        .forOrg(ticket.org_id)
        .whereRaw('lower(email) = ?', [email])
        .where((q) => q.where('ticket_id', ticket.id).orWhere('thread_ticket_id', ticket.id))
        .whereNull('unsubscribed_at');
      if (subs.length)
        await TicketSubscriber.query(trx)
          .forOrg(ticket.org_id)
          .patch({ unsubscribed_at: now })
          .whereIn(
            'id',
            subs.map((x) => x.id),
          );
      const own = ticket.customer_email?.toLowerCase() === email;
      if (own)
        await trx('tickets')
          .where({ org_id: ticket.org_id, id: ticket.id })
          .whereNull('notices_unsubscribed_at')
          .update({ notices_unsubscribed_at: now });
      if (!subs.length && !own) return;
      await this.deps.audit.record(trx, {
        orgId: ticket.org_id,
        actor: systemActor('tickets', ticket.org_id),
        action: 'ticket.notices_unsubscribed',
        target: { type: 'ticket', id: ticket.id },
        workspaceId: ticket.workspace_id,
        metadata: { email_masked: maskEmail(email), subscriber_ids: subs.map((x) => x.id), customer: own },
      });
      for (const sub of subs) {
        await this.deps.outbox.add(
          trx,
          'tickets.subscriber_unsubscribed',
          { ticket_id: sub.ticket_id, subscriber_id: sub.id },
          { orgId: ticket.org_id },
        );
      }
    });
    return true;
  }

  /** Records that these subscribers of a ticket were notified (their notice went out another way, e.g. on their own ticket). */
  async markNotified(trx: Knex, orgId: string, ids: string[], at = new Date()): Promise<void> {
    if (ids.length) await TicketSubscriber.query(trx).forOrg(orgId).patch({ notified_at: at }).whereIn('id', ids);
  }

  /**
   * A notice to a subscriber who follows a ticket they did not write (team-added, affected users,
   * issue followers): the template with the unsubscribe link and headers, and `notified_at`, in the
   * caller's transaction. The text must not quote the ticket's customer (their subject, their words).
   */
  async notify(
    trx: Knex,
    ticket: Ticket,
    sub: Pick<TicketSubscriber, 'id' | 'email'>,
    input: { template: string; data: Record<string, unknown> },
  ): Promise<string> {
    const link = this.unsubscribeLink(ticket.id, sub.email);
    const mailId = await this.deps.mailer.enqueue(trx, {
      orgId: ticket.org_id,
      template: input.template,
      locale: ticket.language === 'it' ? 'it' : 'en',
      to: sub.email,
      data: { ...input.data, unsubscribe_url: link.url },
      headers: { 'Auto-Submitted': 'auto-generated', ...link.headers },
      ticketRef: ticket.id,
    });
    await TicketSubscriber.query(trx).forOrg(ticket.org_id).patch({ notified_at: new Date() }).where('id', sub.id);
    return mailId;
  }
}
