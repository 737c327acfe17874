import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { httpError } from '../../../core/http/errors.js';
import { JobCost, money, num, type OrgRow } from '../models.js';
import type { AccountStore } from './account-store.js';
import type { BillingDeps } from './deps.js';
import type { SpendAlerts } from './spend-alerts.js';

export type JobKind = 'fix' | 'diagnosis';
export type Funding = 'credit' | 'overage' | 'included' | 'none';

export interface AuthorizeJobInput {
  orgId: string;
  workspaceId: string | null;
  kind: JobKind;
  estimatedCostUsd: number;
  /** With a job id, a fix's credit is reserved now (consumed; refunded if the job records no fix). */
  jobId?: string;
}

export type JobDecision =
  | { allowed: true; funding: Funding; chargeUsd: number; creditsRemaining: number; reserved: boolean }
  | {
      allowed: false;
      reason: 'spend_cap' | 'fix_credits_exhausted';
      message: string;
      details: Record<string, unknown>;
    };

export interface RecordJobCostInput {
  orgId: string;
  jobId: string;
  costUsd: number;
  consumedFix: boolean;
  workspaceId?: string | null;
  /** Kind when the job was not authorized with its id: default `fix` when it consumed a fix, else `diagnosis`. */
  kind?: JobKind;
}

/**
 * What the fix loop asks before and after each job (container key `billingGate`):
 *
 *   await billingGate.authorizeJob(trx, { orgId, workspaceId, kind: 'fix', estimatedCostUsd: 0.8, jobId })
 *   // … the job runs …
 *   await billingGate.recordJobCost(trx, { orgId, jobId, costUsd: 0.74, consumedFix: true })
 *
 * A fix is paid by a credit (the soonest-expiring balance) or, beyond every credit and with
 * overage on, at the plan's overage price; diagnoses are included in the plan. Spend (overage
 * charges of the period) at or above the monthly cap blocks every job; a fix whose overage
 * charge would pass the cap is refused too. Refusals are 402 plan_limit_reached with
 * details.reason `spend_cap` or `fix_credits_exhausted`.
 */
export class BillingGate {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
    private readonly alerts: SpendAlerts,
  ) {}

  /** The decision, without reserving or throwing. */
  async checkJob(trx: Knex, input: AuthorizeJobInput): Promise<JobDecision> {
    await this.store.ensurePlanCredits(trx, input.orgId);
    const org = await this.store.org(trx, input.orgId);
    const account = await this.store.account(trx, input.orgId);
    const period = this.store.period(org, account);
    const spent = await this.spent(trx, input.orgId, period.start);
    const cap = org.spend_cap_usd === null ? null : num(org.spend_cap_usd);
    const price = this.d.catalog.numbers(org.plan).overage_fix_price_usd;
    const remaining = await this.d.ledger.remaining(trx, input.orgId, this.d.clock(), input.workspaceId);
    const facts = {
      plan: org.plan,
      cap_usd: cap,
      spent_this_period_usd: spent,
      credits_remaining: remaining,
      estimated_cost_usd: input.estimatedCostUsd,
    };

    if (cap !== null && spent >= cap) {
      return {
        allowed: false,
        reason: 'spend_cap',
        message: 'The monthly spend cap is reached; jobs are paused until the next period or a higher cap',
        details: facts,
      };
    }
    if (input.kind === 'diagnosis')
      return { allowed: true, funding: 'included', chargeUsd: 0, creditsRemaining: remaining, reserved: false };
    if (remaining > 0)
      return { allowed: true, funding: 'credit', chargeUsd: 0, creditsRemaining: remaining, reserved: false };
    if (org.overage_enabled && price > 0) {
      if (cap !== null && spent + price > cap) {
        return {
          allowed: false,
          reason: 'spend_cap',
          message: 'This fix would pass the monthly spend cap',
          details: { ...facts, overage_price_usd: price },
        };
      }
      return { allowed: true, funding: 'overage', chargeUsd: price, creditsRemaining: 0, reserved: false };
    }
    return {
      allowed: false,
      reason: 'fix_credits_exhausted',
      message: 'No fix credits are left; buy a top-up or turn overage on',
      details: { ...facts, overage_enabled: org.overage_enabled, overage_available: price > 0 },
    };
  }

  /** May this job run? Throws 402 plan_limit_reached when not; with a job id, reserves a fix's credit. */
  async authorizeJob(trx: Knex, input: AuthorizeJobInput): Promise<Extract<JobDecision, { allowed: true }>> {
    const existing = input.jobId ? await this.job(trx, input.orgId, input.jobId) : undefined;
    if (existing) {
      return {
        allowed: true,
        funding: existing.funding,
        chargeUsd: num(existing.charged_usd),
        creditsRemaining: await this.d.ledger.remaining(trx, input.orgId),
        reserved: true,
      };
    }
    let decision = await this.checkJob(trx, input);
    if (!decision.allowed) throw refusal(decision);
    if (!input.jobId) return decision;

    let balanceId: string | null = null;
    if (decision.funding === 'credit') {
      const balance = await this.d.ledger.consume(trx, {
        orgId: input.orgId,
        jobId: input.jobId,
        workspaceId: input.workspaceId,
        now: this.d.clock(),
        note: `${input.kind} job`,
      });
      if (!balance) {
        // Another job took the last credit between the check and the lock: decide again.
        decision = await this.checkJob(trx, input);
        if (!decision.allowed) throw refusal(decision);
      } else {
        balanceId = balance.id;
      }
    }
    const org = await this.store.org(trx, input.orgId);
    await this.insertJob(trx, org, { ...input, jobId: input.jobId }, decision.funding, balanceId, 'reserved');
    return { ...decision, reserved: true };
  }

  /** Records what a job cost and whether it produced a fix; settles its reservation. Idempotent per job. */
  async recordJobCost(trx: Knex, input: RecordJobCostInput): Promise<JobCost> {
    const now = this.d.clock();
    const org = await this.store.org(trx, input.orgId, { lock: true });
    let job = await this.job(trx, input.orgId, input.jobId, true);
    if (job?.status === 'recorded') return job;
    const price = this.d.catalog.numbers(org.plan).overage_fix_price_usd;

    if (!job) {
      const kind: JobKind = input.kind ?? (input.consumedFix ? 'fix' : 'diagnosis');
      let funding: Funding = kind === 'fix' ? 'none' : 'included';
      let balanceId: string | null = null;
      if (kind === 'fix' && input.consumedFix) {
        const balance = await this.d.ledger.consume(trx, {
          orgId: input.orgId,
          jobId: input.jobId,
          workspaceId: input.workspaceId ?? null,
          now,
          note: 'fix job',
        });
        if (balance) {
          funding = 'credit';
          balanceId = balance.id;
        } else if (org.overage_enabled && price > 0) {
          funding = 'overage';
        }
      }
      job = await this.insertJob(
        trx,
        org,
        { orgId: input.orgId, workspaceId: input.workspaceId ?? null, kind, estimatedCostUsd: 0, jobId: input.jobId },
        funding,
        balanceId,
        'reserved',
      );
    }

    if (job.funding === 'credit' && !input.consumedFix) {
      await this.d.ledger.refund(trx, { orgId: input.orgId, jobId: input.jobId, note: 'the job produced no fix' });
    }
    const charged = job.funding === 'overage' && input.consumedFix ? price : 0;
    await JobCost.query(trx)
      .forOrg(input.orgId)
      .where('id', job.id)
      .patch({
        status: 'recorded',
        cost_usd: money4(input.costUsd),
        consumed_fix: input.consumedFix,
        charged_usd: charged,
        recorded_at: now,
      });
    if (charged > 0) await this.alerts.afterCharge(trx, input.orgId);
    return (await this.job(trx, input.orgId, input.jobId))!;
  }

  /** Overage charges of the period starting at `periodStart`. */
  async spent(trx: Knex, orgId: string, periodStart: Date): Promise<number> {
    const row = (await trx('billing_job_costs')
      .where({ org_id: orgId, period_start: periodStart })
      .sum({ s: 'charged_usd' })
      .first()) as { s: number | string | null } | undefined;
    return money(num(row?.s));
  }

  private async job(trx: Knex, orgId: string, jobId: string, lock = false): Promise<JobCost | undefined> {
    const q = JobCost.query(trx).forOrg(orgId).where('job_id', jobId).limit(1).first();
    return lock ? await q.forUpdate() : await q;
  }

  private async insertJob(
    trx: Knex,
    org: OrgRow,
    input: AuthorizeJobInput & { jobId: string },
    funding: Funding,
    balanceId: string | null,
    status: 'reserved',
  ): Promise<JobCost> {
    const account = await this.store.account(trx, org.id);
    const period = this.store.period(org, account);
    const inserted = await JobCost.query(trx).insert({
      id: newId(JobCost.idPrefix),
      org_id: org.id,
      workspace_id: input.workspaceId,
      job_id: input.jobId,
      kind: input.kind,
      status,
      funding,
      balance_id: balanceId,
      estimated_cost_usd: input.estimatedCostUsd,
      period_start: period.start,
    });
    return (await JobCost.query(trx).forOrg(org.id).findById(inserted.id))!;
  }
}

const money4 = (v: number): number => Math.round(v * 10_000) / 10_000;

function refusal(decision: Extract<JobDecision, { allowed: false }>): Error {
  return httpError(402, 'plan_limit_reached', decision.message, { reason: decision.reason, ...decision.details });
}
