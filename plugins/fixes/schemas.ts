import Joi from 'joi';

const id = Joi.string().max(100);

export const JobEventSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  job_id: Joi.string().required(),
  level: Joi.string().valid('info', 'warn', 'error').required(),
  type: Joi.string().required(),
  message: Joi.string().allow('').required(),
  data: Joi.object().unknown(true).required(),
  created_at: Joi.string().isoDate().required(),
}).id('JobEvent');

export const JobEventListSchema = Joi.object({
  items: Joi.array().items(JobEventSchema).required(),
  next_cursor: Joi.string().allow(null).required(),
}).id('JobEventList');

export const jobEventParams = Joi.object({ id: id.required(), jobId: id.required() });

export const FixDiffSchema = Joi.object({
  text: Joi.string().allow('', null).required(),
  truncated: Joi.boolean().required(),
  unavailable: Joi.string().valid('no_pull_request', 'no_repository', 'github_unavailable', 'github_not_configured', 'not_loaded').allow(null).required(),
  source: Joi.string().valid('pull_request', 'compare').allow(null).required(),
}).id('FixDiff');

export const fixAttemptParams = Joi.object({ id: id.required(), fixAttemptId: id.required() });
export const ticketParams = Joi.object({ id: id.required() });
export const openPrPayload = Joi.object({ fix_attempt_id: id.required(), draft: Joi.boolean().default(false) });
export const rejectPayload = Joi.object({ fix_attempt_id: id.required(), comment: Joi.string().max(10_000).allow('', null) });
export const requestChangesPayload = Joi.object({ fix_attempt_id: id.required(), comment: Joi.string().trim().min(1).max(10_000).required() });
export const approvePayload = Joi.object({
  fix_attempt_id: id.required(),
  approved_sha: Joi.string().pattern(/^[0-9a-f]{40,64}$/).required(),
  comment: Joi.string().max(10_000).allow('', null),
  version: Joi.string().max(64).allow('', null),
  public_summary: Joi.string().max(2000).allow('', null),
});
export const retryPayload = Joi.object({ version: Joi.string().max(64).allow('', null) });
export const backToApprovalPayload = Joi.object({ fix_attempt_id: id.required(), comment: Joi.string().max(10_000).allow('', null) });
