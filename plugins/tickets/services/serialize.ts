import type { Ticket, TicketDraft, TicketFile, TicketMessage, TicketSubscriber } from '../models/index.js';
import type { FileLinks } from './file-links.js';
import { maskEmail } from './mask.js';
import { publicStateOf } from './state-machine.js';
import { iso } from '../../../core/http/times.js';

/** The workspace fields a ticket answer carries. */
export interface WorkspaceNames {
  name: string;
  client_name: string | null;
}

export function ticketItem(t: Ticket, ws: WorkspaceNames | undefined): Record<string, unknown> {
  return {
    id: t.id,
    org_id: t.org_id,
    workspace_id: t.workspace_id,
    workspace_name: ws?.name ?? '',
    client_name: ws?.client_name ?? null,
    channel_id: t.channel_id ?? null,
    origin: t.origin,
    external_id: t.external_id ?? null,
    customer_email: t.customer_email ?? null,
    customer_name: t.customer_name ?? null,
    subject: t.subject,
    state: t.state,
    public_state: publicStateOf(t.state),
    category: t.category,
    priority: t.priority,
    assignee_user_id: t.assignee_user_id ?? null,
    codehost_item_kind: t.codehost_item_kind ?? null,
    codehost_number: t.codehost_number ?? null,
    labels: t.labels ?? [],
    language: t.language,
    is_demo: t.is_demo,
    demo: t.is_demo,
    error_group_id: t.error_group_id ?? null,
    duplicate_of_ticket_id: t.duplicate_of_ticket_id ?? null,
    resolved_version: t.resolved_version ?? null,
    latest_confidence: t.latest_confidence ?? null,
    needs_team_action: t.needs_team_action,
    message_count: t.message_count,
    last_message_at: iso(t.last_message_at),
    first_response_at: iso(t.first_response_at),
    released_at: iso(t.released_at),
    closed_at: iso(t.closed_at),
    last_customer_message_at: iso(t.last_customer_message_at),
    sla_due_at: iso(t.sla_due_at),
    reopened_count: t.reopened_count,
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
  };
}

export function messageOut(m: TicketMessage, files: TicketFile[], links: FileLinks): Record<string, unknown> {
  const attachments = files
    .filter((f) => f.kind === 'attachment')
    .map((f) => {
      const a: Record<string, unknown> = {
        id: f.id,
        filename: f.filename,
        content_type: f.content_type,
        size: f.size,
        url: links.url(f.id),
      };
      if (f.content_id) a.content_id = f.content_id;
      if (f.inline) a.inline = true;
      return a;
    });
  return {
    id: m.id,
    org_id: m.org_id,
    workspace_id: m.workspace_id,
    ticket_id: m.ticket_id,
    direction: m.direction,
    from: m.from_address ?? null,
    to_addresses: m.to_addresses ?? [],
    cc_addresses: m.cc_addresses ?? [],
    subject: m.subject ?? null,
    body_text: m.body_text ?? null,
    body_html: m.body_html ?? null,
    email_message_id: m.email_message_id ?? null,
    in_reply_to: m.in_reply_to ?? null,
    references: m.references_header ?? null,
    attachments,
    widget_context: widgetContextOut(m, links),
    delivery_status: m.delivery_status ?? null,
    sent_by_user_id: m.sent_by_user_id ?? null,
    is_internal_note: m.is_internal_note,
    created_at: iso(m.created_at),
  };
}

function widgetContextOut(m: TicketMessage, links: FileLinks): Record<string, unknown> | null {
  const ctx = m.widget_context;
  if (!ctx) return null;
  const { screenshot_file_id, ...rest } = ctx;
  const out: Record<string, unknown> = { ...rest, console: ctx.console ?? [], network: ctx.network ?? [] };
  if (screenshot_file_id) out.screenshot_url = links.url(screenshot_file_id);
  return out;
}

/**
 * The Ticket answer: the list item's fields, the conversation, and the page's sections
 * (`page`: diagnosis, drafts, fixes, release, audit, jobs; null where no enabled plugin fills one).
 */
export function ticketDetail(
  t: Ticket,
  ws: WorkspaceNames | undefined,
  messages: TicketMessage[],
  files: TicketFile[],
  links: FileLinks,
  publicStatusUrl: string,
  page: Record<string, unknown>,
): Record<string, unknown> {
  const byMessage = new Map<string, TicketFile[]>();
  for (const f of files) if (f.message_id) byMessage.set(f.message_id, [...(byMessage.get(f.message_id) ?? []), f]);
  return {
    ...ticketItem(t, ws),
    public_summary: t.public_summary ?? null,
    public_summary_approved_at: iso(t.public_summary_approved_at),
    public_status_url: publicStatusUrl,
    public_token_revoked_at: iso(t.public_token_revoked_at),
    messages: messages.map((m) => messageOut(m, byMessage.get(m.id) ?? [], links)),
    ...page,
  };
}

export function draftOut(d: TicketDraft): Record<string, unknown> {
  return {
    id: d.id,
    org_id: d.org_id,
    ticket_id: d.ticket_id,
    diagnosis_id: d.diagnosis_id ?? null,
    kind: d.kind,
    body_md: d.body_md,
    public_summary: d.public_summary ?? null,
    status: d.status,
    language: d.language,
    sent_message_id: d.sent_message_id ?? null,
    created_by_user_id: d.created_by_user_id ?? null,
    edited_by_user_id: d.edited_by_user_id ?? null,
    approved_by_user_id: d.approved_by_user_id ?? null,
    approved_at: iso(d.approved_at),
    sent_at: iso(d.sent_at),
    discarded_at: iso(d.discarded_at),
    discard_reason: d.discard_reason ?? null,
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  };
}

export function subscriberOut(s: TicketSubscriber): Record<string, unknown> {
  return {
    id: s.id,
    org_id: s.org_id,
    ticket_id: s.ticket_id,
    thread_ticket_id: s.thread_ticket_id ?? null,
    email_masked: maskEmail(s.email),
    user_hash: s.user_hash ?? null,
    source: s.source,
    notified_at: iso(s.notified_at),
    unsubscribed_at: iso(s.unsubscribed_at),
    created_at: iso(s.created_at),
  };
}
