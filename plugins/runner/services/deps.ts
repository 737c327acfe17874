import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { AgentJob, CodeHost, JobEventInput, JobResult, RepoRef } from '../../../core/contracts/index.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { RunnerOptions } from '../options.js';

/** The `fix_jobs` row fields this plugin reads (fixes plugin's table; the row is the lease). */
export interface JobRow {
  id: string;
  org_id: string;
  workspace_id: string;
  ticket_id: string;
  kind: 'diagnose' | 'fix';
  executor: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'dead';
  attempts: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  deadline_at: Date | null;
  cancel_requested_at: Date | null;
  payload: { branch?: string; repository_id?: string | null };
  fix_attempt_id: string | null;
  created_at: Date;
}

/** `fixJobs` (fixes plugin): the job queue. */
export interface JobQueuePort {
  claim(
    owner: string,
    executors: string[],
    only?: { orgId?: string; workspaceId?: string; jobId?: string },
  ): Promise<JobRow | undefined>;
  /** `leaseExpiresAt`: the renewed lease (null when the lease is not held). */
  heartbeat(jobId: string, owner: string): Promise<{ held: boolean; cancelled: boolean; leaseExpiresAt: Date | null }>;
  finish(jobId: string, owner: string | null, result: JobResult): Promise<boolean>;
  event(trx: Knex, job: { id: string; org_id: string }, e: JobEventInput, secrets?: readonly string[]): Promise<void>;
}

/** `fixPayloads` (fixes plugin): the AgentJob of a job. */
export interface PayloadPort {
  build(job: JobRow): Promise<{ agentJob: AgentJob }>;
  repositoryOf(
    orgId: string,
    workspaceId: string,
  ): Promise<{ id: string; full_name: string; default_branch: string } | null>;
}

/** `fixPullRequests` (fixes plugin): opens or finds the pull request of a fix attempt. */
export interface PullRequestPort {
  openFor(
    orgId: string,
    attemptId: string,
    draft: boolean,
    runnerVerified?: { tests_ran: boolean; tests_passed: boolean },
  ): Promise<
    | {
        id: string;
        pr_number: number | null;
        pr_url: string | null;
        pr_state: string | null;
        branch: string;
        status: string;
      }
    | undefined
  >;
}

/** `codehostRepositories` (codehost plugin). */
export interface RepositoriesPort {
  ref(orgId: string, repositoryId: string, trx?: Knex): Promise<RepoRef>;
}

/** The workspace fields the runner section reads (`workspaceService`). */
export interface RunnerWorkspace {
  id: string;
  org_id: string;
  execution_mode: string;
  runner_transport: string | null;
  autonomy: string;
  archived_at?: Date | null;
}

export interface WorkspacePort {
  get(orgId: string, id: string, trx?: Knex): Promise<RunnerWorkspace>;
}

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
  readonly codeHost: CodeHost | null;
  readonly repositories: RepositoriesPort | null;
}

/** The executor whose jobs wait for a runner (adapters/agent-runner). */
export const RUNNER_EXECUTOR = 'agent-runner';

/** Lease owner of a runner's claim, as the fixes job queue records it. */
export const leaseOwner = (runnerId: string): string => `runner:${runnerId}`;
