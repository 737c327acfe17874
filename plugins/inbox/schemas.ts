import Joi from 'joi';
import { DOMAIN_STATUSES, dnsRecordSchemaKeys } from '../../core/contracts/index.js';
import { INBOUND_REASONS, INBOUND_STATUSES } from './models/index.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

const str = Joi.string().allow(null);

export const FORWARDING_PROVIDERS = ['mail_a', 'mail_b', 'other'] as const;
export const SENDING_KINDS = ['custom', 'default', 'white_label', 'not_ready'] as const;
export const DOMAIN_PURPOSES = ['sending', 'receiving'] as const;

export const DnsRecordSchema = Joi.object({
  ...dnsRecordSchemaKeys,
  host: Joi.string()
    .required()
    .description('The name relative to the zone, as DNS panels ask for it (`@` for the apex)'),
  required: Joi.boolean().required().description('false for records that are recommended only (DMARC)'),
}).id('DomainDnsRecord');

export const DomainSchema = Joi.object({
  name: Joi.string().required(),
  purpose: Joi.string()
    .valid(...DOMAIN_PURPOSES)
    .required(),
  brand_profile_id: Joi.string()
    .required()
    .description(
      'The brand the domain belongs to: a brand profile id, or the workspace id for a workspace without a brand profile (scope workspace)',
    ),
  scope: Joi.string().valid('workspace', 'organization').required(),
  status: Joi.string()
    .valid(...DOMAIN_STATUSES)
    .required(),
  records: Joi.array().items(DnsRecordSchema).required(),
  sender_email: str.required(),
  sender_name: str.required(),
  verified_at: nullableTime(),
  last_checked_at: nullableTime(),
  created_at: isoTime().required(),
}).id('Domain');

const Confirmation = Joi.object({
  code: str.required(),
  url: str.required(),
  requested_by: str.required(),
  received_at: nullableTime(),
  verified: Joi.boolean().required(),
})
  .allow(null)
  .required()
  .id('ForwardingConfirmation');

export const ChannelSchema = Joi.object({
  workspace_id: Joi.string().required(),
  channel_id: Joi.string().required(),
  enabled: Joi.boolean().required(),
  inbox_in_plan: Joi.boolean().required(),
  custom_domain_in_plan: Joi.boolean().required(),
  inbound_address: str.required(),
  white_label_address: str.required(),
  accept_list_mail: Joi.boolean().required(),
  forwarding: Joi.object({
    address: Joi.string().required(),
    provider: Joi.string()
      .valid(...FORWARDING_PROVIDERS)
      .required(),
    added_at: nullableTime(),
    verified_at: nullableTime(),
    tested_at: nullableTime(),
    last_forwarded_at: nullableTime(),
    test: Joi.object({ code: Joi.string().required(), sent_at: nullableTime() }).allow(null).required(),
    gmail_confirmation: Confirmation,
  })
    .allow(null)
    .required(),
  pending_gmail_confirmation: Confirmation,
  sending: Joi.object({
    kind: Joi.string()
      .valid(...SENDING_KINDS)
      .required(),
    from: Joi.string().required(),
    reply_to_example: str.required(),
    missing: Joi.array().items(Joi.string()).required(),
  }).required(),
  sending_domain: Joi.alternatives(DomainSchema, null).required(),
  receiving_domain: Joi.alternatives(DomainSchema, null).required(),
  white_label: Joi.boolean().required(),
}).id('Channel');

export const InboundEmailSchema = Joi.object({
  provider: Joi.string().required(),
  email_id: Joi.string().required(),
  from: str.required(),
  from_name: str.required(),
  subject: str.required(),
  recipient: Joi.string().required(),
  received_at: isoTime().required(),
  status: Joi.string()
    .valid(...INBOUND_STATUSES)
    .required(),
  reason: Joi.string()
    .valid(...INBOUND_REASONS)
    .allow(null)
    .required(),
  ticket_id: str.required(),
  spam_score: Joi.number().integer().required(),
  signals: Joi.array().items(Joi.string()).required(),
  releasable: Joi.boolean().required(),
}).id('InboundEmail');

export const InboundPageSchema = Joi.object({
  items: Joi.array().items(InboundEmailSchema).required(),
  next_cursor: str.required(),
}).id('InboundEmailPage');

export const ReleaseSchema = Joi.object({
  ticket_id: Joi.string().required(),
  created: Joi.boolean().required(),
}).id('InboundRelease');

export const DomainListSchema = Joi.object({ items: Joi.array().items(DomainSchema).required() }).id('DomainList');

export const OkSchema = Joi.object({ ok: Joi.boolean().valid(true).required() });

export const WebhookAnswerSchema = Joi.object({
  results: Joi.array()
    .items(
      Joi.object({
        recipient: Joi.string().required(),
        status: Joi.string()
          .valid(...INBOUND_STATUSES)
          .required(),
        reason: Joi.string()
          .valid(...INBOUND_REASONS, 'unknown_recipient')
          .allow(null)
          .required(),
        ticket_id: str.required(),
      }),
    )
    .required(),
  events: Joi.array()
    .items(
      Joi.object({
        type: Joi.string().valid('delivered', 'bounced', 'complained', 'failed').required(),
        provider_message_id: Joi.string().required(),
        recipient: Joi.string().required(),
        messages_updated: Joi.number().integer().min(0).required(),
      }),
    )
    .required(),
}).id('EmailWebhookAnswer');
