import type { Knex } from 'knex';
import { FixAttempt, FixJob } from '../models/index.js';
import type { FixesDeps } from './deps.js';
import { appendJobEvent } from './job-events.js';

/**
 * `billingGate.recordJobCost` (billing plugin), when present: what a finished job cost and whether
 * it produced a fix; idempotent per job id (a second call changes nothing).
 */
export interface JobCostRecorder {
  recordJobCost(
    trx: Knex,
    input: {
      orgId: string;
      jobId: string;
      costUsd: number;
      consumedFix: boolean;
      workspaceId?: string | null;
      kind?: 'fix' | 'diagnosis';
    },
  ): Promise<unknown>;
}

/** What billing's part of the queue needs. */
export type JobBillingDeps = Pick<FixesDeps, 'outbox' | 'options'> &
  Partial<Pick<FixesDeps, 'tickets'>> & {
    /** The billing gate; billing may be off (null), or an older gate without recordJobCost. */
    readonly billingGate?: (FixesDeps['billingGate'] & Partial<JobCostRecorder>) | null;
  };

/** Billing's refusal of a job (402 plan_limit_reached), as the claim keeps it on the job. */
export interface Refusal {
  error: Error;
  reason: string;
  message: string;
}

/** The error code a job billing refused carries while it waits (shown on the ticket's jobs). */
export const HELD_CODE = 'plan_limit_reached';

const boomCode = (err: unknown): string | undefined => (err as { data?: { code?: string } } | null)?.data?.code;

/**
 * Asks billing whether the job may run (a fix reserves its credit now, with the job id); null
 * when it may, or billing is off, or the ticket is the onboarding demo (run at the service's
 * expense). Only billing's 402 is a refusal; any other error fails the claim.
 */
export async function authorizeJob(d: JobBillingDeps, trx: Knex, job: FixJob): Promise<Refusal | null> {
  const gate = d.billingGate;
  if (!gate) return null;
  const demo = (await trx('tickets').where({ org_id: job.org_id, id: job.ticket_id }).select('is_demo').first()) as
    { is_demo: boolean } | undefined;
  if (demo?.is_demo) return null;
  try {
    // A savepoint: a refusal leaves nothing of billing's half-way work in the claim's transaction.
    await trx.transaction((sp) =>
      gate.authorizeJob(sp, {
        orgId: job.org_id,
        workspaceId: job.workspace_id,
        kind: job.kind === 'fix' ? 'fix' : 'diagnosis',
        estimatedCostUsd: job.payload?.limits?.max_cost_usd ?? d.options.defaultMaxCostUsd,
        jobId: job.id,
      }),
    );
    return null;
  } catch (err) {
    if (boomCode(err) !== HELD_CODE) throw err;
    const details = (err as { data?: { details?: { reason?: string } } }).data?.details ?? {};
    return { error: err as Error, reason: details.reason ?? 'plan_limit_reached', message: (err as Error).message };
  }
}

/**
 * Holds a job billing refused: it stays queued with the reason (error_code plan_limit_reached,
 * error_detail), billing is asked again after `holdRecheckMs`, and the first hold logs a `held`
 * event, announces `fixes.job_held` and puts the ticket on the team's list.
 */

export async function holdJob(d: JobBillingDeps, trx: Knex, job: FixJob, refusal: Refusal): Promise<void> {
  const detail = `${refusal.reason}: ${refusal.message}`.slice(0, 2000);
  await FixJob.query(trx)
    .forOrg(job.org_id)
    .patch({
      run_after: new Date(Date.now() + d.options.holdRecheckMs),
      error_code: HELD_CODE,
      error_detail: detail,
    })
    .where('id', job.id);
  if (job.error_code === HELD_CODE && job.error_detail === detail) return;
  await appendJobEvent(trx, job, {
    level: 'warn',
    type: 'held',
    message: `billing refused the ${job.kind === 'fix' ? 'fix' : 'diagnosis'}: ${refusal.message}`,
    data: { code: HELD_CODE, reason: refusal.reason },
  });
  await d.outbox.add(
    trx,
    'fixes.job_held',
    { job_id: job.id, ticket_id: job.ticket_id, kind: job.kind, reason: refusal.reason },
    { orgId: job.org_id },
  );
  const ticket = d.tickets ? await d.tickets.mustGet(trx, job.org_id, job.ticket_id).catch(() => null) : null;
  if (ticket) await d.tickets!.update(trx, ticket, { needs_team_action: true });
}

/**
 * Tells billing what an ended job cost, in the transaction that records its end (after the
 * loop's hook, so a fix attempt's verification is known): a fix job consumed a fix only when
 * its attempt is verified. Billing records a job once; a repeated end changes nothing.
 */
export async function recordJobCost(d: JobBillingDeps, trx: Knex, job: FixJob): Promise<void> {
  const gate = d.billingGate;
  if (!gate?.recordJobCost) return;
  let consumedFix = false;
  if (job.kind === 'fix' && job.fix_attempt_id) {
    const attempt = await FixAttempt.query(trx).forOrg(job.org_id).findById(job.fix_attempt_id).select('status');
    consumedFix = attempt?.status === 'verified';
  }
  await gate.recordJobCost(trx, {
    orgId: job.org_id,
    jobId: job.id,
    workspaceId: job.workspace_id,
    kind: job.kind === 'fix' ? 'fix' : 'diagnosis',
    costUsd: Math.max(0, Number(job.cost_usd) || 0),
    consumedFix,
  });
}
