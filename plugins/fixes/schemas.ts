import Joi from 'joi';
import { DIFF_UNAVAILABLE, RELEASE_STATUSES } from '../../core/contracts/fix-statuses.js';
import { pageSchema } from '../../core/http/pagination.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

const id = Joi.string().max(100);

export const JobEventSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  job_id: Joi.string().required(),
  level: Joi.string().valid('info', 'warn', 'error').required(),
  type: Joi.string().required(),
  message: Joi.string().allow('').required(),
  data: Joi.object().unknown(true).required(),
  created_at: isoTime().required(),
}).id('JobEvent');

export const JobEventListSchema = pageSchema(JobEventSchema).id('JobEventList');

export const jobEventParams = Joi.object({ id: id.required(), jobId: id.required() });

export const FixDiffSchema = Joi.object({
  text: Joi.string().allow('', null).required(),
  truncated: Joi.boolean().required(),
  unavailable: Joi.string()
    .valid(...DIFF_UNAVAILABLE)
    .allow(null)
    .required(),
  source: Joi.string().valid('pull_request', 'compare').allow(null).required(),
}).id('FixDiff');

export const fixAttemptParams = Joi.object({ id: id.required(), fixAttemptId: id.required() });
export const ticketParams = Joi.object({ id: id.required() });
export const openPrPayload = Joi.object({ fix_attempt_id: id.required(), draft: Joi.boolean().default(false) });
export const rejectPayload = Joi.object({
  fix_attempt_id: id.required(),
  comment: Joi.string().max(10_000).allow('', null),
});
export const requestChangesPayload = Joi.object({
  fix_attempt_id: id.required(),
  comment: Joi.string().trim().min(1).max(10_000).required(),
});
export const approvePayload = Joi.object({
  fix_attempt_id: id.required(),
  approved_sha: Joi.string()
    .pattern(/^[0-9a-f]{40,64}$/)
    .required(),
  comment: Joi.string().max(10_000).allow('', null),
  version: Joi.string().max(64).allow('', null),
  public_summary: Joi.string().max(2000).allow('', null),
});
export const retryPayload = Joi.object({ version: Joi.string().max(64).allow('', null) });
export const backToApprovalPayload = Joi.object({
  fix_attempt_id: id.required(),
  comment: Joi.string().max(10_000).allow('', null),
});

// ---- releases section

const sha = Joi.string().pattern(/^[0-9a-f]{40,64}$/);
const version = Joi.string().trim().min(1).max(64);

export const ReleaseSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  repository_id: Joi.string().allow(null).required(),
  kind: Joi.string().valid('per_ticket', 'batched').required(),
  status: Joi.string()
    .valid(...RELEASE_STATUSES)
    .required(),
  strategy: Joi.string().valid('semver', 'calver', 'manual').required(),
  version: Joi.string().allow(null).required(),
  tag: Joi.string().allow(null).required(),
  head_sha: Joi.string()
    .allow(null)
    .required()
    .description('Batched proposal: the default branch head when the last fix joined'),
  approved_sha: Joi.string().allow(null).required(),
  merge_sha: Joi.string().allow(null).required().description('The commit the tag points at'),
  ci_state: Joi.string().valid('success', 'failure', 'pending', 'none').allow(null).required(),
  release_url: Joi.string().allow(null).required(),
  changelog: Joi.string().allow(null, '').required(),
  batch_id: Joi.string().allow(null).required().description("A ticket's merge that joined a batched release"),
  tickets: Joi.array()
    .items(
      Joi.object({
        ticket_id: Joi.string().required(),
        subject: Joi.string().allow('').required(),
        state: Joi.string().allow(null).required(),
        fix_attempt_id: Joi.string().allow(null).required(),
        merge_sha: Joi.string().allow(null).required(),
      }).id('ReleaseTicket'),
    )
    .required(),
  approvals: Joi.number().integer().required(),
  min_approvers: Joi.number().integer().required(),
  error_code: Joi.string().allow(null).required(),
  error_detail: Joi.string().allow(null).required(),
  failed_step: Joi.string()
    .valid(...RELEASE_STATUSES)
    .allow(null)
    .required(),
  released_at: nullableTime(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
}).id('Release');

export const ReleaseListSchema = pageSchema(ReleaseSchema).id('ReleaseList');

export const releaseParams = Joi.object({ id: id.required() });
export const releaseListFilters = { workspace_id: id, status: Joi.string().valid(...RELEASE_STATUSES) };
export const approveReleasePayload = Joi.object({
  sha: sha.required(),
  comment: Joi.string().max(10_000).allow('', null),
  version: version.allow('', null),
});
export const releaseVersionPayload = Joi.object({ version: version.required() });
