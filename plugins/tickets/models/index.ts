import { tenantModel } from '../../../core/data/model.js';
import type { TicketState } from '../services/state-machine.js';

export class Ticket extends tenantModel({ table: 'tickets', idPrefix: 'tkt', json: ['labels'] }) {
  declare workspace_id: string;
  declare channel_id: string | null;
  declare origin: 'email' | 'widget' | 'codehost' | 'proactive';
  declare external_id: string | null;
  declare customer_email: string | null;
  declare customer_name: string | null;
  declare subject: string;
  declare state: TicketState;
  declare category: string;
  declare priority: string;
  declare assignee_user_id: string | null;
  declare codehost_item_kind: 'issue' | 'pull_request' | null;
  declare codehost_number: number | null;
  declare labels: string[];
  declare language: string;
  declare is_demo: boolean;
  declare error_group_id: string | null;
  declare duplicate_of_ticket_id: string | null;
  declare resolved_version: string | null;
  declare latest_confidence: number | null;
  declare needs_team_action: boolean;
  declare message_count: number;
  declare last_message_at: Date | null;
  declare first_response_at: Date | null;
  declare released_at: Date | null;
  declare closed_at: Date | null;
  declare close_reason: string | null;
  declare last_customer_message_at: Date | null;
  declare sla_started_at: Date;
  declare sla_due_at: Date | null;
  declare sla_sort_at: Date;
  declare reopened_count: number;
  declare escalation_reason: string | null;
  declare escalated_at: Date | null;
  declare public_summary: string | null;
  declare public_summary_approved_at: Date | null;
  declare public_token_hash: string;
  declare public_token_sealed: string;
  declare public_token_revoked_at: Date | null;
  declare reply_token: string;
  declare search_text: string;
  declare updated_at: Date;

  /** Generated columns are never written. */
  override $formatDatabaseJson(json: Record<string, unknown>): Record<string, unknown> {
    const out = super.$formatDatabaseJson(json);
    delete out.sla_sort_at;
    delete out.search_vector;
    return out;
  }
}

/**
 * The columns a ticket is read with: all but the search text and its tsvector, which only the
 * list's full-text filter uses (a tsvector is costly to send as text).
 */
export const TICKET_COLUMNS = [
  'id',
  'org_id',
  'workspace_id',
  'channel_id',
  'origin',
  'external_id',
  'customer_email',
  'customer_name',
  'subject',
  'state',
  'category',
  'priority',
  'assignee_user_id',
  'codehost_item_kind',
  'codehost_number',
  'labels',
  'language',
  'is_demo',
  'error_group_id',
  'duplicate_of_ticket_id',
  'resolved_version',
  'latest_confidence',
  'needs_team_action',
  'message_count',
  'last_message_at',
  'first_response_at',
  'released_at',
  'closed_at',
  'close_reason',
  'last_customer_message_at',
  'sla_started_at',
  'sla_due_at',
  'reopened_count',
  'escalation_reason',
  'escalated_at',
  'public_summary',
  'public_summary_approved_at',
  'public_token_hash',
  'public_token_sealed',
  'public_token_revoked_at',
  'reply_token',
  'created_at',
  'updated_at',
  'sla_sort_at',
].map((c) => `tickets.${c}`);

export interface WidgetContext {
  console: { level: string; message: string; stack?: string; timestamp: string }[];
  network: { method: string; url: string; status: number; duration_ms: number; timestamp: string; error?: string }[];
  browser?: Record<string, unknown>;
  url?: string;
  release?: string;
  /** Stored as the screenshot's file id; the answer turns it into a signed screenshot_url. */
  screenshot_file_id?: string;
  symbolicated?: boolean;
}

export class TicketMessage extends tenantModel({
  table: 'ticket_messages',
  idPrefix: 'msg',
  json: ['to_addresses', 'cc_addresses', 'widget_context'],
  updatedAt: false,
}) {
  declare workspace_id: string;
  declare ticket_id: string;
  declare direction: 'in' | 'out';
  declare from_address: string | null;
  declare from_name: string | null;
  declare to_addresses: string[];
  declare cc_addresses: string[];
  declare subject: string | null;
  declare body_text: string | null;
  declare body_html: string | null;
  declare email_message_id: string | null;
  declare in_reply_to: string | null;
  declare references_header: string | null;
  declare widget_context: WidgetContext | null;
  declare delivery_status: 'queued' | 'sent' | 'delivered' | 'bounced' | 'complained' | 'failed' | null;
  declare mail_message_id: string | null;
  declare sent_by_user_id: string | null;
  declare is_internal_note: boolean;
}

export class TicketDraft extends tenantModel({ table: 'ticket_drafts', idPrefix: 'drf' }) {
  declare ticket_id: string;
  declare diagnosis_id: string | null;
  declare kind: 'reply' | 'needs_info' | 'interim' | 'release_notice' | 'proactive_notice';
  declare body_md: string;
  declare public_summary: string | null;
  declare status: 'draft' | 'approved' | 'sent' | 'discarded';
  declare language: string;
  declare sent_message_id: string | null;
  declare created_by_user_id: string | null;
  declare edited_by_user_id: string | null;
  declare approved_by_user_id: string | null;
  declare approved_at: Date | null;
  declare sent_at: Date | null;
  declare discarded_at: Date | null;
  declare discard_reason: string | null;
  declare updated_at: Date;
}

export class TicketSubscriber extends tenantModel({ table: 'ticket_subscribers', idPrefix: 'sub', updatedAt: false }) {
  declare ticket_id: string;
  declare thread_ticket_id: string | null;
  declare email: string;
  declare user_hash: string | null;
  declare source: 'duplicate' | 'proactive' | 'status_page' | 'issue';
  declare added_by_user_id: string | null;
  declare notified_at: Date | null;
  declare unsubscribed_at: Date | null;
}

export class TicketFile extends tenantModel({ table: 'ticket_files', idPrefix: 'file', updatedAt: false }) {
  declare workspace_id: string;
  declare ticket_id: string;
  declare message_id: string | null;
  declare kind: 'attachment' | 'screenshot';
  declare filename: string;
  declare content_type: string;
  declare size: number;
  declare sha256: string;
  declare content_id: string | null;
  declare inline: boolean;
  declare content?: Buffer;
}

/** Columns of ticket_files without the content, for metadata reads. */
export const FILE_META_COLUMNS = [
  'id',
  'org_id',
  'workspace_id',
  'ticket_id',
  'message_id',
  'kind',
  'filename',
  'content_type',
  'size',
  'sha256',
  'content_id',
  'inline',
  'created_at',
];
