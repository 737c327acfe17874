import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { newId } from '../../../core/data/ids.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { Ticket, TicketDraft } from '../models/index.js';
import { announceDraftSent, mailToConversation } from './conversation-mail.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';
import type { TicketsDeps } from './deps.js';
import { OPEN_DRAFTS, sendNotice } from './draft-notices.js';
import { canApply, nextState } from './state-machine.js';
import { replySubject } from './threading.js';
import type { TicketService } from './ticket-service.js';
import type { SignedInActor } from '../../../core/contracts/index.js';

/** What PATCH …/drafts/{draftId} may change (language: an extension of the spec's body, issue 26). */
export interface DraftEdit {
  body_md?: string;
  public_summary?: string | null;
  kind?: 'reply' | 'needs_info';
  language?: 'en' | 'it';
}

const blankToNull = (s: string | null | undefined): string | null | undefined => (s === '' ? null : s);

/**
 * Drafts of replies. One draft waits for its click at a time; sending is always a person's
 * click: it emails the customer through the mail plugin, threaded into the conversation, with a
 * per-ticket Reply-To, after the white-label guard agreed.
 */
export class DraftService {
  constructor(
    private readonly deps: TicketsDeps,
    private readonly tickets: TicketService,
  ) {}

  async create(
    actor: SignedInActor,
    ticketId: string,
    input: { kind: 'reply' | 'needs_info'; body_md: string; public_summary?: string | null },
  ): Promise<TicketDraft> {
    return this.deps.db.transaction(async (trx) => {
      const ticket = await this.tickets.load(actor.principal, ticketId, trx, { forUpdate: true });
      nextState(ticket.state, 'draft_created');
      const open = await this.openDraft(trx, ticket);
      if (open)
        throw conflict('open_draft_exists', 'This ticket already has a draft waiting; edit, send or discard it first', {
          draft_id: open.id,
        });
      let draft: TicketDraft;
      try {
        draft = await trx.transaction(
          async (sp) =>
            await TicketDraft.query(sp)
              .insert({
                id: newId(TicketDraft.idPrefix),
                org_id: ticket.org_id,
                ticket_id: ticket.id,
                kind: input.kind,
                body_md: input.body_md,
                public_summary: blankToNull(input.public_summary) ?? null,
                status: 'draft',
                language: ticket.language,
                created_by_user_id: actor.principal.userId,
                edited_by_user_id: actor.principal.userId,
              })
              .returning('*'),
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('open_draft_exists', 'This ticket already has a draft waiting', {});
        throw err;
      }
      await this.drafted(trx, ticket, draft, 'team');
      return draft;
    });
  }

  /**
   * A draft written by the automation (fixes plugin), in the caller's transaction. Undefined when
   * a draft already waits for its click or the ticket's state takes no draft (closed): the
   * team's draft wins.
   */
  async createForAgent(
    trx: Knex,
    ticket: Ticket,
    input: {
      kind: TicketDraft['kind'];
      body_md: string;
      public_summary?: string | null;
      diagnosis_id?: string | null;
      language?: string | null;
    },
  ): Promise<TicketDraft | undefined> {
    if (!canApply(ticket.state, 'draft_created')) return undefined;
    const open = await this.openDraft(trx, ticket);
    if (open) return undefined;
    const draft = await TicketDraft.query(trx)
      .insert({
        id: newId(TicketDraft.idPrefix),
        org_id: ticket.org_id,
        ticket_id: ticket.id,
        diagnosis_id: input.diagnosis_id ?? null,
        kind: input.kind,
        body_md: input.body_md,
        public_summary: blankToNull(input.public_summary) ?? null,
        status: 'draft',
        language: input.language === 'it' || input.language === 'en' ? input.language : ticket.language,
      })
      .returning('*');
    await this.drafted(trx, ticket, draft, 'agent');
    return draft;
  }

  async edit(actor: SignedInActor, ticketId: string, draftId: string, input: DraftEdit): Promise<TicketDraft> {
    return this.deps.db.transaction(async (trx) => {
      const { ticket, draft } = await this.lockOpen(trx, actor, ticketId, draftId, 'edit');
      const patch: Partial<TicketDraft> = { edited_by_user_id: actor.principal.userId };
      if (input.body_md !== undefined) patch.body_md = input.body_md;
      if (input.public_summary !== undefined) patch.public_summary = blankToNull(input.public_summary) ?? null;
      if (input.kind !== undefined) patch.kind = input.kind;
      if (input.language !== undefined) patch.language = input.language;
      const edited = await TicketDraft.query(trx).forOrg(draft.org_id).patchAndFetchById(draft.id, patch);
      // What goes out to the customer changed: who changed which field. The body's text stays in the
      // draft (the audit says that it changed, not the words); kind and language are shown as they were and are.
      const fields = ['kind', 'language', 'public_summary'];
      const changes = diffFields(
        draft as unknown as Record<string, unknown>,
        edited as unknown as Record<string, unknown>,
        fields,
      );
      if (edited.body_md !== draft.body_md) changes.body_md = { before: '[edited]', after: '[edited]' };
      if (Object.keys(changes).length) {
        await this.deps.audit.record(trx, {
          actor,
          action: 'ticket.draft_edited',
          target: { type: 'draft', id: draft.id },
          workspaceId: ticket.workspace_id,
          changes,
          metadata: { ticket_id: ticket.id },
        });
      }
      return edited;
    });
  }

  async discard(actor: SignedInActor, ticketId: string, draftId: string, reason: string | null): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const { ticket, draft } = await this.lockOpen(trx, actor, ticketId, draftId, 'discard');
      await TicketDraft.query(trx)
        .forOrg(draft.org_id)
        .patch({
          status: 'discarded',
          discarded_at: new Date(),
          discard_reason: reason || null,
          edited_by_user_id: actor.principal.userId,
        })
        .where('id', draft.id);
      // The team has the next move: it writes its own draft.
      if (ticket.state !== 'closed')
        await this.tickets.transition(trx, ticket, 'draft_discarded', { needs_team_action: true });
      await this.deps.audit.record(trx, {
        actor,
        action: 'ticket.draft_discarded',
        target: { type: 'draft', id: draft.id },
        workspaceId: ticket.workspace_id,
        changes: diffFields({ status: draft.status }, { status: 'discarded' }),
        metadata: reason ? { reason } : undefined,
      });
      await this.deps.outbox.add(
        trx,
        'drafts.discarded',
        { ticket_id: ticket.id, draft_id: draft.id, reason: reason || null },
        { orgId: ticket.org_id },
      );
    });
  }

  /**
   * The click: applies last edits, asks the white-label guard, enqueues the email (threaded,
   * Reply-To the ticket's own address), records the outgoing Message (delivery_status queued),
   * marks the draft sent and moves the ticket (reply → answered, needs_info → needs_info; during
   * the fix loop the state stays). The first outgoing reply sets first_response_at.
   */
  async send(
    actor: SignedInActor,
    ticketId: string,
    draftId: string,
    input: { body_md?: string; public_summary?: string | null },
  ): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const { ticket, draft } = await this.lockOpen(trx, actor, ticketId, draftId, 'send');
      const event = draft.kind === 'needs_info' ? 'needs_info_sent' : 'reply_sent';
      nextState(ticket.state, event);
      const body = input.body_md ?? draft.body_md;
      const summary =
        input.public_summary !== undefined ? (blankToNull(input.public_summary) ?? null) : draft.public_summary;
      // A code-host ticket is answered where it was asked: the codehost plugin posts the sent
      // reply as a comment (drafts.sent). Every other ticket needs an address to email.
      const viaCodeHost = ticket.origin === 'codehost' && !ticket.customer_email;
      if (!ticket.customer_email && !viaCodeHost)
        throw httpError(422, 'no_customer_address', 'This ticket has no customer email address to reply to');

      const ws = await this.deps.workspaceService.get(ticket.org_id, ticket.workspace_id, trx);
      const guard = await this.deps.whiteLabelGuard.check({
        trx,
        orgId: ticket.org_id,
        workspace: ws,
        ticketId: ticket.id,
      });
      if (!guard.allowed) throw httpError(409, guard.code, guard.message, guard.details);

      const subject = replySubject(ticket.subject);
      const { messageRowId, mailId, now } = await mailToConversation(this.deps, trx, ticket, ws, guard.from, {
        template: 'tickets.reply',
        data: { subject, body },
        subject,
        body,
        autoSubmitted: 'no',
        viaCodeHost,
        sentByUserId: actor.principal.userId,
        // The email's own texts (brand lines, the HTML's lang) in the reply's language, which the team may have changed.
        locale: draft.language === 'it' ? 'it' : 'en',
      });
      await TicketDraft.query(trx)
        .forOrg(draft.org_id)
        .patch({
          status: 'sent',
          body_md: body,
          public_summary: summary,
          sent_at: now,
          sent_message_id: messageRowId,
          approved_by_user_id: actor.principal.userId,
          approved_at: draft.approved_at ?? now,
          edited_by_user_id: body !== draft.body_md ? actor.principal.userId : draft.edited_by_user_id,
        })
        .where('id', draft.id);
      await this.tickets.transition(
        trx,
        ticket,
        event,
        {
          message_count: ticket.message_count + 1,
          last_message_at: now,
          first_response_at: ticket.first_response_at ?? now,
          ...(summary ? { public_summary: summary, public_summary_approved_at: now } : {}),
        },
        ws,
      );
      await this.deps.audit.record(trx, {
        actor,
        action: 'ticket.draft_sent',
        target: { type: 'draft', id: draft.id },
        workspaceId: ticket.workspace_id,
        metadata: { ticket_id: ticket.id, kind: draft.kind, message_id: messageRowId, mail_id: mailId },
      });
      await announceDraftSent(this.deps, trx, ticket, draft, { messageRowId, mailId });
    });
  }

  /** A notice the automation sends by itself (a release notice), in the caller's transaction: see draft-notices.ts. */
  sendNotice(
    trx: Knex,
    ticket: Ticket,
    input: Parameters<typeof sendNotice>[4],
  ): Promise<{ draft: TicketDraft; mailId: string | null } | undefined> {
    return sendNotice(this.deps, this.tickets, trx, ticket, input);
  }

  /** The draft still waiting for the team on this ticket (one at most), if any. */
  private async openDraft(trx: Knex, ticket: Ticket): Promise<Pick<TicketDraft, 'id'> | undefined> {
    return TicketDraft.query(trx)
      .forOrg(ticket.org_id)
      .where({ ticket_id: ticket.id })
      .whereIn('status', OPEN_DRAFTS)
      .select('id')
      .limit(1)
      .first();
  }

  /** A new draft moves its ticket to draft_created and announces itself (`drafts.created`), in the same transaction. */
  private async drafted(trx: Knex, ticket: Ticket, draft: TicketDraft, by: 'team' | 'agent'): Promise<void> {
    await this.tickets.transition(trx, ticket, 'draft_created');
    await this.deps.outbox.add(
      trx,
      'drafts.created',
      { ticket_id: ticket.id, draft_id: draft.id, kind: draft.kind, by },
      { orgId: ticket.org_id },
    );
  }

  private async lockOpen(
    trx: Knex,
    actor: SignedInActor,
    ticketId: string,
    draftId: string,
    action: string,
  ): Promise<{ ticket: Ticket; draft: TicketDraft }> {
    const ticket = await this.tickets.load(actor.principal, ticketId, trx, { forUpdate: true });
    const draft = await TicketDraft.query(trx).forOrg(ticket.org_id).findById(draftId).forUpdate();
    if (!draft || draft.ticket_id !== ticket.id) throw notFound('draft');
    if (!OPEN_DRAFTS.includes(draft.status)) {
      throw conflict(
        'invalid_transition',
        `A draft that is ${draft.status} cannot be ${action === 'send' ? 'sent' : action === 'edit' ? 'edited' : 'discarded'}`,
        { resource: 'draft', status: draft.status, action },
      );
    }
    return { ticket, draft };
  }
}
