import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import type { JobEventInput, JobKind, JobResult } from '../../../core/contracts/index.js';
import { FixJob, type JobPayload } from '../models/index.js';
import type { FixesDeps } from './deps.js';
import { authorizeJob, HELD_CODE, holdJob, recordJobCost, type JobBillingDeps } from './job-billing.js';
import { nextClaimable, type ClaimFilter } from './job-claimable.js';
import { appendJobEvent } from './job-events.js';
import { mask, maskDeep } from './mask.js';

export interface EnqueueInput {
  orgId: string;
  workspaceId: string;
  ticketId: string;
  kind: JobKind;
  executor: string;
  mode: string;
  payload: JobPayload;
  /** One job per key and organization: a redelivered event cannot queue a second one. */
  idempotencyKey?: string;
  fixAttemptId?: string | null;
  maxMinutes: number;
}

/** What the loop does when a job ends; runs in the transaction that records the end. */
export interface JobHooks {
  onResult(trx: Knex, job: FixJob, result: JobResult): Promise<void>;
  onDead(trx: Knex, job: FixJob): Promise<void>;
}

export const JOB_REQUESTED = 'fixes.job_requested';

type QueueDeps = Pick<FixesDeps, 'db' | 'log'> & JobBillingDeps;

const errorText = (e: { code: string; detail: string }) => `${e.code}: ${e.detail}`.slice(0, 2000);

/**
 * Jobs leased in Postgres. A worker claims a queued job (or one whose lease ran out) with
 * `FOR UPDATE SKIP LOCKED`, so two workers never take the same row; it keeps the lease with
 * heartbeats; the first result recorded by the lease holder wins. The bus only signals that work
 * is waiting (`fixes.job_requested`); no message is held for the length of a job.
 */
export class JobQueue {
  hooks: JobHooks = { onResult: async () => {}, onDead: async () => {} };

  constructor(private readonly d: QueueDeps) {}

  /** Queues a job in the caller's transaction; undefined when its idempotency key was used. */
  async enqueue(trx: Knex, input: EnqueueInput): Promise<FixJob | undefined> {
    if (input.idempotencyKey) {
      const seen = await FixJob.query(trx)
        .forOrg(input.orgId)
        .where({ idempotency_key: input.idempotencyKey })
        .select('id')
        .limit(1)
        .first();
      if (seen) return undefined;
    }
    const job = await FixJob.query(trx)
      .insert({
        id: newId(FixJob.idPrefix),
        org_id: input.orgId,
        workspace_id: input.workspaceId,
        ticket_id: input.ticketId,
        kind: input.kind,
        executor: input.executor,
        mode: input.mode,
        status: 'queued',
        attempts: 0,
        max_attempts: this.d.options.maxAttempts,
        run_after: new Date(),
        payload: input.payload,
        idempotency_key: input.idempotencyKey ?? null,
        fix_attempt_id: input.fixAttemptId ?? null,
      })
      .returning('*');
    await this.d.outbox.add(
      trx,
      JOB_REQUESTED,
      { job_id: job.id, kind: job.kind, executor: job.executor },
      { orgId: input.orgId },
    );
    return job;
  }

  /**
   * Takes the next claimable job of these executors for `owner`: queued and due, or running with
   * an expired lease (its worker died; that counts as an attempt). A job out of attempts is
   * dead-lettered instead of claimed. Undefined when nothing is claimable.
   */
  async claim(owner: string, executors: string[], only: ClaimFilter = {}): Promise<FixJob | undefined> {
    if (executors.length === 0) return undefined;
    for (;;) {
      const outcome = await this.d.db.transaction(async (trx) => {
        const row = await nextClaimable(trx, executors, only);
        if (!row) return { kind: 'none' as const };
        if (row.status === 'running' && row.attempts >= row.max_attempts) {
          await this.deadLetter(trx, row, {
            code: 'lease_expired',
            detail: 'the worker stopped answering and no attempt is left',
          });
          return { kind: 'dead' as const };
        }
        if (row.deadline_at && row.status === 'running' && row.deadline_at.getTime() < Date.now()) {
          await this.deadLetter(trx, row, { code: 'timed_out', detail: 'the job ran past its wall-clock limit' });
          return { kind: 'dead' as const };
        }
        // Billing first (docs/fixes.md, "Plans gate fixes"): a refusal holds the job with the reason instead of running it.
        const refusal = row.status === 'queued' ? await authorizeJob(this.d, trx, row) : null;
        if (refusal) {
          await holdJob(this.d, trx, row, refusal);
          return { kind: 'held' as const, refusal };
        }
        const maxMinutes = this.maxMinutes(row);
        const claimed = await FixJob.query(trx)
          .forOrg(row.org_id)
          .patchAndFetchById(row.id, {
            status: 'running',
            attempts: row.attempts + 1,
            lease_owner: owner,
            lease_expires_at: new Date(Date.now() + this.d.options.leaseMs),
            heartbeat_at: new Date(),
            started_at: row.started_at ?? new Date(),
            deadline_at: row.deadline_at ?? new Date(Date.now() + maxMinutes * 60_000),
            ...(row.error_code === HELD_CODE ? { error_code: null, error_detail: null } : {}),
          });
        if (row.status === 'running')
          await this.event(trx, claimed, {
            level: 'warn',
            type: 'lease_expired',
            message: `the previous worker's lease expired; attempt ${claimed.attempts} of ${claimed.max_attempts}`,
          });
        await this.event(trx, claimed, {
          level: 'info',
          type: 'claimed',
          message: `attempt ${claimed.attempts} started`,
          data: { attempt: claimed.attempts },
        });
        return { kind: 'claimed' as const, job: claimed };
      });
      if (outcome.kind === 'claimed') return outcome.job;
      if (outcome.kind === 'none') return undefined;
      // The claimer named this job: it hears billing's 402 (the hold is committed). Otherwise the next job.
      if (outcome.kind === 'held' && only.jobId) throw outcome.refusal.error;
    }
  }

  private maxMinutes(job: FixJob): number {
    return job.payload?.limits?.max_minutes ?? this.d.options.defaultMaxMinutes;
  }

  /**
   * Keeps the lease of a running job. `held` false means the lease is gone (another worker took
   * the job, or it ended): stop working on it. `cancelled` reports a cancellation.
   */
  async heartbeat(
    jobId: string,
    owner: string,
  ): Promise<{ held: boolean; cancelled: boolean; leaseExpiresAt: Date | null }> {
    const rows: Array<{
      cancel_requested_at: Date | null;
      deadline_at: Date | null;
      lease_expires_at: Date;
    }> = await this.d
      .db('fix_jobs')
      .where({ id: jobId, status: 'running', lease_owner: owner })
      .update({
        lease_expires_at: new Date(Date.now() + this.d.options.leaseMs),
        heartbeat_at: new Date(),
        updated_at: new Date(),
      })
      .returning(['cancel_requested_at', 'deadline_at', 'lease_expires_at']);
    const row = rows[0];
    if (!row) return { held: false, cancelled: true, leaseExpiresAt: null };
    const late = row.deadline_at ? new Date(row.deadline_at).getTime() < Date.now() : false;
    return { held: true, cancelled: !!row.cancel_requested_at || late, leaseExpiresAt: row.lease_expires_at };
  }

  /**
   * Records the final result of the lease holder (the first result wins; a later or foreign one
   * is ignored and answers false) and runs the loop's hook in the same transaction.
   */
  async finish(jobId: string, owner: string | null, result: JobResult): Promise<boolean> {
    return this.d.db.transaction(async (trx) => {
      const job = await FixJob.query(trx).acrossOrgs('job result by its worker').findById(jobId).forUpdate();
      if (!job || job.status !== 'running' || (owner !== null && job.lease_owner !== owner)) return false;
      await this.end(trx, job, result);
      return true;
    });
  }

  /**
   * Fails the queued jobs of these (remote) executors that nobody claimed within `olderThanMs` of
   * becoming claimable, with error `not_claimed`; the loop takes them as any failed job (the
   * ticket is escalated with the reason). Returns how many ended.
   */
  async expireUnclaimed(executors: string[], olderThanMs: number, max = 500): Promise<number> {
    if (executors.length === 0) return 0;
    let ended = 0;
    while (ended < max) {
      const done = await this.d.db.transaction(async (trx) => {
        const job = await FixJob.query(trx)
          .acrossOrgs('unclaimed remote jobs sweep')
          .whereIn('executor', executors)
          .where('status', 'queued')
          .where('run_after', '<', new Date(Date.now() - olderThanMs))
          .orderBy([{ column: 'run_after' }, { column: 'id' }])
          .limit(1)
          .forUpdate()
          .skipLocked()
          .first();
        if (!job) return false;
        const waited =
          olderThanMs >= 3_600_000
            ? `${Math.round((olderThanMs / 3_600_000) * 10) / 10} h`
            : `${Math.round(olderThanMs / 1000)} s`;
        const detail = `no ${job.mode === 'mcp' ? 'IDE agent' : job.mode === 'runner' ? 'runner' : 'remote executor'} took the job within ${waited}`;
        await this.event(trx, job, {
          level: 'warn',
          type: 'not_claimed',
          message: detail,
          data: { executor: job.executor, waited_ms: olderThanMs },
        });
        await this.end(trx, job, { status: 'failed', cost_usd: 0, error: { code: 'not_claimed', detail } });
        return true;
      });
      if (!done) break;
      ended++;
    }
    return ended;
  }

  /** Records the end of a job in `trx`: its row, the result event, `fixes.job_finished`, the loop's hook and the cost. */
  private async end(trx: Knex, job: FixJob, result: JobResult): Promise<void> {
    const cost = Math.max(0, Number(result.cost_usd) || 0);
    const done = await FixJob.query(trx)
      .forOrg(job.org_id)
      .patchAndFetchById(job.id, {
        status: result.status,
        result: maskDeep(result) as JobResult,
        cost_usd: Number(job.cost_usd) + cost,
        finished_at: new Date(),
        lease_owner: null,
        lease_expires_at: null,
        error_code: result.error?.code ?? null,
        error_detail: result.error ? mask(result.error.detail).slice(0, 2000) : null,
      });
    await this.event(trx, done, {
      level: result.status === 'failed' ? 'error' : 'info',
      type: 'result',
      message: `job ${result.status}`,
      data: { status: result.status, cost_usd: cost },
    });
    await this.d.outbox.add(
      trx,
      'fixes.job_finished',
      { job_id: job.id, ticket_id: job.ticket_id, kind: job.kind, status: result.status, cost_usd: cost },
      { orgId: job.org_id },
    );
    await this.hooks.onResult(trx, done, result);
    await recordJobCost(this.d, trx, done);
  }

  /**
   * A crash of the attempt (thrown error, no result): retried after the back-off while attempts
   * remain, dead-lettered after the last. A non-retryable error dead-letters at once.
   */
  async fail(
    jobId: string,
    owner: string,
    error: { code: string; detail: string },
    opts: { retryable: boolean },
  ): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const job = await FixJob.query(trx).acrossOrgs('job failure by its worker').findById(jobId).forUpdate();
      if (!job || job.status !== 'running' || job.lease_owner !== owner) return;
      if (!opts.retryable || job.attempts >= job.max_attempts || job.cancel_requested_at) {
        if (job.cancel_requested_at) {
          await FixJob.query(trx)
            .forOrg(job.org_id)
            .patch({ status: 'cancelled', finished_at: new Date(), lease_owner: null, lease_expires_at: null })
            .where('id', job.id);
          await this.event(trx, job, { level: 'info', type: 'cancelled', message: 'job cancelled' });
          await recordJobCost(this.d, trx, job);
          return;
        }
        await this.deadLetter(trx, job, error);
        return;
      }
      const backoff = this.d.options.backoffMs;
      const wait = backoff[Math.min(job.attempts - 1, backoff.length - 1)] ?? 0;
      await FixJob.query(trx)
        .forOrg(job.org_id)
        .patch({
          status: 'queued',
          run_after: new Date(Date.now() + wait),
          lease_owner: null,
          lease_expires_at: null,
          error_code: error.code,
          error_detail: mask(errorText(error)),
        })
        .where('id', job.id);
      await this.event(trx, job, {
        level: 'warn',
        type: 'retry',
        message: `attempt ${job.attempts} failed (${error.code}); retrying in ${Math.round(wait / 1000)} s`,
        data: { code: error.code, wait_ms: wait },
      });
    });
  }

  /** Cancels a job: a queued one at once, a running one at its next heartbeat. */
  async cancel(trx: Knex, job: FixJob, reason: string): Promise<void> {
    if (job.status === 'queued') {
      await FixJob.query(trx)
        .forOrg(job.org_id)
        .patch({ status: 'cancelled', cancel_requested_at: new Date(), finished_at: new Date() })
        .where('id', job.id);
      await this.event(trx, job, { level: 'info', type: 'cancelled', message: reason });
      // A queued fix may hold a reserved credit (fix in managed): recording it releases the credit.
      if (job.kind === 'fix') await recordJobCost(this.d, trx, job);
    } else if (job.status === 'running') {
      await FixJob.query(trx).forOrg(job.org_id).patch({ cancel_requested_at: new Date() }).where('id', job.id);
      await this.event(trx, job, { level: 'info', type: 'cancel_requested', message: reason });
    }
  }

  private async deadLetter(trx: Knex, job: FixJob, error: { code: string; detail: string }): Promise<void> {
    const dead = await FixJob.query(trx)
      .forOrg(job.org_id)
      .patchAndFetchById(job.id, {
        status: 'dead',
        dead_at: new Date(),
        finished_at: new Date(),
        lease_owner: null,
        lease_expires_at: null,
        error_code: error.code,
        error_detail: mask(error.detail).slice(0, 2000),
      });
    await this.event(trx, dead, {
      level: 'error',
      type: 'dead_letter',
      message: `job stopped after ${job.attempts} attempt(s): ${error.code}`,
      data: { code: error.code },
    });
    await this.d.outbox.add(
      trx,
      'fixes.job_dead',
      { job_id: job.id, ticket_id: job.ticket_id, kind: job.kind, code: error.code },
      { orgId: job.org_id },
    );
    await this.hooks.onDead(trx, dead);
    await recordJobCost(this.d, trx, dead);
  }

  /** Appends a masked line to a job's log, outside any transaction (executors' output). */
  async emit(job: Pick<FixJob, 'id' | 'org_id'>, e: JobEventInput, secrets: readonly string[] = []): Promise<void> {
    await this.event(this.d.db, job, e, secrets);
  }

  /** Appends a masked line to a job's log. */
  async event(
    trx: Knex,
    job: Pick<FixJob, 'id' | 'org_id'>,
    e: JobEventInput,
    secrets: readonly string[] = [],
  ): Promise<void> {
    await appendJobEvent(trx, job, e, secrets);
  }
}
