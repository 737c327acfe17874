import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { mailDomainOf } from '../../../core/kernel/mail-domain.js';
import { TicketMessage, type Ticket, type TicketDraft } from '../models/index.js';
import type { MailAddress } from '../../../core/contracts/mail.js';
import type { TicketsDeps, TicketWorkspace } from './deps.js';
import { replyAddress, threadingFor } from './threading.js';

/** One mail of a ticket's conversation: what is sent, and how it is marked. */
export interface ConversationMail {
  template: string;
  data: Record<string, unknown>;
  subject: string;
  body: string;
  autoSubmitted: string;
  /** A code-host ticket's reply is posted as a comment (drafts.sent): no mail, only the Message. */
  viaCodeHost: boolean;
  sentByUserId: string | null;
  headers?: Record<string, string>;
  locale: 'en' | 'it';
}

/**
 * Enqueues one mail of the ticket's conversation (threaded, Message-ID on the inbound domain,
 * Reply-To the ticket's own address) and records the outgoing Message (delivery_status queued).
 */
export async function mailToConversation(
  deps: TicketsDeps,
  trx: Knex,
  ticket: Ticket,
  ws: TicketWorkspace,
  from: MailAddress | undefined,
  m: ConversationMail,
): Promise<{ messageRowId: string; mailId: string | null; now: Date }> {
  const conversation = await TicketMessage.query(trx)
    .forOrg(ticket.org_id)
    .where({ ticket_id: ticket.id })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  const threading = threadingFor(conversation);
  const messageRowId = newId(TicketMessage.idPrefix);
  const domain = ws.inbound_address?.split('@')[1] ?? mailDomainOf(deps.config.server.publicBaseUrl);
  const emailMessageId = `<${messageRowId}@${domain}>`;
  const replyTo = ws.inbound_address ? replyAddress(ws.inbound_address, ticket.reply_token) : undefined;
  const headers: Record<string, string> = { ...m.headers, 'Auto-Submitted': m.autoSubmitted };
  if (threading.inReplyTo) headers['In-Reply-To'] = threading.inReplyTo;
  if (threading.references) headers.References = threading.references;

  const mailId = m.viaCodeHost
    ? null
    : await deps.mailer.enqueue(trx, {
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

/** Announces a sent draft (`drafts.sent`); `ticket` as it was before the send, so a first response is known. */
export async function announceDraftSent(
  deps: Pick<TicketsDeps, 'outbox'>,
  trx: Knex,
  ticket: Ticket,
  draft: Pick<TicketDraft, 'id' | 'kind'>,
  sent: { messageRowId: string; mailId: string | null },
): Promise<void> {
  await deps.outbox.add(
    trx,
    'drafts.sent',
    {
      ticket_id: ticket.id,
      workspace_id: ticket.workspace_id,
      draft_id: draft.id,
      kind: draft.kind,
      message_id: sent.messageRowId,
      mail_id: sent.mailId,
      first_response: !ticket.first_response_at,
    },
    { orgId: ticket.org_id },
  );
}
