/**
 * The rows intake writes (a ticket, a customer's message and its files), built from the caller's
 * input; the ticket service queues them and keeps the counters.
 */
import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../../../core/data/ids.js';
import { TicketFile, TicketMessage, type Ticket, type WidgetContext } from '../models/index.js';
import { slaDueAt } from './sla.js';
import type { AttachmentInput, CreateTicketInput, InboundMessageInput } from './ticket-inputs.js';

/** The workspace fields a new ticket needs (its language and SLA clock). */
export type IntakeWorkspace = NonNullable<CreateTicketInput['workspace']>;

/** The status link's columns: a hash to find the ticket by, the token sealed to show the link again. */
export interface StatusTokenColumns {
  public_token_hash: string;
  public_token_sealed: string;
  public_token_revoked_at: null;
}

const LANGUAGES = new Set(['en', 'it']);
const TOKEN_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** 16 characters (80 bits) of lower-case base32: the per-ticket reply address token. */
export function newReplyToken(): string {
  const bytes = randomBytes(16);
  let out = '';
  for (let i = 0; i < 16; i++) out += TOKEN_ALPHABET[bytes[i] & 31];
  return out;
}

/** The secret box context of a ticket's status token. */
export const statusContext = (ticketId: string) => `ticket:${ticketId}:status_token`;

/** A new ticket's row (state received): every column but the generated ones, so the row is the ticket as stored. */
export function ticketRow(
  id: string,
  input: CreateTicketInput,
  ws: IntakeWorkspace,
  now: Date,
  status: StatusTokenColumns,
) {
  const language =
    input.language && LANGUAGES.has(input.language) ? input.language : LANGUAGES.has(ws.locale) ? ws.locale : 'en';
  return {
    id,
    org_id: input.orgId,
    workspace_id: ws.id,
    channel_id: input.channelId ?? null,
    origin: input.origin,
    external_id: input.externalId ?? null,
    customer_email: input.customerEmail?.toLowerCase() ?? null,
    customer_name: input.customerName ?? null,
    subject: input.subject.slice(0, 500),
    state: 'received' as const,
    category: input.category ?? 'unknown',
    priority: input.priority ?? 'normal',
    assignee_user_id: null,
    codehost_item_kind: input.codehostItemKind ?? null,
    codehost_number: input.codehostNumber ?? null,
    labels: input.labels ?? [],
    language,
    is_demo: input.isDemo ?? false,
    error_group_id: input.errorGroupId ?? null,
    duplicate_of_ticket_id: null,
    resolved_version: null,
    latest_confidence: input.latestConfidence ?? null,
    needs_team_action: false,
    // The opening message's counters are written with the ticket: no second UPDATE.
    message_count: input.message ? 1 : 0,
    last_message_at: input.message ? now : null,
    first_response_at: null,
    released_at: null,
    closed_at: null,
    close_reason: null,
    last_customer_message_at: input.message ? now : null,
    sla_started_at: now,
    sla_due_at: slaDueAt({ state: 'received', sla_started_at: now, first_response_at: null }, ws),
    reopened_count: 0,
    escalation_reason: null,
    escalated_at: null,
    public_summary: null,
    public_summary_approved_at: null,
    public_token_hash: status.public_token_hash,
    public_token_sealed: status.public_token_sealed,
    public_token_revoked_at: null,
    reply_token: newReplyToken(),
    search_text: searchText(input),
    created_at: now,
    updated_at: now,
  };
}

/** A customer's message row and its files (a widget screenshot is linked from the widget context). */
export function inboundMessageRows(ticket: Ticket, input: InboundMessageInput, at: Date) {
  const messageId = newId(TicketMessage.idPrefix);
  let widgetContext: WidgetContext | null = input.widgetContext ? { ...input.widgetContext } : null;
  const files: Record<string, unknown>[] = [];
  if (input.screenshot) {
    const shot = fileRow(ticket, messageId, input.screenshot, 'screenshot', at);
    files.push(shot);
    widgetContext = { console: [], network: [], ...widgetContext, screenshot_file_id: shot.id as string };
  }
  for (const a of input.attachments ?? []) files.push(fileRow(ticket, messageId, a, 'attachment', at));
  const row = {
    id: messageId,
    org_id: ticket.org_id,
    workspace_id: ticket.workspace_id,
    ticket_id: ticket.id,
    direction: 'in',
    from_address: input.from?.toLowerCase() ?? ticket.customer_email,
    from_name: input.fromName ?? null,
    to_addresses: input.to ?? [],
    cc_addresses: input.cc ?? [],
    subject: input.subject ?? null,
    body_text: input.bodyText ?? null,
    body_html: input.bodyHtml ?? null,
    email_message_id: input.emailMessageId ?? null,
    in_reply_to: input.inReplyTo ?? null,
    references_header: input.references ?? null,
    widget_context: widgetContext,
    delivery_status: null,
    is_internal_note: false,
    created_at: at,
  };
  return { row, files };
}

function searchText(input: CreateTicketInput): string {
  return [
    input.subject,
    input.customerName,
    input.customerEmail,
    input.externalId,
    input.message?.bodyText?.slice(0, 2000),
  ]
    .filter((s): s is string => !!s)
    .join(' ')
    .slice(0, 4000);
}

/** A ticket_files row of an attachment or screenshot. */
function fileRow(
  ticket: Ticket,
  messageId: string | null,
  file: AttachmentInput,
  kind: TicketFile['kind'],
  at: Date,
): Record<string, unknown> {
  return {
    id: newId(TicketFile.idPrefix),
    org_id: ticket.org_id,
    workspace_id: ticket.workspace_id,
    ticket_id: ticket.id,
    message_id: messageId,
    kind,
    filename: sanitizeFilename(file.filename),
    content_type: file.contentType.toLowerCase().split(';')[0].trim() || 'application/octet-stream',
    size: file.content.length,
    sha256: createHash('sha256').update(file.content).digest('hex'),
    content_id: file.contentId ?? null,
    inline: file.inline ?? false,
    content: file.content,
    created_at: at,
  };
}

function sanitizeFilename(name: string): string {
  const base = name
    .replace(/[\\/]/g, '_')
    // C0 controls and DEL (a Cc character outside C1, U+0080–U+009F) and double quotes.
    .replace(/(?![\u0080-\u009f])[\p{Cc}"]/gu, '')
    .trim();
  return (base || 'file').slice(0, 200);
}
