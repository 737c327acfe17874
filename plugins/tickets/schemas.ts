import Joi from 'joi';
import { PUBLIC_STATES, TICKET_STATES } from './services/state-machine.js';

export const ORIGINS = ['email', 'widget', 'codehost', 'proactive'] as const;
export const CATEGORIES = ['usage', 'config', 'docs', 'bug', 'feature_request', 'unknown'] as const;
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const DRAFT_KINDS = ['reply', 'needs_info', 'interim', 'release_notice', 'proactive_notice'] as const;
export const DRAFT_STATUSES = ['draft', 'approved', 'sent', 'discarded'] as const;
export const DELIVERY_STATUSES = ['queued', 'sent', 'delivered', 'bounced', 'complained', 'failed'] as const;
export const CLOSE_REASONS = ['resolved', 'answered', 'duplicate', 'spam', 'wont_fix', 'other'] as const;
export const SUBSCRIBER_SOURCES = ['duplicate', 'proactive', 'status_page', 'issue'] as const;
export const SORTS = ['newest', 'oldest', 'updated', 'sla'] as const;

const dt = Joi.string().isoDate().allow(null);
const str = Joi.string().allow(null);

const ticketItemFields = {
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  workspace_name: Joi.string().required(),
  client_name: str.required(),
  channel_id: str.required(),
  origin: Joi.string().valid(...ORIGINS).required(),
  external_id: str.required(),
  customer_email: str.required(),
  customer_name: str.required(),
  subject: Joi.string().allow('').required(),
  state: Joi.string().valid(...TICKET_STATES).required(),
  public_state: Joi.string().valid(...PUBLIC_STATES).required(),
  category: Joi.string().valid(...CATEGORIES).required(),
  priority: Joi.string().valid(...PRIORITIES).required(),
  assignee_user_id: str.required(),
  codehost_item_kind: Joi.string().valid('issue', 'pull_request').allow(null).required(),
  codehost_number: Joi.number().integer().allow(null).required(),
  labels: Joi.array().items(Joi.string()).required(),
  language: Joi.string().required(),
  is_demo: Joi.boolean().required(),
  demo: Joi.boolean().required(),
  error_group_id: str.required(),
  duplicate_of_ticket_id: str.required(),
  resolved_version: str.required(),
  latest_confidence: Joi.number().allow(null).required(),
  needs_team_action: Joi.boolean().required(),
  message_count: Joi.number().integer().min(0).required(),
  last_message_at: dt.required(),
  first_response_at: dt.required(),
  released_at: dt.required(),
  closed_at: dt.required(),
  last_customer_message_at: dt.required(),
  sla_due_at: dt.required(),
  reopened_count: Joi.number().integer().min(0).required(),
  created_at: Joi.string().isoDate().required(),
  updated_at: Joi.string().isoDate().required(),
};

export const TicketItemSchema = Joi.object(ticketItemFields).id('TicketItem');

export const TicketPageSchema = Joi.object({
  items: Joi.array().items(TicketItemSchema).required(),
  next_cursor: Joi.string().allow(null).required(),
}).id('TicketPage');

const AttachmentSchema = Joi.object({
  id: Joi.string().required(),
  filename: Joi.string().required(),
  content_type: Joi.string().required(),
  size: Joi.number().integer().min(0).required(),
  url: Joi.string().uri().required(),
  content_id: Joi.string(),
  inline: Joi.boolean(),
});

const WidgetContextSchema = Joi.object({
  console: Joi.array().items(Joi.object({
    level: Joi.string().valid('error', 'warn', 'unhandled_exception', 'unhandled_rejection').required(),
    message: Joi.string().allow('').required(),
    stack: Joi.string().allow(''),
    timestamp: Joi.string().required(),
  })).required(),
  network: Joi.array().items(Joi.object({
    method: Joi.string().required(),
    url: Joi.string().allow('').required(),
    status: Joi.number().integer().required(),
    duration_ms: Joi.number().required(),
    timestamp: Joi.string().required(),
    error: Joi.string().allow(''),
  })).required(),
  browser: Joi.object({
    user_agent: Joi.string().allow('').required(),
    name: Joi.string().allow(''),
    version: Joi.string().allow(''),
    os: Joi.string().allow(''),
    language: Joi.string().allow(''),
    viewport: Joi.object({ width: Joi.number().integer().required(), height: Joi.number().integer().required() }),
    screen: Joi.object({ width: Joi.number().integer().required(), height: Joi.number().integer().required() }),
  }),
  url: Joi.string().allow(''),
  release: Joi.string().allow(''),
  screenshot_url: Joi.string().uri(),
  symbolicated: Joi.boolean(),
});

export const MessageSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  direction: Joi.string().valid('in', 'out').required(),
  from: str.required(),
  to_addresses: Joi.array().items(Joi.string()).required(),
  cc_addresses: Joi.array().items(Joi.string()).required(),
  subject: str.required(),
  body_text: str.allow('').required(),
  body_html: str.allow('').required(),
  email_message_id: str.required(),
  in_reply_to: str.required(),
  references: str.required(),
  attachments: Joi.array().items(AttachmentSchema).required(),
  widget_context: WidgetContextSchema.allow(null).required(),
  delivery_status: Joi.string().valid(...DELIVERY_STATUSES).allow(null).required(),
  sent_by_user_id: str.required(),
  is_internal_note: Joi.boolean().required(),
  created_at: Joi.string().isoDate().required(),
}).id('Message');

export const TicketSchema = Joi.object({
  ...ticketItemFields,
  public_summary: str.required(),
  public_summary_approved_at: dt.required(),
  public_status_url: Joi.string().uri().required(),
  public_token_revoked_at: dt.required(),
  messages: Joi.array().items(MessageSchema).required(),
}).id('Ticket');

export const DraftSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  diagnosis_id: str.required(),
  kind: Joi.string().valid(...DRAFT_KINDS).required(),
  body_md: Joi.string().allow('').required(),
  status: Joi.string().valid(...DRAFT_STATUSES).required(),
  language: Joi.string().required(),
  sent_message_id: str.required(),
  edited_by_user_id: str.required(),
  approved_by_user_id: str.required(),
  approved_at: dt.required(),
  sent_at: dt.required(),
  created_at: Joi.string().isoDate().required(),
  updated_at: Joi.string().isoDate().required(),
}).id('Draft');

export const SubscriberSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  thread_ticket_id: str.required(),
  email_masked: Joi.string().required(),
  user_hash: str.required(),
  source: Joi.string().valid(...SUBSCRIBER_SOURCES).required(),
  notified_at: dt.required(),
  unsubscribed_at: dt.required(),
  created_at: Joi.string().isoDate().required(),
}).id('Subscriber');

export const SubscriberListSchema = Joi.object({ items: Joi.array().items(SubscriberSchema).required() }).id('SubscriberList');
export const OkSchema = Joi.object({ ok: Joi.boolean().valid(true).required() }).id('Ok');
export const StatusLinkSchema = Joi.object({
  public_status_url: Joi.string().uri().required(),
  public_token_revoked_at: dt.required(),
}).id('StatusLink');

// ---- input

export const ticketIdParams = Joi.object({ id: Joi.string().max(64).required().description('Ticket id') });
export const draftParams = Joi.object({ id: Joi.string().max(64).required().description('Ticket id'), draftId: Joi.string().max(64).required().description('Draft id') });
export const subscriberParams = Joi.object({ id: Joi.string().max(64).required().description('Ticket id'), subscriberId: Joi.string().max(64).required().description('Subscriber id') });

const arrayOf = (values: readonly string[], what: string) =>
  Joi.array().items(Joi.string().valid(...values)).single().unique().description(`Only tickets with one of these ${what}`);

export const listQuery = {
  state: arrayOf(TICKET_STATES, 'states'),
  origin: arrayOf(ORIGINS, 'origins'),
  category: arrayOf(CATEGORIES, 'categories'),
  priority: arrayOf(PRIORITIES, 'priorities'),
  workspace_id: Joi.string().max(64).description('Only this workspace'),
  q: Joi.string().trim().min(1).max(200).description('Full-text search in subject, customer and the opening message'),
  assignee: Joi.string().max(64).description('`me`, `unassigned` or a user id'),
  sort: Joi.string().valid(...SORTS).default('newest').description('newest (default), oldest, updated (latest change first) or sla (earliest due first)'),
};

const bodyMd = Joi.string().trim().min(1).max(50_000);
const publicSummary = Joi.string().trim().max(2000).allow(null, '');

export const assignPayload = Joi.object({ assignee_user_id: Joi.string().max(64).allow(null).required() });
export const closePayload = Joi.object({
  reason: Joi.string().valid(...CLOSE_REASONS).required(),
  duplicate_of_ticket_id: Joi.string().max(64).when('reason', { is: 'duplicate', then: Joi.required(), otherwise: Joi.allow(null) }),
  comment: Joi.string().trim().max(5000).allow(null, ''),
});
export const reopenPayload = Joi.object({ reason: Joi.string().trim().max(2000).allow(null, '') }).allow(null);
export const escalatePayload = Joi.object({ reason: Joi.string().trim().min(1).max(2000).required(), assignee_user_id: Joi.string().max(64).allow(null) });
export const notePayload = Joi.object({ body_md: bodyMd.required() });
export const createDraftPayload = Joi.object({ kind: Joi.string().valid('reply', 'needs_info').required(), body_md: bodyMd.required(), public_summary: publicSummary });
export const editDraftPayload = Joi.object({ body_md: bodyMd, public_summary: publicSummary, kind: Joi.string().valid('reply', 'needs_info') }).min(1);
export const discardDraftPayload = Joi.object({ reason: Joi.string().trim().max(2000).allow(null, '') }).allow(null);
export const sendDraftPayload = Joi.object({ body_md: bodyMd, public_summary: publicSummary }).allow(null);
export const subscriberPayload = Joi.object({ email: Joi.string().trim().lowercase().email({ tlds: false }).max(254).required() });
export const statusLinkPayload = Joi.object({ action: Joi.string().valid('revoke', 'rotate').required() });
