/** What the tickets routes accept: path params, the list's and counts' filters, and the action payloads. */
import Joi from 'joi';
import { TICKET_STATES } from '../services/state-machine.js';
import { CATEGORIES, CLOSE_REASONS, DRAFT_LANGUAGES, ORIGINS, PRIORITIES, SORTS } from './values.js';

export const ticketIdParams = Joi.object({ id: Joi.string().max(64).required().description('Ticket id') });
export const draftParams = Joi.object({
  id: Joi.string().max(64).required().description('Ticket id'),
  draftId: Joi.string().max(64).required().description('Draft id'),
});
export const subscriberParams = Joi.object({
  id: Joi.string().max(64).required().description('Ticket id'),
  subscriberId: Joi.string().max(64).required().description('Subscriber id'),
});

const arrayOf = (values: readonly string[], what: string) =>
  Joi.array()
    .items(Joi.string().valid(...values))
    .single()
    .unique()
    .description(`Only tickets with one of these ${what}`);

const needsTeamAction = Joi.boolean().description(
  'true: only tickets waiting for the team (needs_team_action); false: only the others',
);

/** The filters GET /v1/tickets/counts shares with the list (the list's own state, sort and paging aside). */
export const countQuery = {
  origin: arrayOf(ORIGINS, 'origins'),
  category: arrayOf(CATEGORIES, 'categories'),
  priority: arrayOf(PRIORITIES, 'priorities'),
  workspace_id: Joi.string().max(64).description('Only this workspace'),
  q: Joi.string().trim().min(1).max(200).description('Full-text search in subject, customer and the opening message'),
  assignee: Joi.string().max(64).description('`me`, `unassigned` or a user id'),
  needs_team_action: needsTeamAction,
};

export const listQuery = {
  state: arrayOf(TICKET_STATES, 'states'),
  ...countQuery,
  sort: Joi.string()
    .valid(...SORTS)
    .default('newest')
    .description('newest (default), oldest, updated (latest change first) or sla (earliest due first)'),
};

const bodyMd = Joi.string().trim().min(1).max(50_000);
const publicSummary = Joi.string().trim().max(2000).allow(null, '');

export const assignPayload = Joi.object({ assignee_user_id: Joi.string().max(64).allow(null).required() });
export const closePayload = Joi.object({
  reason: Joi.string()
    .valid(...CLOSE_REASONS)
    .required(),
  duplicate_of_ticket_id: Joi.string()
    .max(64)
    .when('reason', { is: 'duplicate', then: Joi.required(), otherwise: Joi.allow(null) }),
  comment: Joi.string().trim().max(5000).allow(null, ''),
});
export const reopenPayload = Joi.object({ reason: Joi.string().trim().max(2000).allow(null, '') }).allow(null);
export const escalatePayload = Joi.object({
  reason: Joi.string().trim().min(1).max(2000).required(),
  assignee_user_id: Joi.string().max(64).allow(null),
});
export const notePayload = Joi.object({ body_md: bodyMd.required() });
export const createDraftPayload = Joi.object({
  kind: Joi.string().valid('reply', 'needs_info').required(),
  body_md: bodyMd.required(),
  public_summary: publicSummary,
});
export const editDraftPayload = Joi.object({
  body_md: bodyMd,
  public_summary: publicSummary,
  kind: Joi.string().valid('reply', 'needs_info'),
  language: Joi.string()
    .valid(...DRAFT_LANGUAGES)
    .description(
      "Beyond the spec (issue 26): the language of the reply; the email's own texts around it follow it when it is sent",
    ),
}).min(1);
export const discardDraftPayload = Joi.object({ reason: Joi.string().trim().max(2000).allow(null, '') }).allow(null);
export const sendDraftPayload = Joi.object({ body_md: bodyMd, public_summary: publicSummary }).allow(null);
export const subscriberPayload = Joi.object({
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(254).required(),
});
export const statusLinkPayload = Joi.object({ action: Joi.string().valid('revoke', 'rotate').required() });
