import Joi from 'joi';

/** `config.plugins.audit.options`, documented in docs/audit.md. */
export interface AuditOptions {
  stream: {
    /** Entries per delivered batch (CloudWatch accepts up to 10 000 events, 1 MiB). */
    batchSize: number;
    /** How often the scheduler looks for entries to deliver. */
    intervalMs: number;
    /** Waits after consecutive failures (the last one repeats); nothing is dropped. */
    backoffMs: number[];
    /** One delivery attempt, connection and answer included. */
    timeoutMs: number;
    /** How long one deliverer holds a stream before another may take it over. */
    leaseMs: number;
    /** After a rotation, batches carry a signature with the previous secret too, this long. */
    previousSecretHours: number;
    /** Extra trusted CA certificates (PEM) for HTTPS destinations behind a private CA. */
    trustedCa: string | null;
    /** CloudWatch Logs endpoint (a local peer, a VPC endpoint); null: the SDK's default for the region. */
    cloudwatchEndpoint: string | null;
  };
  /** Exports an organization may start per minute. */
  exportsPerMinute: number;
}

export const auditOptionsSchema = Joi.object<AuditOptions>({
  stream: Joi.object({
    batchSize: Joi.number().integer().min(1).max(1000).default(100),
    intervalMs: Joi.number().integer().min(100).max(3_600_000).default(5000),
    backoffMs: Joi.array()
      .items(Joi.number().integer().min(0))
      .min(1)
      .default([5000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000]),
    timeoutMs: Joi.number().integer().min(100).max(60_000).default(10_000),
    leaseMs: Joi.number().integer().min(1000).max(600_000).default(60_000),
    previousSecretHours: Joi.number().min(0).max(168).default(24),
    trustedCa: Joi.string().allow(null).default(null),
    cloudwatchEndpoint: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .allow(null)
      .default(null),
  }).default(),
  exportsPerMinute: Joi.number().integer().min(1).max(1000).default(10),
});
