/** The people following a ticket's status (duplicates, proactive notices, the status page, issues). */
import Joi from 'joi';
import { dt, str } from './common.js';
import { SUBSCRIBER_SOURCES } from './values.js';

export const SubscriberSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  thread_ticket_id: str.required(),
  email_masked: Joi.string().required(),
  user_hash: str.required(),
  source: Joi.string()
    .valid(...SUBSCRIBER_SOURCES)
    .required(),
  notified_at: dt.required(),
  unsubscribed_at: dt.required(),
  created_at: Joi.string().isoDate().required(),
}).id('Subscriber');

export const SubscriberListSchema = Joi.object({ items: Joi.array().items(SubscriberSchema).required() }).id(
  'SubscriberList',
);
