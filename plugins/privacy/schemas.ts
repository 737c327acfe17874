import Joi from 'joi';
import { isoTime } from '../../core/http/times.js';

const counts = () => Joi.object().pattern(Joi.string(), Joi.number().integer()).required();

export const PrivacyClosure = Joi.object({
  org_id: Joi.string().required(),
  closed_at: isoTime().required(),
  purge_after: Joi.string()
    .isoDate()
    .required()
    .description('All data of the organization is deleted by then (30 days at most)'),
  subscription_canceled: Joi.boolean().required(),
})
  .required()
  .id('PrivacyClosure');

export const PrivacyErasure = Joi.object({
  id: Joi.string().required(),
  status: Joi.string().valid('completed').required(),
  subject: Joi.string().valid('email', 'user_id').required(),
  counts: counts().description('Rows deleted or rewritten, by table'),
  created_at: isoTime().required(),
})
  .required()
  .id('PrivacyErasure');

export const PrivacyTicketDeletion = Joi.object({
  ticket_id: Joi.string().required(),
  deleted: counts().description('Rows deleted, by table'),
})
  .required()
  .id('PrivacyTicketDeletion');

export const closurePayload = Joi.object({
  confirm: Joi.string().max(100).required().description('The organization’s slug, typed by the owner'),
  reason: Joi.string().trim().max(1000).allow(null, ''),
});

export const erasurePayload = Joi.object({
  email: Joi.string().trim().email({ tlds: false }).max(320),
  user_id: Joi.string().trim().min(1).max(200).description('The user id the customer’s app gave the widget'),
}).or('email', 'user_id');

export const PrivacyExport = Joi.object({
  id: Joi.string().required(),
  status: Joi.string().valid('pending', 'ready', 'failed', 'expired').required(),
  created_at: isoTime().required(),
})
  .required()
  .id('PrivacyExport');
