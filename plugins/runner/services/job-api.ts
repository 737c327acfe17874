import { createHash } from 'node:crypto';
import type { AgentJob, JobEventInput, JobResult } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { RunnerJob, RunnerJobToken } from '../models/index.js';
import type { AgentCredentials, CredentialOut } from './credentials.js';
import { leaseOwner, type JobRow, type RunnerDeps } from './deps.js';
import type { Runners } from './runners.js';
import { assertCurrent, runnerOnly, type JobCall } from './job-call.js';
import { gitTokensOf } from './job-code-host.js';
import { iso } from '../../../core/http/times.js';

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

/**
 * The jobs section as a runner drives it with its job token (the agent token may read the
 * payload, append events and heartbeat); the git token and pull request operations are
 * JobCodeHost's. Everything the loop does with the outcome is the fixes plugin's: the lease and
 * result go through `fixJobs`, the payload through `fixPayloads`.
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
    assertCurrent(c);
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
      .first<{ id: string } | undefined>();
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
    runnerOnly(c);
    assertCurrent(c);
    return this.credentials.take(c.job);
  }

  async putCredential(c: JobCall, credential: string | null): Promise<CredentialOut> {
    runnerOnly(c);
    return this.credentials.put(c.job, credential);
  }

  /** POST events: appended to the job's log, masked again (the fixes mask plus this job's secrets by value). */
  async events(c: JobCall, events: JobEventInput[]): Promise<{ accepted: number }> {
    assertCurrent(c);
    // Masked besides the fixes mask: the caller's token and the git tokens handed out.
    const secrets = [...(c.bearer ? [c.bearer] : []), ...(await gitTokensOf(this.d, c.job))];
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
    assertCurrent(c);
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

  /**
   * POST result: the final result, once per job. The same result again answers the same; a
   * different one 409 result_conflict. The loop continues in the fixes plugin's transaction;
   * `next_job_id` names the runner job it chained (e.g. the fix after a diagnosis).
   */
  async result(c: JobCall, result: JobResult): Promise<{ job_id: string; status: string; next_job_id: string | null }> {
    runnerOnly(c);
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
    assertCurrent(c);
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
    runnerOnly(c);
    assertCurrent(c);
    return this.d.db.transaction((trx) => this.runners.issueTokens(trx, c.job, c.token.runner_id));
  }
}
