import Joi from 'joi';

export interface ProactiveOptions {
  ingest: {
    /** Most events one database transaction groups. */
    batchMaxEvents: number;
    /** Batches written at the same time per process. */
    flushers: number;
    /** Events accepted but not yet committed, per process; beyond it ingest answers 429. */
    maxQueuedEvents: number;
    /** Retry-After of that 429, in seconds. */
    retryAfterSeconds: number;
    /** How long a connector's token and status are cached per process (rotation and pause take effect within it on other processes). */
    connectorCacheMs: number;
    /** Largest ingest body. */
    maxBodyBytes: number;
    /** Largest Sentry-protocol body (envelopes may carry attachments), as sent and once decompressed. */
    maxSentryBodyBytes: number;
  };
  cloudLogs: {
    /** The AWS principal that assumes customers' roles (CloudLogsSetup.principal_arn). */
    principalArn: string;
  };
  /** Source maps (section sourcemaps) and symbolication; see docs/proactive.md. */
  sourcemaps: {
    /** Largest single map in bytes (413 source_map_too_large beyond). */
    maxMapBytes: number;
    /** Largest upload body in bytes (413 payload_too_large beyond). */
    maxUploadBytes: number;
    /** Most files in one upload. */
    maxFiles: number;
    /** Parsed maps kept per process (LRU). */
    cacheSize: number;
    /** Longest an ingest batch waits for symbolication. */
    timeoutMs: number;
    /** How long a bundle without a map is remembered per process. */
    missCacheMs: number;
  };
  /** Sample events shown in a group's detail. */
  sampleEvents: number;
  /** How often stored events past the organization's retention_days are purged. */
  retentionSweepMs: number;
}

export const proactiveOptionsSchema = Joi.object<ProactiveOptions>({
  ingest: Joi.object({
    batchMaxEvents: Joi.number().integer().min(1).max(5000).default(500),
    flushers: Joi.number().integer().min(1).max(16).default(1),
    maxQueuedEvents: Joi.number().integer().min(1).default(20_000),
    retryAfterSeconds: Joi.number().integer().min(1).max(300).default(2),
    connectorCacheMs: Joi.number().integer().min(0).max(60_000).default(2_000),
    maxBodyBytes: Joi.number()
      .integer()
      .min(1024)
      .max(10 * 1024 * 1024)
      .default(1024 * 1024),
    maxSentryBodyBytes: Joi.number()
      .integer()
      .min(1024)
      .max(100 * 1024 * 1024)
      .default(5 * 1024 * 1024),
  }).default(),
  cloudLogs: Joi.object({
    principalArn: Joi.string()
      .pattern(/^arn:aws:iam::\d{12}:(role|user)\/[\w+=,.@/-]+$/)
      .default('arn:aws:iam::000000000000:role/patchwell-connector'),
  }).default(),
  sourcemaps: Joi.object({
    maxMapBytes: Joi.number()
      .integer()
      .min(1024)
      .default(20 * 1024 * 1024),
    maxUploadBytes: Joi.number()
      .integer()
      .min(1024)
      .default(50 * 1024 * 1024),
    maxFiles: Joi.number().integer().min(1).max(1000).default(200),
    cacheSize: Joi.number().integer().min(1).max(1000).default(32),
    timeoutMs: Joi.number().integer().min(10).max(60_000).default(500),
    missCacheMs: Joi.number().integer().min(0).max(3_600_000).default(10_000),
  }).default(),
  sampleEvents: Joi.number().integer().min(1).max(100).default(20),
  retentionSweepMs: Joi.number()
    .integer()
    .min(60_000)
    .default(60 * 60_000),
}).default();
