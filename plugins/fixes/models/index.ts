import { tenantModel } from '../../../core/data/model.js';
import type { JobKind, JobResult, TicketCategory } from '../../../core/contracts/index.js';
import type { FixAttemptStatus, FixJobStatus, ReleaseStatus } from '../../../core/contracts/fix-statuses.js';

// The statuses' vocabulary is shared with the ticket page (core/contracts/fix-statuses.ts).
export { FIX_ATTEMPT_STATUSES, RELEASE_STATUSES } from '../../../core/contracts/fix-statuses.js';
export type { FixAttemptStatus, FixJobStatus, ReleaseStatus };

/** A diagnosis or fix job; the row is also its lease (docs/fixes.md, "Jobs"). */
export class FixJob extends tenantModel({ table: 'fix_jobs', idPrefix: 'job', json: ['payload', 'result'] }) {
  declare workspace_id: string;
  declare ticket_id: string;
  declare kind: JobKind;
  declare executor: string;
  declare mode: string;
  declare status: FixJobStatus;
  declare attempts: number;
  declare max_attempts: number;
  declare run_after: Date;
  declare lease_owner: string | null;
  declare lease_expires_at: Date | null;
  declare heartbeat_at: Date | null;
  declare started_at: Date | null;
  declare deadline_at: Date | null;
  declare finished_at: Date | null;
  declare cancel_requested_at: Date | null;
  declare dead_at: Date | null;
  declare payload: JobPayload;
  declare result: JobResult | null;
  declare error_code: string | null;
  declare error_detail: string | null;
  declare cost_usd: string | number;
  declare idempotency_key: string | null;
  declare fix_attempt_id: string | null;
  declare updated_at: Date;
}

/** What the loop stores with a job to build the executor's AgentJob. */
export interface JobPayload {
  instructions?: string;
  limits?: { max_minutes: number; max_cost_usd: number };
  branch?: string;
  repository_id?: string | null;
}

export class FixJobEvent extends tenantModel({
  table: 'fix_job_events',
  idPrefix: 'jev',
  json: ['data'],
  updatedAt: false,
}) {
  declare job_id: string;
  /** Generated (bigserial): order of lines within a job. */
  declare seq: string;
  declare level: 'info' | 'warn' | 'error';
  declare type: string;
  declare message: string;
  declare data: Record<string, unknown>;
}

export interface Reference {
  path: string;
  line_start?: number;
  line_end?: number;
  symbol?: string;
  url?: string;
}

export class FixDiagnosis extends tenantModel({
  table: 'fix_diagnoses',
  idPrefix: 'dgn',
  json: ['references'],
  updatedAt: false,
}) {
  declare ticket_id: string;
  declare job_id: string | null;
  declare category: TicketCategory;
  declare confidence: number;
  declare root_cause_md: string;
  declare references: Reference[];
  declare public_summary: string | null;
  declare language: string | null;
  declare outcome: 'drafted' | 'escalated' | 'autopilot' | 'fix_queued';
  /** The open ticket this report likely duplicates (same error group or the same code as a bug at work), offered to the team. */
  declare duplicate_of_ticket_id: string | null;
}

export class FixAttempt extends tenantModel({ table: 'fix_attempts', idPrefix: 'fxa' }) {
  declare ticket_id: string;
  declare workspace_id: string;
  declare number: number;
  declare job_id: string | null;
  declare repository_id: string | null;
  declare branch: string;
  declare base_sha: string | null;
  declare head_sha: string | null;
  declare status: FixAttemptStatus;
  declare tests_ran: boolean;
  declare tests_passed: boolean;
  declare verify_passed: boolean;
  declare reason: string | null;
  declare reviewer_notes: string | null;
  declare pr_number: number | null;
  declare pr_url: string | null;
  declare pr_state: string | null;
  declare updated_at: Date;
}

export class FixApproval extends tenantModel({ table: 'fix_approvals', idPrefix: 'apr', updatedAt: false }) {
  declare ticket_id: string | null;
  declare fix_attempt_id: string | null;
  declare release_id: string | null;
  declare sha: string;
  declare user_id: string;
  declare role: string;
  declare comment: string | null;
  declare voided_at: Date | null;
  declare void_reason: string | null;
}

export class FixRelease extends tenantModel({ table: 'fix_releases', idPrefix: 'rel' }) {
  declare workspace_id: string;
  declare repository_id: string | null;
  declare ticket_id: string | null;
  declare fix_attempt_id: string | null;
  declare status: ReleaseStatus;
  declare strategy: 'semver' | 'calver' | 'manual';
  declare version: string | null;
  declare tag: string | null;
  declare approved_sha: string | null;
  declare merge_sha: string | null;
  declare ci_state: string | null;
  declare release_url: string | null;
  declare error_code: string | null;
  declare error_detail: string | null;
  declare failed_step: ReleaseStatus | null;
  declare released_at: Date | null;
  declare kind: 'per_ticket' | 'batched';
  declare batch_id: string | null;
  declare head_sha: string | null;
  declare changelog: string | null;
  declare updated_at: Date;
}
