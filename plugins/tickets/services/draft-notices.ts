import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { TicketDraft, type Ticket } from '../models/index.js';
import { announceDraftSent, mailToConversation } from './conversation-mail.js';
import type { TicketsDeps } from './deps.js';
import type { TicketService } from './ticket-service.js';

/** The statuses of a draft still waiting for its click. */
export const OPEN_DRAFTS: readonly TicketDraft['status'][] = ['draft', 'approved'];

/**
 * A notice the automation sends by itself (a release notice): a Draft row of its kind, `sent`,
 * whose body is the mail's text, and the outgoing Message in the conversation, threaded and with
 * the ticket's reply address, in the caller's transaction. An agent's draft still waiting (an
 * interim message) is discarded: the notice says more. When the white-label guard refuses, nothing
 * leaves: the notice waits as a draft for a person's click (or is kept discarded when another
 * draft waits). Undefined without a customer address.
 */
export async function sendNotice(
  deps: TicketsDeps,
  tickets: TicketService,
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
  const rendered = deps.mailer.render(input.template, locale, input.data);
  const now = new Date();
  const open = await TicketDraft.query(trx)
    .forOrg(ticket.org_id)
    .where({ ticket_id: ticket.id })
    .whereIn('status', OPEN_DRAFTS)
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
  const ws = await deps.workspaceService.get(ticket.org_id, ticket.workspace_id, trx);
  const guard = await deps.whiteLabelGuard.check({
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
    await deps.outbox.add(
      trx,
      'drafts.created',
      { ticket_id: ticket.id, draft_id: draft.id, kind: draft.kind, by: 'agent' },
      { orgId: ticket.org_id },
    );
    return { draft, mailId: null };
  }
  const { messageRowId, mailId } = await mailToConversation(deps, trx, ticket, ws, guard.from, {
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
  await tickets.update(trx, ticket, {
    message_count: ticket.message_count + 1,
    last_message_at: now,
    first_response_at: ticket.first_response_at ?? now,
  });
  await announceDraftSent(deps, trx, ticket, draft, { messageRowId, mailId });
  return { draft, mailId };
}
