/** A ticket's conversation: messages (with files and the widget's context) and drafts. */
import Joi from 'joi';
import { str } from './common.js';
import { DELIVERY_STATUSES, DRAFT_KINDS, DRAFT_STATUSES } from './values.js';
import { pageSchema } from '../../../core/http/pagination.js';
import { isoTime, nullableTime } from '../../../core/http/times.js';

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
  console: Joi.array()
    .items(
      Joi.object({
        level: Joi.string().valid('error', 'warn', 'unhandled_exception', 'unhandled_rejection').required(),
        message: Joi.string().allow('').required(),
        stack: Joi.string().allow(''),
        timestamp: Joi.string().required(),
      }),
    )
    .required(),
  network: Joi.array()
    .items(
      Joi.object({
        method: Joi.string().required(),
        url: Joi.string().allow('').required(),
        status: Joi.number().integer().required(),
        duration_ms: Joi.number().required(),
        timestamp: Joi.string().required(),
        error: Joi.string().allow(''),
      }),
    )
    .required(),
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
  delivery_status: Joi.string()
    .valid(...DELIVERY_STATUSES)
    .allow(null)
    .required(),
  sent_by_user_id: str.required(),
  is_internal_note: Joi.boolean().required(),
  created_at: isoTime().required(),
}).id('Message');

export const DraftSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  diagnosis_id: str.required().description('The diagnosis the automation wrote it from; null for a team-written draft'),
  kind: Joi.string()
    .valid(...DRAFT_KINDS)
    .required(),
  body_md: Joi.string().allow('').required(),
  public_summary: str
    .required()
    .description('The public summary it proposes for the status page (approved when the draft is sent)'),
  status: Joi.string()
    .valid(...DRAFT_STATUSES)
    .required(),
  language: Joi.string().required(),
  sent_message_id: str.required().description('The conversation message it became when sent'),
  created_by_user_id: str.required().description('Who wrote it; null when the automation did'),
  edited_by_user_id: str.required(),
  approved_by_user_id: str.required(),
  approved_at: nullableTime(),
  sent_at: nullableTime(),
  discarded_at: nullableTime(),
  discard_reason: str.required(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
}).id('Draft');

export const DraftPageSchema = pageSchema(DraftSchema).id('DraftPage');
