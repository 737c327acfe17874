/** The ticket: its list item, the list's page and counts, the whole ticket with its page, and its status link. */
import Joi from 'joi';
import { PUBLIC_STATES, TICKET_STATES } from '../services/state-machine.js';
import { count, str } from './common.js';
import { MessageSchema } from './message.js';
import {
  TicketAuditEntrySchema,
  TicketDiagnosisSchema,
  TicketDraftListSchema,
  TicketFixAttemptSchema,
  TicketJobListSchema,
  TicketReleaseSchema,
} from './ticket-page.js';
import { CATEGORIES, ORIGINS, PRIORITIES } from './values.js';
import { pageSchema } from '../../../core/http/pagination.js';
import { isoTime, nullableTime } from '../../../core/http/times.js';

const ticketItemFields = {
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  workspace_name: Joi.string().required(),
  client_name: str.required(),
  channel_id: str.required(),
  origin: Joi.string()
    .valid(...ORIGINS)
    .required(),
  external_id: str.required(),
  customer_email: str.required(),
  customer_name: str.required(),
  subject: Joi.string().allow('').required(),
  state: Joi.string()
    .valid(...TICKET_STATES)
    .required(),
  public_state: Joi.string()
    .valid(...PUBLIC_STATES)
    .required(),
  category: Joi.string()
    .valid(...CATEGORIES)
    .required(),
  priority: Joi.string()
    .valid(...PRIORITIES)
    .required(),
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
  last_message_at: nullableTime(),
  first_response_at: nullableTime(),
  released_at: nullableTime(),
  closed_at: nullableTime(),
  last_customer_message_at: nullableTime(),
  sla_due_at: nullableTime(),
  reopened_count: Joi.number().integer().min(0).required(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
};

export const TicketItemSchema = Joi.object(ticketItemFields).id('TicketItem');

export const TicketPageSchema = pageSchema(TicketItemSchema).id('TicketPage');

export const TicketSchema = Joi.object({
  ...ticketItemFields,
  public_summary: str.required(),
  public_summary_approved_at: nullableTime(),
  public_status_url: Joi.string().uri().required(),
  public_token_revoked_at: nullableTime(),
  messages: Joi.array().items(MessageSchema).required(),
  // Shared shapes carry their descriptions (a use site's would be lost beside the $ref).
  diagnosis: TicketDiagnosisSchema.allow(null).required(),
  drafts: TicketDraftListSchema.required(),
  fixes: Joi.array()
    .items(TicketFixAttemptSchema)
    .allow(null)
    .required()
    .description('Fix attempts, newest first (at most 50); null when the fix loop is off'),
  release: TicketReleaseSchema.allow(null).required(),
  audit: Joi.array()
    .items(TicketAuditEntrySchema)
    .allow(null)
    .required()
    .description(
      'The newest 50 audit entries about the ticket and its drafts, fix attempts and releases, newest first; null when the audit plugin is off',
    ),
  jobs: TicketJobListSchema.allow(null).required(),
})
  .id('Ticket')
  .description(
    'A ticket with its conversation and its page: diagnosis, drafts, fixes, release, audit and jobs. ' +
      'A key whose plugin is off (the fix loop: diagnosis, fixes, release, jobs; the audit plugin: audit) is null.',
  );

export const TicketCountsSchema = Joi.object({
  by_state: Joi.object(Object.fromEntries(TICKET_STATES.map((st) => [st, count().required()])))
    .required()
    .description('Tickets per state, every state present (0 when none)'),
  needs_team_action: count().required().description('Tickets waiting for the team (needs_team_action true)'),
  total: count().required().description('Every ticket the filters match (the sum of by_state)'),
})
  .id('TicketCounts')
  .description("How many tickets the list's filters match, over the workspaces the caller can open");

export const StatusLinkSchema = Joi.object({
  public_status_url: Joi.string().uri().required(),
  public_token_revoked_at: nullableTime(),
}).id('StatusLink');
