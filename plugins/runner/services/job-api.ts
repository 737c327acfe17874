import { createHash } from 'node:crypto';
import type { AgentJob, JobEventInput, JobResult } from '../../../core/contracts/index.js';
import { isAdapterError } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { RunnerJob, RunnerJobToken } from '../models/index.js';
import type { AgentCredentials, CredentialOut } from './credentials.js';
import { leaseOwner, type JobRow, type RunnerDeps } from './deps.js';
import type { Runners } from './runners.js';

/** One authenticated call of the jobs API: the job, the token row and the bearer value (masked in events). */
export interface JobCall {
  job: JobRow;
  token: RunnerJobToken;
  bearer: string | null;
}

export interface PullRequestInput {
  branch?: string;
  head_sha: string;
  tests_ran: boolean;
  tests_passed: boolean;
  verify_passed: boolean;
  draft?: boolean;
}

const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

/** JSON with sorted keys: two results that mean the same hash the same. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const gitBoxContext = (jobId: string) => `runner-git-tokens:${jobId}`;

/**
 * The jobs section (9 operations) as a runner drives it with its job token (the agent token may
 * read the payload, append events and heartbeat). Everything the loop does with the outcome is
 * the fixes plugin's: the lease and result go through `fixJobs`, the payload through
 * `fixPayloads`, pull requests through `fixPullRequests`.
 */
export class JobApi {
  constructor(
    private readonly d: RunnerDeps,
    private readonly runners: Runners,
    private readonly credentials: AgentCredentials,
  ) {}

  /**
   * The job the token was issued for; another job (or organization) answers 404. `authenticated`:
   * the token row the auth resolver already read for this request (read again when absent).
   */
  async load(
    principal: Principal,
    jobId: string,
    bearer: string | null,
    authenticated?: RunnerJobToken,
  ): Promise<JobCall> {
    if (principal.kind !== 'job' || principal.jobId !== jobId || !principal.tokenId) throw notFound('job');
    const job = (await this.d.db('fix_jobs').where({ id: jobId, org_id: principal.orgId }).first()) as
      JobRow | undefined;
    const token =
      authenticated?.id === principal.tokenId && authenticated.org_id === principal.orgId
        ? authenticated
        : await RunnerJobToken.query(this.d.db).forOrg(principal.orgId).findById(principal.tokenId);
    if (!job || !token || token.job_id !== job.id) throw notFound('job');
    return { job, token, bearer };
  }

  /** Operations only the runner's job token may call (not the agent token). */
  runnerOnly(c: JobCall): void {
    if (c.token.kind !== 'job') throw forbidden('The agent token cannot do this; the runner’s job token can');
  }

  /** The job is running under this token's claim (not ended, not claimed again). */
  current(c: JobCall): void {
    const { job, token } = c;
    const held =
      job.status === 'running' && job.lease_owner === leaseOwner(token.runner_id) && job.attempts === token.attempt;
    if (!held)
      throw conflict(
        'job_not_running',
        `The job is ${job.status === 'running' ? 'held by another claim' : job.status}`,
        { status: job.status },
      );
  }

  /** GET /v1/jobs/{id}: the AgentJob; the first read starts the job (event `started`). */
  async payload(c: JobCall): Promise<
    AgentJob & {
      attempt: number;
      lease_expires_at: string | null;
      deadline_at: string | null;
      heartbeat_interval_seconds: number;
      token_kind: string;
      agent_credential: boolean;
    }
  > {
    this.current(c);
    const { job } = c;
    const { agentJob } = await this.d.payloads.build(job);
    await this.d.db.transaction(async (trx) => {
      const started = await RunnerJob.query(trx)
        .forOrg(job.org_id)
        .patch({ started_at: new Date() })
        .where({ job_id: job.id })
        .whereNull('started_at');
      if (started)
        await this.d.jobs.event(trx, job, {
          level: 'info',
          type: 'started',
          message: `the runner started attempt ${job.attempts}`,
          data: { attempt: job.attempts },
        });
    });
    const beat = await this.d.jobs.heartbeat(job.id, leaseOwner(c.token.runner_id));
    const cred = await this.d
      .db('runner_agent_credentials')
      .where({ org_id: job.org_id, workspace_id: job.workspace_id })
      .select('id')
      .first();
    return {
      ...agentJob,
      attempt: job.attempts,
      lease_expires_at: iso(beat.leaseExpiresAt),
      deadline_at: iso(job.deadline_at),
      heartbeat_interval_seconds: this.d.options.heartbeatIntervalSeconds,
      token_kind: c.token.kind,
      agent_credential: !!cred,
    };
  }

  async takeCredential(c: JobCall): Promise<CredentialOut> {
    this.runnerOnly(c);
    this.current(c);
    return this.credentials.take(c.job);
  }

  async putCredential(c: JobCall, credential: string | null): Promise<CredentialOut> {
    this.runnerOnly(c);
    return this.credentials.put(c.job, credential);
  }

  /** The values masked in this job's events besides the mask's patterns: the caller's token and the git tokens handed out. */
  private async secrets(c: JobCall): Promise<string[]> {
    const out = c.bearer ? [c.bearer] : [];
    const row = await RunnerJob.query(this.d.db)
      .forOrg(c.job.org_id)
      .where({ job_id: c.job.id })
      .select('git_tokens_box')
      .limit(1)
      .first();
    if (row?.git_tokens_box)
      out.push(...(JSON.parse(this.d.secretBox.decrypt(row.git_tokens_box, gitBoxContext(c.job.id))) as string[]));
    return out;
  }

  /** POST events: appended to the job's log, masked again (the fixes mask plus this job's secrets by value). */
  async events(c: JobCall, events: JobEventInput[]): Promise<{ accepted: number }> {
    this.current(c);
    const secrets = await this.secrets(c);
    await this.d.db.transaction(async (trx) => {
      for (const e of events)
        await this.d.jobs.event(
          trx,
          c.job,
          { level: e.level, type: e.type, message: e.message, data: e.data ?? {} },
          secrets,
        );
    });
    return { accepted: events.length };
  }

  /** POST heartbeat: keeps the lease; `cancelled` tells the runner to stop and post a cancelled result. */
  async heartbeat(c: JobCall): Promise<{ cancelled: boolean; status: string; lease_expires_at: string | null }> {
    const { job, token } = c;
    if (job.status !== 'running') return { cancelled: true, status: job.status, lease_expires_at: null };
    this.current(c);
    const beat = await this.d.jobs.heartbeat(job.id, leaseOwner(token.runner_id));
    // A held lease is a running job (the heartbeat renews only those); otherwise the job ended meanwhile: read its status.
    const status = beat.held
      ? 'running'
      : (
          (await this.d.db('fix_jobs').where({ id: job.id, org_id: job.org_id }).select('status').first()) as {
            status: string;
          }
        ).status;
    return { cancelled: !beat.held || beat.cancelled, status, lease_expires_at: iso(beat.leaseExpiresAt) };
  }

  private async repoRef(job: JobRow) {
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    if (!host || !repos) throw httpError(422, 'no_repository', 'No code host is configured');
    const repositoryId =
      job.payload?.repository_id ?? (await this.d.payloads.repositoryOf(job.org_id, job.workspace_id))?.id;
    if (!repositoryId) throw httpError(422, 'no_repository', 'The workspace has no repository');
    return { host, ref: await repos.ref(job.org_id, repositoryId) };
  }

  /** POST git-token: a short-lived installation token; push only for fix jobs. */
  async gitToken(
    c: JobCall,
    input: { write?: boolean },
  ): Promise<{ token: string; clone_url: string; expires_at: string; write: boolean }> {
    this.runnerOnly(c);
    this.current(c);
    const { job } = c;
    const write = input.write ?? job.kind === 'fix';
    if (write && job.kind !== 'fix') throw forbidden('A diagnosis job gets read-only access; push is for fix jobs');
    const { host, ref } = await this.repoRef(job);
    let access;
    try {
      access = await host.createGitAccess(ref, { write });
    } catch (err) {
      if (isAdapterError(err))
        throw httpError(
          err.retryable ? 503 : 502,
          err.retryable ? 'codehost_unavailable' : 'codehost_error',
          'The code host gave no token',
          { code: err.code },
        );
      throw err;
    }
    await this.d.db.transaction(async (trx) => {
      const row = await RunnerJob.query(trx).forOrg(job.org_id).where({ job_id: job.id }).forUpdate().limit(1).first();
      const list = row?.git_tokens_box
        ? (JSON.parse(this.d.secretBox.decrypt(row.git_tokens_box, gitBoxContext(job.id))) as string[])
        : [];
      list.push(access.token);
      if (row)
        await RunnerJob.query(trx)
          .forOrg(job.org_id)
          .patch({ git_tokens_box: this.d.secretBox.encrypt(JSON.stringify(list.slice(-20)), gitBoxContext(job.id)) })
          .where('id', row.id);
      await this.d.jobs.event(trx, job, {
        level: 'info',
        type: 'git_token',
        message: `${write ? 'push' : 'read-only'} token handed out, valid until ${access.expiresAt.toISOString()}`,
      });
    });
    return { token: access.token, clone_url: access.cloneUrl, expires_at: access.expiresAt.toISOString(), write };
  }

  /**
   * POST pull-request: opens (or finds) the pull request of the fix's verified service-prefixed
   * branch through the fixes plugin, once the branch carries the verified commit. Copilot
   * workspaces wait for a person (409 copilot_mode).
   */
  async pullRequest(
    c: JobCall,
    input: PullRequestInput,
  ): Promise<{ number: number; url: string; state: string; branch: string; head_sha: string }> {
    this.runnerOnly(c);
    const { job } = c;
    if (job.kind !== 'fix' || !job.fix_attempt_id)
      throw conflict('not_a_fix_job', 'Only a fix job opens a pull request', { kind: job.kind });
    const attempt = (await this.d.db('fix_attempts').where({ id: job.fix_attempt_id, org_id: job.org_id }).first()) as
      | {
          id: string;
          branch: string;
          status: string;
          pr_number: number | null;
          pr_url: string | null;
          pr_state: string | null;
        }
      | undefined;
    if (!attempt) throw notFound('fix attempt');
    if (input.branch && input.branch !== attempt.branch)
      throw httpError(422, 'branch_mismatch', `The fix's branch is ${attempt.branch}`, { branch: attempt.branch });
    if (attempt.pr_number && attempt.pr_url)
      return {
        number: attempt.pr_number,
        url: attempt.pr_url,
        state: attempt.pr_state ?? 'open',
        branch: attempt.branch,
        head_sha: input.head_sha,
      };
    this.current(c);
    if (!(input.verify_passed && input.tests_passed && input.tests_ran))
      throw conflict('fix_not_verified', 'Only a verified fix gets a pull request', {
        tests_ran: input.tests_ran,
        tests_passed: input.tests_passed,
        verify_passed: input.verify_passed,
      });
    const ws = await this.d.workspaces.get(job.org_id, job.workspace_id);
    if (ws.autonomy === 'copilot')
      throw conflict(
        'copilot_mode',
        'In copilot mode a person opens the pull request (POST /v1/tickets/{id}/open-pr)',
        {},
      );
    const { host, ref } = await this.repoRef(job);
    try {
      const branch = await host.getBranch(ref, attempt.branch);
      if (!branch) throw conflict('branch_not_found', `Push ${attempt.branch} first`, { branch: attempt.branch });
      if (branch.sha !== input.head_sha)
        throw conflict('sha_mismatch', 'The branch head is not the verified commit', { head_sha: branch.sha });
      const opened = await this.d.pullRequests.openFor(job.org_id, attempt.id, input.draft ?? false, {
        tests_ran: input.tests_ran,
        tests_passed: input.tests_passed,
      });
      if (!opened?.pr_number || !opened.pr_url)
        throw conflict('pull_request_unavailable', 'The pull request could not be opened for this attempt', {
          status: opened?.status ?? null,
        });
      await this.d.jobs.event(this.d.db, job, {
        level: 'info',
        type: 'pull_request',
        message: `pull request #${opened.pr_number} for ${attempt.branch}`,
        data: { number: opened.pr_number, url: opened.pr_url },
      });
      return {
        number: opened.pr_number,
        url: opened.pr_url,
        state: opened.pr_state ?? 'open',
        branch: attempt.branch,
        head_sha: input.head_sha,
      };
    } catch (err) {
      if (isAdapterError(err))
        throw httpError(
          err.retryable ? 503 : 502,
          err.retryable ? 'codehost_unavailable' : 'codehost_error',
          'The code host refused the pull request',
          { code: err.code },
        );
      throw err;
    }
  }

  /**
   * POST result: the final result, once per job. The same result again answers the same; a
   * different one 409 result_conflict. The loop continues in the fixes plugin's transaction;
   * `next_job_id` names the runner job it chained (e.g. the fix after a diagnosis).
   */
  async result(c: JobCall, result: JobResult): Promise<{ job_id: string; status: string; next_job_id: string | null }> {
    this.runnerOnly(c);
    const { job, token } = c;
    const hash = createHash('sha256').update(canonical(result)).digest('hex');
    const replay = async () => {
      const row = await RunnerJob.query(this.d.db).forOrg(job.org_id).where({ job_id: job.id }).limit(1).first();
      if (!row?.result_hash) return undefined;
      if (row.result_hash !== hash)
        throw conflict('result_conflict', 'A different result was already recorded for this job', {
          status: row.result_answer?.status ?? null,
        });
      return row.result_answer ?? { job_id: job.id, status: result.status, next_job_id: null };
    };
    const seen = await replay();
    if (seen) return seen;
    this.current(c);
    if (result.status === 'succeeded' && job.kind === 'diagnose' && !result.diagnosis)
      throw httpError(422, 'result_incomplete', 'A succeeded diagnosis job needs `diagnosis`');
    if (result.status === 'succeeded' && job.kind === 'fix' && !result.fix)
      throw httpError(422, 'result_incomplete', 'A succeeded fix job needs `fix`');
    if (result.fix && job.payload?.branch && result.fix.branch !== job.payload.branch)
      throw httpError(422, 'branch_mismatch', `The fix's branch is ${job.payload.branch}`, {
        branch: job.payload.branch,
      });
    // Claim the result slot first: a concurrent second call waits for nothing and sees it.
    const took = await RunnerJob.query(this.d.db)
      .forOrg(job.org_id)
      .patch({ result_hash: hash })
      .where({ job_id: job.id })
      .whereNull('result_hash');
    if (!took) {
      const again = await replay();
      if (again) return again;
    }
    const ok = await this.d.jobs.finish(job.id, leaseOwner(token.runner_id), result).catch(async (err: unknown) => {
      await RunnerJob.query(this.d.db)
        .forOrg(job.org_id)
        .patch({ result_hash: null })
        .where({ job_id: job.id, result_hash: hash });
      throw err;
    });
    if (!ok) {
      await RunnerJob.query(this.d.db)
        .forOrg(job.org_id)
        .patch({ result_hash: null })
        .where({ job_id: job.id, result_hash: hash });
      const now = (await this.d.db('fix_jobs').where({ id: job.id, org_id: job.org_id }).select('status').first()) as {
        status: string;
      };
      throw conflict('job_not_running', `The job is ${now.status}`, { status: now.status });
    }
    const next = (await this.d
      .db('fix_jobs')
      .where({ org_id: job.org_id, ticket_id: job.ticket_id, executor: job.executor, status: 'queued' })
      .whereNot('id', job.id)
      .where('created_at', '>=', job.created_at)
      .orderBy('created_at', 'desc')
      .select('id')
      .first()) as { id: string } | undefined;
    const answer = { job_id: job.id, status: result.status, next_job_id: next?.id ?? null };
    await RunnerJob.query(this.d.db).forOrg(job.org_id).patch({ result_answer: answer }).where({ job_id: job.id });
    return answer;
  }

  /** POST token: a fresh job token and agent token; the current ones keep working until they expire. */
  async renew(c: JobCall): Promise<{ job_token: string; agent_token: string; expires_at: string }> {
    this.runnerOnly(c);
    this.current(c);
    return this.d.db.transaction((trx) => this.runners.issueTokens(trx, c.job, c.token.runner_id));
  }
}
