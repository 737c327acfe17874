import type { Knex } from 'knex';
import { diffFields, type AuditEntryInput, type AuditedActor } from '../../../core/audit/audit-writer.js';
import { httpError } from '../../../core/http/errors.js';
import { Ticket, TicketMessage } from '../models/index.js';
import type { TicketsDeps } from './deps.js';
import { findMember, memberCanOpen, teamLeads } from './members.js';
import { canApply, nextState } from './state-machine.js';
import type { SubscriberService } from './subscriber-service.js';
import type { TicketService } from './ticket-service.js';
import { systemActor, type SignedInActor } from '../../../core/contracts/index.js';
import { iso } from '../../../core/http/times.js';

const mailLocale = (l: string | null | undefined): 'en' | 'it' => (l === 'it' ? 'it' : 'en');

/**
 * The team's operations on a ticket: assign, close, reopen, escalate, internal notes and the
 * status link. Each runs in one transaction with its audit entry and events; the routes answer
 * the Ticket afterwards.
 */
export class TicketActions {
  constructor(
    private readonly deps: TicketsDeps,
    private readonly tickets: TicketService,
    private readonly subscribers: SubscriberService,
  ) {}

  async assign(actor: SignedInActor, id: string, assigneeUserId: string | null): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, id, trx, { forUpdate: true });
      if (assigneeUserId) await this.checkAssignee(trx, ticket, assigneeUserId);
      if (ticket.assignee_user_id === assigneeUserId) return;
      await this.tickets.update(trx, ticket, { assignee_user_id: assigneeUserId });
      await this.recordAction(trx, actor, ticket, 'assigned', {
        changes: diffFields({ assignee_user_id: ticket.assignee_user_id }, { assignee_user_id: assigneeUserId }),
        event: { assignee_user_id: assigneeUserId },
      });
    });
  }

  /**
   * Closes with a reason. A duplicate points duplicate_of_ticket_id at the original (followed
   * to its own original when that is a duplicate too) and subscribes its customer to it; its status
   * page keeps following the original until that is released. The fixes plugin stops the closed
   * ticket's fix work on `tickets.closed` (jobs cancelled, pull requests closed).
   */
  async close(
    actor: SignedInActor,
    id: string,
    input: { reason: string; duplicate_of_ticket_id?: string | null; comment?: string | null },
  ): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, id, trx, { forUpdate: true });
      nextState(ticket.state, 'close');
      let original: Ticket | null = null;
      if (input.reason === 'duplicate')
        original = await this.originalOf(trx, actor, ticket, input.duplicate_of_ticket_id!);
      const now = new Date();
      await this.tickets.transition(trx, ticket, 'close', {
        closed_at: now,
        close_reason: input.reason,
        duplicate_of_ticket_id: original?.id ?? null,
        // An original already released resolves its duplicate at once; otherwise the duplicate's
        // status page follows the original until the release (status-page.ts), which notifies its customer.
        ...(original?.resolved_version
          ? { resolved_version: original.resolved_version, released_at: original.released_at }
          : {}),
      });
      if (input.comment) await this.addNoteRow(trx, actor, ticket, `${input.comment}`);
      if (original && ticket.customer_email) {
        await this.subscribers.subscribe(trx, original, {
          email: ticket.customer_email,
          source: 'duplicate',
          threadTicketId: ticket.id,
          addedByUserId: actor.principal.userId,
        });
      }
      await this.recordAction(trx, actor, ticket, 'closed', {
        changes: diffFields(
          { state: ticket.state, duplicate_of_ticket_id: ticket.duplicate_of_ticket_id },
          { state: 'closed', duplicate_of_ticket_id: original?.id ?? null },
        ),
        metadata: { reason: input.reason },
        event: { reason: input.reason, duplicate_of_ticket_id: original?.id ?? null },
      });
    });
  }

  async reopen(actor: SignedInActor, id: string, reason: string | null): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, id, trx, { forUpdate: true });
      const now = new Date();
      await this.tickets.transition(trx, ticket, 'reopen', {
        reopened_count: ticket.reopened_count + 1,
        closed_at: null,
        close_reason: null,
        duplicate_of_ticket_id: null,
        sla_started_at: now,
      });
      if (reason) await this.addNoteRow(trx, actor, ticket, reason);
      await this.recordAction(trx, actor, ticket, 'reopened', {
        changes: diffFields(
          { state: ticket.state, reopened_count: ticket.reopened_count },
          { state: 'triage', reopened_count: ticket.reopened_count + 1 },
        ),
        metadata: reason ? { reason } : undefined,
        event: { by: 'team', reopened_count: ticket.reopened_count + 1 },
      });
    });
  }

  /** Hands the ticket to a person; the organization's owners and admins (and the assignee) get an email each, in their language. */
  async escalate(
    actor: SignedInActor,
    id: string,
    input: { reason: string; assignee_user_id?: string | null },
  ): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, id, trx, { forUpdate: true });
      nextState(ticket.state, 'escalate');
      const assignee = input.assignee_user_id ? await this.checkAssignee(trx, ticket, input.assignee_user_id) : null;
      const ws = await this.deps.workspaceService.get(ticket.org_id, ticket.workspace_id, trx);
      const now = new Date();
      await this.tickets.transition(
        trx,
        ticket,
        'escalate',
        {
          escalation_reason: input.reason,
          escalated_at: now,
          ...(assignee ? { assignee_user_id: assignee.id } : {}),
        },
        ws,
      );

      const recipients = await teamLeads(trx, ticket.org_id);
      if (assignee && !recipients.some((r) => r.id === assignee.id)) recipients.push(assignee);
      await this.mailEscalation(trx, ticket, ws, recipients, input.reason, actor.principal.email ?? 'API');
      await this.recordAction(trx, actor, ticket, 'escalated', {
        changes: diffFields(
          { state: ticket.state, assignee_user_id: ticket.assignee_user_id },
          { state: 'escalated', assignee_user_id: assignee?.id ?? ticket.assignee_user_id },
        ),
        metadata: { reason: input.reason, notified: recipients.length },
        event: { reason: input.reason, assignee_user_id: assignee?.id ?? ticket.assignee_user_id, from: ticket.state },
      });
    });
  }

  /**
   * Escalation decided by the automation (fixes plugin), in the caller's transaction: the same
   * transition, team mail, audit entry (actor `system`) and event as POST escalate. False when the
   * ticket's state does not allow it (closed, already escalated).
   */
  async escalateBySystem(trx: Knex, ticket: Ticket, reason: string): Promise<boolean> {
    if (!canApply(ticket.state, 'escalate')) return false;
    const ws = await this.deps.workspaceService.get(ticket.org_id, ticket.workspace_id, trx);
    await this.tickets.transition(trx, ticket, 'escalate', { escalation_reason: reason, escalated_at: new Date() }, ws);
    await this.mailEscalation(trx, ticket, ws, await teamLeads(trx, ticket.org_id), reason, 'Patchwell');
    await this.recordAction(trx, systemActor('tickets', ticket.org_id), ticket, 'escalated', {
      changes: diffFields({ state: ticket.state }, { state: 'escalated' }),
      metadata: { reason },
      event: { reason, assignee_user_id: ticket.assignee_user_id, from: ticket.state },
    });
    return true;
  }

  /** An internal note: part of the conversation the team sees, never sent, never on the status page. */
  async addNote(actor: SignedInActor, id: string, bodyMd: string): Promise<TicketMessage> {
    return this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, id, trx, { forUpdate: true });
      const note = await this.addNoteRow(trx, actor, ticket, bodyMd);
      await this.tickets.update(trx, ticket, {});
      await this.deps.outbox.add(
        trx,
        'tickets.note_added',
        { ticket_id: id, workspace_id: ticket.workspace_id, message_id: note.id },
        { orgId: ticket.org_id },
      );
      return note;
    });
  }

  /** revoke: the status page answers 404 until a rotate; rotate: a new URL, the old one answers 404. */
  async statusLink(
    actor: SignedInActor,
    id: string,
    action: 'revoke' | 'rotate',
  ): Promise<{ public_status_url: string; public_token_revoked_at: string | null }> {
    return this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, id, trx, { forUpdate: true });
      const patch =
        action === 'rotate'
          ? this.tickets.newStatusToken(ticket.id)
          : { public_token_revoked_at: ticket.public_token_revoked_at ?? new Date() };
      const updated = await this.tickets.update(trx, ticket, patch);
      await this.deps.audit.record(trx, {
        actor,
        action: `ticket.status_link_${action === 'rotate' ? 'rotated' : 'revoked'}`,
        target: { type: 'ticket', id },
        workspaceId: ticket.workspace_id,
        changes: diffFields(
          { public_token_revoked_at: iso(ticket.public_token_revoked_at) },
          { public_token_revoked_at: iso(updated.public_token_revoked_at) },
        ),
      });
      return {
        public_status_url: this.tickets.statusUrl(updated),
        public_token_revoked_at: iso(updated.public_token_revoked_at),
      };
    });
  }

  /**
   * The audit entry `ticket.<what>` and the event `tickets.<what>` of one action, in its transaction;
   * the event carries the ticket and workspace ids before `entry.event`'s fields.
   */
  private async recordAction(
    trx: Knex,
    actor: AuditedActor,
    ticket: Ticket,
    what: 'assigned' | 'closed' | 'reopened' | 'escalated',
    entry: Pick<AuditEntryInput, 'changes' | 'metadata'> & { event: Record<string, unknown> },
  ): Promise<void> {
    await this.deps.audit.record(trx, {
      orgId: ticket.org_id,
      actor,
      action: `ticket.${what}`,
      target: { type: 'ticket', id: ticket.id },
      workspaceId: ticket.workspace_id,
      changes: entry.changes,
      metadata: entry.metadata,
    });
    await this.deps.outbox.add(
      trx,
      `tickets.${what}`,
      { ticket_id: ticket.id, workspace_id: ticket.workspace_id, ...entry.event },
      { orgId: ticket.org_id },
    );
  }

  /** The escalation email to each recipient, in their language; `by` names who escalated. */
  private async mailEscalation(
    trx: Knex,
    ticket: Ticket,
    ws: { name: string; client_name?: string | null },
    recipients: { email: string; locale?: string | null }[],
    reason: string,
    by: string,
  ): Promise<void> {
    const url = `${this.deps.config.server.publicBaseUrl.replace(/\/+$/, '')}/tickets/${ticket.id}`;
    for (const r of recipients) {
      await this.deps.mailer.enqueue(trx, {
        orgId: ticket.org_id,
        template: 'tickets.escalated',
        locale: mailLocale(r.locale),
        to: r.email,
        data: { subject: ticket.subject || ticket.id, workspace: ws.client_name || ws.name, reason, actor: by, url },
        ticketRef: ticket.id,
      });
    }
  }

  private async addNoteRow(trx: Knex, actor: SignedInActor, ticket: Ticket, bodyMd: string): Promise<TicketMessage> {
    return TicketMessage.query(trx)
      .insert({
        org_id: ticket.org_id,
        workspace_id: ticket.workspace_id,
        ticket_id: ticket.id,
        direction: 'out',
        from_address: actor.principal.email,
        to_addresses: [],
        cc_addresses: [],
        body_text: bodyMd,
        sent_by_user_id: actor.principal.userId,
        is_internal_note: true,
        delivery_status: null,
      })
      .returning('*');
  }

  /** The member must be active in the organization and able to open the ticket's workspace. */
  private async checkAssignee(trx: Knex, ticket: Ticket, userId: string) {
    const member = await findMember(trx, ticket.org_id, userId);
    if (!member)
      throw httpError(422, 'invalid_assignee', 'The assignee is not an active member of this organization', {
        reason: 'not_a_member',
        assignee_user_id: userId,
      });
    if (!(await memberCanOpen(trx, ticket.org_id, member, ticket.workspace_id))) {
      throw httpError(422, 'invalid_assignee', "The assignee cannot open this ticket's workspace", {
        reason: 'no_workspace_access',
        assignee_user_id: userId,
      });
    }
    return member;
  }

  private async originalOf(trx: Knex, actor: SignedInActor, ticket: Ticket, originalId: string): Promise<Ticket> {
    let original = await Ticket.query(trx).forOrg(ticket.org_id).findById(originalId);
    for (let hops = 0; original?.duplicate_of_ticket_id && hops < 5; hops++) {
      original = await Ticket.query(trx).forOrg(ticket.org_id).findById(original.duplicate_of_ticket_id);
    }
    if (!original)
      throw httpError(422, 'invalid_duplicate', 'The original ticket does not exist', {
        reason: 'not_found',
        duplicate_of_ticket_id: originalId,
      });
    if (original.id === ticket.id)
      throw httpError(422, 'invalid_duplicate', 'A ticket cannot be a duplicate of itself', {
        reason: 'self',
        duplicate_of_ticket_id: originalId,
      });
    if (actor.principal.workspaceIds !== null && !actor.principal.workspaceIds.includes(original.workspace_id)) {
      throw httpError(422, 'invalid_duplicate', "You cannot open the original ticket's workspace", {
        reason: 'no_access',
        duplicate_of_ticket_id: originalId,
      });
    }
    return original;
  }
}
