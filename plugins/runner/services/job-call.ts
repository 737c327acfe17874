import { conflict, forbidden } from '../../../core/http/errors.js';
import type { RunnerJobToken } from '../models/index.js';
import { leaseOwner, type JobRow } from './deps.js';

/** One authenticated call of the jobs API: the job, the token row and the bearer value (masked in events). */
export interface JobCall {
  job: JobRow;
  token: RunnerJobToken;
  bearer: string | null;
}

/** Operations only the runner's job token may call (not the agent token). */
export function runnerOnly(c: JobCall): void {
  if (c.token.kind !== 'job') throw forbidden('The agent token cannot do this; the runner’s job token can');
}

/** The job is running under this token's claim (not ended, not claimed again). */
export function assertCurrent(c: JobCall): void {
  const { job, token } = c;
  const held =
    job.status === 'running' && job.lease_owner === leaseOwner(token.runner_id) && job.attempts === token.attempt;
  if (!held)
    throw conflict('job_not_running', `The job is ${job.status === 'running' ? 'held by another claim' : job.status}`, {
      status: job.status,
    });
}
