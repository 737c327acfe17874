import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { newId } from '../../../core/data/ids.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { Ticket, TicketDraft, TicketMessage } from '../models/index.js';
import { isUniqueViolation } from './db-errors.js';
import type { MailAddress, TicketsDeps, TicketWorkspace } from './deps.js';
import { canApply, nextState } from './state-machine.js';
import { replyAddress, replySubject, threadingFor } from './threading.js';
import { mailDomainOf } from '../../../core/kernel/mail-domain.js';
import type { TicketService } from './ticket-service.js';
import type { SignedInActor } from '../../../core/contracts/index.js';

const OPEN: readonly TicketDraft['status'][] = ['draft', 'approved'];

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
      const open = await TicketDraft.query(trx)
        .forOrg(ticket.org_id)
        .where({ ticket_id: ticket.id })
        .whereIn('status', OPEN)
        .select('id')
        .limit(1)
        .first();
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
      await this.tickets.transition(trx, ticket, 'draft_created');
      await this.deps.outbox.add(
        trx,
        'drafts.created',
        { ticket_id: ticket.id, draft_id: draft.id, kind: draft.kind, by: 'team' },
        { orgId: ticket.org_id },
      );
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
    const open = await TicketDraft.query(trx)
      .forOrg(ticket.org_id)
      .where({ ticket_id: ticket.id })
      .whereIn('status', OPEN)
      .select('id')
      .limit(1)
      .first();
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
    await this.tickets.transition(trx, ticket, 'draft_created');
    await this.deps.outbox.add(
      trx,
      'drafts.created',
      { ticket_id: ticket.id, draft_id: draft.id, kind: draft.kind, by: 'agent' },
      { orgId: ticket.org_id },
    );
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
          orgId: actor.orgId,
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
        orgId: actor.orgId,
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
      const { messageRowId, mailId, now } = await this.deliver(trx, ticket, ws, guard.from, {
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
        orgId: actor.orgId,
        actor,
        action: 'ticket.draft_sent',
        target: { type: 'draft', id: draft.id },
        workspaceId: ticket.workspace_id,
        metadata: { ticket_id: ticket.id, kind: draft.kind, message_id: messageRowId, mail_id: mailId },
      });
      await this.deps.outbox.add(
        trx,
        'drafts.sent',
        {
          ticket_id: ticket.id,
          workspace_id: ticket.workspace_id,
          draft_id: draft.id,
          kind: draft.kind,
          message_id: messageRowId,
          mail_id: mailId,
          first_response: !ticket.first_response_at,
        },
        { orgId: ticket.org_id },
      );
    });
  }

  /**
   * A notice the automation sends by itself (a release notice): a Draft row of its kind, `sent`,
   * whose body is the mail's text, and the outgoing Message in the conversation, threaded and with
   * the ticket's reply address, in the caller's transaction. An agent's draft still waiting (an
   * interim message) is discarded: the notice says more. When the white-label guard refuses, nothing
   * leaves: the notice waits as a draft for a person's click (or is kept discarded when another
   * draft waits). Undefined without a customer address.
   */
  async sendNotice(
    trx: Knex,
    ticket: Ticket,
    input: {
      kind: 'release_notice';
      template: string;
      data: Record<string, unknown>;
      headers?: Record<string, string>;
    },
  ): Promise<{ draft: TicketDraft; mailId: string | null } | undefined> {
    if (!ticket.customer_email) return undefined;
    const locale = ticket.language === 'it' ? 'it' : 'en';
    const rendered = this.deps.mailer.render(input.template, locale, input.data);
    const now = new Date();
    const open = await TicketDraft.query(trx)
      .forOrg(ticket.org_id)
      .where({ ticket_id: ticket.id })
      .whereIn('status', OPEN)
      .forUpdate();
    for (const d of open.filter((x) => !x.created_by_user_id && x.kind === 'interim')) {
      await TicketDraft.query(trx)
        .forOrg(ticket.org_id)
        .patch({ status: 'discarded', discarded_at: now, discard_reason: 'superseded by the release notice' })
        .where('id', d.id);
    }
    const waiting = open.some((x) => x.created_by_user_id || x.kind !== 'interim');
    const row = {
      id: newId(TicketDraft.idPrefix),
      org_id: ticket.org_id,
      ticket_id: ticket.id,
      kind: input.kind,
      body_md: rendered.text,
      public_summary: null,
      language: locale,
    };
    const ws = await this.deps.workspaceService.get(ticket.org_id, ticket.workspace_id, trx);
    const guard = await this.deps.whiteLabelGuard.check({
      trx,
      orgId: ticket.org_id,
      workspace: ws,
      ticketId: ticket.id,
    });
    if (!guard.allowed) {
      const draft = await TicketDraft.query(trx)
        .insert({
          ...row,
          status: waiting ? 'discarded' : 'draft',
          ...(waiting ? { discarded_at: now, discard_reason: `not sent: ${guard.code}` } : {}),
        })
        .returning('*');
      await this.deps.outbox.add(
        trx,
        'drafts.created',
        { ticket_id: ticket.id, draft_id: draft.id, kind: draft.kind, by: 'agent' },
        { orgId: ticket.org_id },
      );
      return { draft, mailId: null };
    }
    const { messageRowId, mailId } = await this.deliver(trx, ticket, ws, guard.from, {
      template: input.template,
      data: input.data,
      subject: rendered.subject,
      body: rendered.text,
      autoSubmitted: 'auto-generated',
      viaCodeHost: false,
      sentByUserId: null,
      headers: input.headers,
      locale,
    });
    const draft = await TicketDraft.query(trx)
      .insert({ ...row, status: 'sent', sent_at: now, approved_at: now, sent_message_id: messageRowId })
      .returning('*');
    await this.tickets.update(trx, ticket, {
      message_count: ticket.message_count + 1,
      last_message_at: now,
      first_response_at: ticket.first_response_at ?? now,
    });
    await this.deps.outbox.add(
      trx,
      'drafts.sent',
      {
        ticket_id: ticket.id,
        workspace_id: ticket.workspace_id,
        draft_id: draft.id,
        kind: draft.kind,
        message_id: messageRowId,
        mail_id: mailId,
        first_response: !ticket.first_response_at,
      },
      { orgId: ticket.org_id },
    );
    return { draft, mailId };
  }

  /**
   * Enqueues one mail of the ticket's conversation (threaded, Message-ID on the inbound domain,
   * Reply-To the ticket's own address) and records the outgoing Message (delivery_status queued).
   */
  private async deliver(
    trx: Knex,
    ticket: Ticket,
    ws: TicketWorkspace,
    from: MailAddress | undefined,
    m: {
      template: string;
      data: Record<string, unknown>;
      subject: string;
      body: string;
      autoSubmitted: string;
      viaCodeHost: boolean;
      sentByUserId: string | null;
      headers?: Record<string, string>;
      locale: 'en' | 'it';
    },
  ): Promise<{ messageRowId: string; mailId: string | null; now: Date }> {
    const conversation = await TicketMessage.query(trx)
      .forOrg(ticket.org_id)
      .where({ ticket_id: ticket.id })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    const threading = threadingFor(conversation);
    const messageRowId = newId(TicketMessage.idPrefix);
    const domain = ws.inbound_address?.split('@')[1] ?? mailDomainOf(this.deps.config.server.publicBaseUrl);
    const emailMessageId = `<${messageRowId}@${domain}>`;
    const replyTo = ws.inbound_address ? replyAddress(ws.inbound_address, ticket.reply_token) : undefined;
    const headers: Record<string, string> = { ...m.headers, 'Auto-Submitted': m.autoSubmitted };
    if (threading.inReplyTo) headers['In-Reply-To'] = threading.inReplyTo;
    if (threading.references) headers.References = threading.references;

    const mailId = m.viaCodeHost
      ? null
      : await this.deps.mailer.enqueue(trx, {
          orgId: ticket.org_id,
          template: m.template,
          locale: m.locale,
          to: ticket.customer_email!,
          data: m.data,
          ...(from ? { from } : {}),
          ...(replyTo ? { replyTo } : {}),
          headers,
          messageId: emailMessageId,
          ticketRef: ticket.id,
        });
    const sent = mailId
      ? ((await trx('mail_messages').select('from_address').where({ id: mailId }).first()) as
          { from_address: string } | undefined)
      : undefined;

    const now = new Date();
    await TicketMessage.query(trx).insert({
      id: messageRowId,
      org_id: ticket.org_id,
      workspace_id: ticket.workspace_id,
      ticket_id: ticket.id,
      direction: 'out',
      from_address: from?.address ?? sent?.from_address ?? null,
      to_addresses: ticket.customer_email ? [ticket.customer_email] : [],
      cc_addresses: [],
      subject: m.subject,
      body_text: m.body,
      body_html: null,
      email_message_id: mailId ? emailMessageId : null,
      in_reply_to: threading.inReplyTo,
      references_header: threading.references,
      delivery_status: 'queued',
      mail_message_id: mailId,
      sent_by_user_id: m.sentByUserId,
      is_internal_note: false,
      created_at: now,
    });
    return { messageRowId, mailId, now };
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
    if (!OPEN.includes(draft.status)) {
      throw conflict(
        'invalid_transition',
        `A draft that is ${draft.status} cannot be ${action === 'send' ? 'sent' : action === 'edit' ? 'edited' : 'discarded'}`,
        { resource: 'draft', status: draft.status, action },
      );
    }
    return { ticket, draft };
  }
}
