import Joi from 'joi';

export interface RunnerOptions {
  /** Lifetime of a job token and an agent token; POST /v1/jobs/{id}/token renews them. */
  jobTokenTtlMs: number;
  /** Claims one runner may make per minute (a polling runner asks about every few seconds). */
  claimsPerMinute: number;
  /** How often the job payload asks the runner to heartbeat (keep it well under the fixes lease). */
  heartbeatIntervalSeconds: number;
}

export const runnerOptionsSchema = Joi.object<RunnerOptions>({
  jobTokenTtlMs: Joi.number()
    .integer()
    .min(1000)
    .max(24 * 3_600_000)
    .default(15 * 60_000),
  claimsPerMinute: Joi.number().integer().min(1).max(10_000).default(120),
  heartbeatIntervalSeconds: Joi.number().integer().min(1).max(3600).default(20),
});
