import { isAdapterError } from '../../../core/contracts/index.js';
import { codeHostFailure, conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { RunnerJob } from '../models/index.js';
import { assertCurrent, runnerOnly, type JobCall } from './job-call.js';
import type { JobRow, RunnerDeps } from './deps.js';

export interface PullRequestInput {
  branch?: string;
  head_sha: string;
  tests_ran: boolean;
  tests_passed: boolean;
  verify_passed: boolean;
  draft?: boolean;
}

const gitBoxContext = (jobId: string) => `runner-git-tokens:${jobId}`;

/** The git tokens handed out to this job so far (masked by value in its events). */
export async function gitTokensOf(d: Pick<RunnerDeps, 'db' | 'secretBox'>, job: JobRow): Promise<string[]> {
  const row = await RunnerJob.query(d.db)
    .forOrg(job.org_id)
    .where({ job_id: job.id })
    .select('git_tokens_box')
    .limit(1)
    .first();
  return row?.git_tokens_box
    ? (JSON.parse(d.secretBox.decrypt(row.git_tokens_box, gitBoxContext(job.id))) as string[])
    : [];
}

/** The fix's pull request as POST pull-request answers it (an attempt's stored one, or the one just opened). */
function pullRequestOut(
  number: number,
  url: string,
  state: string | null | undefined,
  branch: string,
  headSha: string,
) {
  return { number, url, state: state ?? 'open', branch, head_sha: headSha };
}

/**
 * The jobs section's code-host operations: a short-lived git token for the job's repository, and
 * the pull request of a verified fix (opened through the fixes plugin's `fixPullRequests`).
 */
export class JobCodeHost {
  constructor(private readonly d: RunnerDeps) {}

  /** POST git-token: a short-lived installation token; push only for fix jobs. */
  async gitToken(
    c: JobCall,
    input: { write?: boolean },
  ): Promise<{ token: string; clone_url: string; expires_at: string; write: boolean }> {
    runnerOnly(c);
    assertCurrent(c);
    const { job } = c;
    const write = input.write ?? job.kind === 'fix';
    if (write && job.kind !== 'fix') throw forbidden('A diagnosis job gets read-only access; push is for fix jobs');
    const { host, ref } = await this.d.payloads.repositoryRefOf(job);
    let access;
    try {
      access = await host.createGitAccess(ref, { write });
    } catch (err) {
      if (isAdapterError(err)) throw codeHostFailure(err, 'The code host gave no token');
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
    runnerOnly(c);
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
      return pullRequestOut(attempt.pr_number, attempt.pr_url, attempt.pr_state, attempt.branch, input.head_sha);
    assertCurrent(c);
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
    const { host, ref } = await this.d.payloads.repositoryRefOf(job);
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
      return pullRequestOut(opened.pr_number, opened.pr_url, opened.pr_state, attempt.branch, input.head_sha);
    } catch (err) {
      if (isAdapterError(err)) throw codeHostFailure(err, 'The code host refused the pull request');
      throw err;
    }
  }
}
