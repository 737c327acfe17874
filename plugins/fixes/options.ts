import Joi from 'joi';

export interface FixesOptions {
  /** How long a claimed job stays leased without a heartbeat. */
  leaseMs: number;
  /** How often a worker looks for claimable jobs besides the bus signal. */
  pollMs: number;
  /** Jobs one worker process runs at once. */
  maxConcurrentJobs: number;
  /** Attempts of a job before it is dead-lettered (lease expiries and crashes count). */
  maxAttempts: number;
  /** Back-off before the 2nd, 3rd, … attempt. */
  backoffMs: number[];
  /** Wall-clock limit of a job when the workspace sets none (agent_config.max_minutes). */
  defaultMaxMinutes: number;
  /** Cost limit of a job when the workspace sets none (agent_config.max_cost_usd). */
  defaultMaxCostUsd: number;
  /** How long a job of a remote executor (runner, mcp) may wait queued before it fails `not_claimed`. */
  remoteClaimTimeoutMs: number;
  /** How long a job billing refused (plan_limit_reached) waits before billing is asked again. */
  holdRecheckMs: number;
}

export const fixesOptionsSchema = Joi.object<FixesOptions>({
  leaseMs: Joi.number().integer().min(1000).max(3_600_000).default(60_000),
  pollMs: Joi.number().integer().min(50).max(600_000).default(2_000),
  maxConcurrentJobs: Joi.number().integer().min(1).max(64).default(2),
  maxAttempts: Joi.number().integer().min(1).max(20).default(3),
  backoffMs: Joi.array().items(Joi.number().integer().min(0)).min(1).default([5_000, 30_000, 120_000]),
  defaultMaxMinutes: Joi.number()
    .integer()
    .min(1)
    .max(24 * 60)
    .default(30),
  defaultMaxCostUsd: Joi.number().min(0).max(1000).default(5),
  remoteClaimTimeoutMs: Joi.number()
    .integer()
    .min(100)
    .max(30 * 24 * 3_600_000)
    .default(24 * 3_600_000),
  holdRecheckMs: Joi.number()
    .integer()
    .min(100)
    .max(24 * 3_600_000)
    .default(5 * 60_000),
});
