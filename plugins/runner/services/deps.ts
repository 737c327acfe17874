import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { RunnerOptions } from '../options.js';

/** `fixJobs` (fixes plugin): the job queue. */
export type JobQueuePort = Pick<Cradle['fixJobs'], 'claim' | 'heartbeat' | 'finish' | 'event'>;
/** A `fix_jobs` row as the fixes plugin stores it (the row is the lease). */
export type JobRow = NonNullable<Awaited<ReturnType<JobQueuePort['claim']>>>;

/** `fixPayloads` (fixes plugin): the AgentJob of a job, and the code host and repository it works on. */
export type PayloadPort = Pick<Cradle['fixPayloads'], 'build' | 'repositoryRefOf'>;

/** `fixPullRequests` (fixes plugin): opens or finds the pull request of a fix attempt. */
export type PullRequestPort = Pick<Cradle['fixPullRequests'], 'openFor'>;

/** The workspaces plugin's `workspaceService`, as far as the runner section reads it. */
export type WorkspacePort = Pick<Cradle['workspaceService'], 'get'>;

export interface RunnerDeps {
  readonly db: Knex;
  readonly audit: AuditWriter;
  readonly secretBox: SecretBox;
  readonly rateLimiter: RateLimiter;
  readonly log: Logger;
  readonly options: RunnerOptions;
  readonly jobs: JobQueuePort;
  readonly payloads: PayloadPort;
  readonly pullRequests: PullRequestPort;
  readonly workspaces: WorkspacePort;
}

/** The executor whose jobs wait for a runner (adapters/agent-runner). */
export const RUNNER_EXECUTOR = 'agent-runner';

/** Lease owner of a runner's claim, as the fixes job queue records it. */
export const leaseOwner = (runnerId: string): string => `runner:${runnerId}`;
