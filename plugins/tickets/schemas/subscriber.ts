/** The people following a ticket's status (duplicates, proactive notices, the status page, issues). */
import Joi from 'joi';
import { str } from './common.js';
import { SUBSCRIBER_SOURCES } from './values.js';
import { isoTime, nullableTime } from '../../../core/http/times.js';

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
  notified_at: nullableTime(),
  unsubscribed_at: nullableTime(),
  created_at: isoTime().required(),
}).id('Subscriber');

export const SubscriberListSchema = Joi.object({ items: Joi.array().items(SubscriberSchema).required() }).id(
  'SubscriberList',
);
