/** The value lists of the tickets API's enums, shared by the answers' and the inputs' schemas. */
export const ORIGINS = ['email', 'widget', 'codehost', 'proactive'] as const;
export const CATEGORIES = ['usage', 'config', 'docs', 'bug', 'feature_request', 'unknown'] as const;
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const DRAFT_KINDS = ['reply', 'needs_info', 'interim', 'release_notice', 'proactive_notice'] as const;
export const DRAFT_STATUSES = ['draft', 'approved', 'sent', 'discarded'] as const;
export const DELIVERY_STATUSES = ['queued', 'sent', 'delivered', 'bounced', 'complained', 'failed'] as const;
export const CLOSE_REASONS = ['resolved', 'answered', 'duplicate', 'spam', 'wont_fix', 'other'] as const;
export const SUBSCRIBER_SOURCES = ['duplicate', 'proactive', 'status_page', 'issue'] as const;
export const SORTS = ['newest', 'oldest', 'updated', 'sla'] as const;

/** Statuses of the fixes plugin's records, as the ticket page shows them (plugins/fixes/models). */
export const FIX_ATTEMPT_STATUSES = [
  'running',
  'verified',
  'not_verified',
  'failed',
  'superseded',
  'rejected',
  'merged',
] as const;
export const FIX_REASONS = ['verification_failed', 'tests_failed', 'tests_not_run_without_reason', 'other'] as const;
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
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'dead'] as const;
export const DIFF_UNAVAILABLE = [
  'no_pull_request',
  'no_repository',
  'github_unavailable',
  'github_not_configured',
  'not_loaded',
] as const;

export const DRAFT_LANGUAGES = ['en', 'it'] as const;
