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

/** Statuses of the fixes plugin's records, as the ticket page shows them (one vocabulary with plugins/fixes/models). */
export {
  DIFF_UNAVAILABLE,
  FIX_ATTEMPT_STATUSES,
  FIX_JOB_STATUSES,
  RELEASE_STATUSES,
} from '../../../core/contracts/fix-statuses.js';
export const FIX_REASONS = ['verification_failed', 'tests_failed', 'tests_not_run_without_reason', 'other'] as const;

export const DRAFT_LANGUAGES = ['en', 'it'] as const;
