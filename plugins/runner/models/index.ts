import { tenantModel } from '../../../core/data/model.js';

/** A customer's runner registered for one workspace; its token is stored hashed. */
export class Runner extends tenantModel({ table: 'runners', idPrefix: 'rnr' }) {
  declare workspace_id: string;
  declare name: string;
  declare token_hash: string;
  declare token_last4: string;
  declare created_by: string | null;
  declare rotated_at: Date | null;
  declare revoked_at: Date | null;
  declare last_seen_at: Date | null;
  declare updated_at: Date;
}

export type JobTokenKind = 'job' | 'agent';

/** A job token (the runner's) or agent token (the agent process's) of one claim of a job. */
export class RunnerJobToken extends tenantModel({ table: 'runner_job_tokens', idPrefix: 'rjt', updatedAt: false }) {
  declare job_id: string;
  declare runner_id: string;
  declare attempt: number;
  declare kind: JobTokenKind;
  declare token_hash: string;
  declare expires_at: Date;
  declare revoked_at: Date | null;
}

/** What the runner that holds a job did with it. */
export class RunnerJob extends tenantModel({ table: 'runner_jobs', idPrefix: 'rjb', json: ['result_answer'] }) {
  declare job_id: string;
  declare runner_id: string;
  declare attempt: number;
  declare claimed_at: Date;
  declare started_at: Date | null;
  declare git_tokens_box: string | null;
  declare result_hash: string | null;
  declare result_answer: ResultAnswer | null;
  declare updated_at: Date;
}

export interface ResultAnswer {
  job_id: string;
  status: string;
  next_job_id: string | null;
}

/** The workspace's agent login file, encrypted; one job at a time holds it. */
export class RunnerAgentCredential extends tenantModel({ table: 'runner_agent_credentials', idPrefix: 'rac' }) {
  declare workspace_id: string;
  declare kind: string;
  declare secret_box: string;
  declare last4: string;
  declare locked_job_id: string | null;
  declare locked_at: Date | null;
  declare rotated_at: Date | null;
  declare updated_at: Date;
}
