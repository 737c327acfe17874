import Joi from 'joi';
import { pageSchema } from '../../core/http/pagination.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

const nullableString = () => Joi.string().allow(null).required();

export const AuditEntry = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  action: Joi.string().required().description('`<resource>.<verb>`, e.g. member.role_changed'),
  actor: Joi.object({
    type: Joi.string().valid('user', 'token', 'staff', 'system', 'job').required(),
    id: nullableString(),
    email: nullableString(),
  }).required(),
  target: Joi.object({ type: Joi.string().required(), id: nullableString() }).allow(null).required(),
  workspace_id: nullableString(),
  changes: Joi.object()
    .pattern(Joi.string(), Joi.object({ before: Joi.any(), after: Joi.any() }))
    .allow(null)
    .required()
    .description('Fields that changed, before and after; secrets read [redacted]'),
  metadata: Joi.object().unknown(true).allow(null).required(),
  ip: nullableString(),
  user_agent: nullableString(),
  request_id: nullableString(),
  created_at: isoTime().required(),
})
  // Not .required(): inside an array that would make an empty page invalid.
  .id('AuditEntry');

export const AuditEntryPage = pageSchema(AuditEntry).required().id('AuditEntryPage');

export const AuditStream = Joi.object({
  id: Joi.string().required(),
  kind: Joi.string().valid('https', 'cloudwatch').required(),
  enabled: Joi.boolean().required(),
  status: Joi.string().valid('active', 'failing', 'disabled').required(),
  url: Joi.string().uri().allow(null).required(),
  cloudwatch: Joi.object({
    region: Joi.string().required(),
    log_group: Joi.string().required(),
    log_stream: Joi.string().required(),
    access_key_id: Joi.string().required(),
    secret_access_key_last4: Joi.string().required(),
  })
    .allow(null)
    .required(),
  signature_header: Joi.string()
    .required()
    .description('Header carrying t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">'),
  secret_last4: Joi.string().required(),
  secret: Joi.string().description(
    'The signing secret: only in the answer that creates the stream or rotates the secret',
  ),
  delivery: Joi.object({
    pending: Joi.number().integer().required(),
    delivered: Joi.number().integer().required(),
    last_delivered_entry_id: nullableString(),
    last_delivered_at: nullableTime(),
    last_attempt_at: nullableTime(),
    last_error: nullableString(),
    consecutive_failures: Joi.number().integer().required(),
    next_attempt_at: nullableTime(),
  }).required(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
})
  .required()
  .id('AuditStream');

export const AuditStreamTest = Joi.object({
  ok: Joi.boolean().required(),
  status: Joi.number().integer().allow(null).required().description('HTTP status of the destination, when it answered'),
  error: nullableString(),
  latency_ms: Joi.number().integer().required(),
  batch_id: Joi.string().required(),
})
  .required()
  .id('AuditStreamTest');

const region = Joi.string()
  .pattern(/^[a-z]{2}(-[a-z]+)+-\d$/)
  .max(32);
const cwName = Joi.string()
  .pattern(/^[\w\-./#]+$/)
  .min(1)
  .max(512);

export const streamPayload = Joi.object({
  kind: Joi.string().valid('https', 'cloudwatch').required(),
  enabled: Joi.boolean(),
  url: Joi.string()
    .uri({ scheme: ['https'] })
    .max(2048)
    .when('kind', { is: 'https', then: Joi.required(), otherwise: Joi.forbidden() }),
  cloudwatch: Joi.object({
    region: region.required(),
    log_group: cwName.required(),
    log_stream: Joi.string()
      .pattern(/^[^:*]+$/)
      .min(1)
      .max(512)
      .required(),
    access_key_id: Joi.string()
      .pattern(/^[A-Z0-9]{16,128}$/)
      .required(),
    secret_access_key: Joi.string().min(16).max(256).description('Write-only; omit to keep the stored one'),
  }).when('kind', { is: 'cloudwatch', then: Joi.required(), otherwise: Joi.forbidden() }),
});

export const listQuery = {
  actor: Joi.string().max(320).description('Actor id (user or token) or email'),
  action: Joi.string()
    .max(200)
    .description('An action (member.role_changed) or a prefix ending with . or * (member., member.*)'),
  target_type: Joi.string().max(100),
  target_id: Joi.string().max(200),
  workspace_id: Joi.string().max(64),
  from: Joi.date().iso().description('Entries at or after (date or date-time)'),
  to: Joi.date().iso().description('Entries before (date or date-time)'),
};
