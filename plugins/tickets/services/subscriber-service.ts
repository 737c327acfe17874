import type { Knex } from 'knex';
import { conflict, notFound } from '../../../core/http/errors.js';
import { Ticket, TicketSubscriber } from '../models/index.js';
import { isUniqueViolation } from './db-errors.js';
import { auditActor, type Actor, type TicketsDeps } from './deps.js';
import { maskEmail } from './mask.js';
import type { TicketService } from './ticket-service.js';


/**
 * People kept informed about a ticket besides its customer (release notices go to them):
 * customers of duplicates, affected users of an error group, people the team adds. Addresses
 * are stored for sending and only ever leave the API masked.
 */
export class SubscriberService {
  constructor(private readonly deps: TicketsDeps, private readonly tickets: TicketService) {}

  async list(actor: Actor, ticketId: string): Promise<TicketSubscriber[]> {
    const ticket = await this.tickets.load(actor.principal, ticketId);
    return TicketSubscriber.query(this.deps.db).forOrg(ticket.org_id).where({ ticket_id: ticket.id }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
  }

  /** Added by the team: 409 already_subscribed for the ticket's customer or an address already on the list. */
  async add(actor: Actor, ticketId: string, email: string): Promise<TicketSubscriber> {
    return this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, ticketId, trx, { forUpdate: true });
      const sub = await this.subscribe(trx, ticket, { email, source: 'status_page', addedByUserId: actor.principal.userId });
      if (!sub) throw conflict('already_subscribed', `${maskEmail(email)} already receives this ticket's updates`);
      await this.deps.audit.record(trx, {
        ...auditActor(actor), action: 'ticket.subscriber_added', target: { type: 'ticket', id: ticket.id }, workspaceId: ticket.workspace_id,
        metadata: { subscriber_id: sub.id, email_masked: maskEmail(email) },
      });
      return sub;
    });
  }

  async remove(actor: Actor, ticketId: string, subscriberId: string): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, ticketId, trx);
      const deleted = await TicketSubscriber.query(trx).forOrg(ticket.org_id).where({ id: subscriberId, ticket_id: ticket.id }).delete().returning('*');
      const sub = (deleted as unknown as TicketSubscriber[])[0];
      if (!sub) throw notFound('subscriber');
      await this.deps.audit.record(trx, {
        ...auditActor(actor), action: 'ticket.subscriber_removed', target: { type: 'ticket', id: ticket.id }, workspaceId: ticket.workspace_id,
        metadata: { subscriber_id: sub.id, email_masked: maskEmail(sub.email), source: sub.source },
      });
      await this.deps.outbox.add(trx, 'tickets.subscriber_removed', { ticket_id: ticket.id, subscriber_id: sub.id }, { orgId: ticket.org_id });
    });
  }

  /**
   * Subscribes an address to a ticket in the caller's transaction; null when it already gets the
   * ticket's updates (its customer, or already subscribed). Announces `tickets.subscriber_added`.
   */
  async subscribe(
    trx: Knex,
    ticket: Ticket,
    input: { email: string; source: TicketSubscriber['source']; threadTicketId?: string | null; userHash?: string | null; addedByUserId?: string | null },
  ): Promise<TicketSubscriber | null> {
    const email = input.email.trim().toLowerCase();
    if (ticket.customer_email && ticket.customer_email.toLowerCase() === email) return null;
    let sub: TicketSubscriber;
    try {
      // A savepoint: a duplicate address must not abort the caller's transaction.
      sub = await trx.transaction(async (sp) => await TicketSubscriber.query(sp).insert({
        org_id: ticket.org_id,
        ticket_id: ticket.id,
        thread_ticket_id: input.threadTicketId ?? null,
        email,
        user_hash: input.userHash ?? null,
        source: input.source,
        added_by_user_id: input.addedByUserId ?? null,
      }).returning('*'));
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
    await this.deps.outbox.add(trx, 'tickets.subscriber_added', {
      ticket_id: ticket.id, workspace_id: ticket.workspace_id, subscriber_id: sub.id, source: sub.source, thread_ticket_id: sub.thread_ticket_id,
    }, { orgId: ticket.org_id });
    return sub;
  }
}
