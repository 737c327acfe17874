/**
 * The statuses of the fixes plugin's records, one vocabulary for the plugin that stores them
 * (plugins/fixes/models) and the tickets plugin that shows them on the ticket page: a status added
 * here is valid in both answers at once.
 */
/** A diagnosis or fix job's status (the job queue's lease states). */
export const FIX_JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'dead'] as const;
export type FixJobStatus = (typeof FIX_JOB_STATUSES)[number];

export const FIX_ATTEMPT_STATUSES = [
  'running',
  'verified',
  'not_verified',
  'failed',
  'superseded',
  'rejected',
  'merged',
] as const;
export type FixAttemptStatus = (typeof FIX_ATTEMPT_STATUSES)[number];

/**
 * `proposed`: an open batched proposal collecting merged fixes; `batched`: a ticket's merge that
 * joined a proposal (its `batch_id`); the others are the steps of a release.
 */
export const RELEASE_STATUSES = [
  'proposed',
  'batched',
  'waiting_version',
  'merging',
  'tagging',
  'releasing',
  'notifying',
  'released',
  'failed',
] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];

/** Why a fix's diff is not shown (FixDiff.unavailable): no commit, no repository, or the code host. */
export const DIFF_UNAVAILABLE = [
  'no_pull_request',
  'no_repository',
  'github_unavailable',
  'github_not_configured',
  'not_loaded',
] as const;
export type DiffUnavailable = (typeof DIFF_UNAVAILABLE)[number];
