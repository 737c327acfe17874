import Joi from 'joi';

/** `config.plugins.inbox.options`, documented in docs/inbox.md. */
export interface InboxOptions {
  /**
   * Set by the kernel from EMAIL_WEBHOOK_SECRET next to the selected channel adapter's own
   * `webhookSecret`; the adapter checks `mime` signatures, the plugin does not read it.
   */
  webhookSecret?: string;
  /** Largest raw delivery accepted by POST /v1/webhooks/email/{provider}. */
  maxMessageBytes: number;
  /** Spam score at or above which an email is quarantined. */
  spamThreshold: number;
  /** Per sender and workspace: more than `max` emails within the window are quarantined (rate_limited). */
  senderRateLimit: { max: number; windowMinutes: number };
  /** Repeated exchanges: this many emails of one sender with the same subject within the window are a loop. */
  loop: { max: number; windowMinutes: number };
  /** Raw messages of quarantined emails are dropped after this many days (the log row stays). */
  quarantineRetentionDays: number;
  /** Log rows older than this are deleted. */
  logRetentionDays: number;
  /** DNS servers for domain checks (`host[:port]`); empty = the system's. */
  dnsServers: string[];
  dnsTimeoutMs: number;
  /** A domain read (GET) asks the provider and DNS again when its last check is older than this. */
  domainRefreshSeconds: number;
  /** A published record still missing after this many hours is `failed` (before: `pending`). */
  recordMissingFailsAfterHours: number;
}

export const inboxOptionsSchema = Joi.object<InboxOptions>({
  webhookSecret: Joi.string().min(16),
  maxMessageBytes: Joi.number()
    .integer()
    .min(64 * 1024)
    .max(100 * 1024 * 1024)
    .default(25 * 1024 * 1024),
  spamThreshold: Joi.number().integer().min(1).max(100).default(6),
  senderRateLimit: Joi.object({
    max: Joi.number().integer().min(1).default(20),
    windowMinutes: Joi.number().integer().min(1).default(60),
  }).default(),
  loop: Joi.object({
    max: Joi.number().integer().min(2).default(5),
    windowMinutes: Joi.number().integer().min(1).default(10),
  }).default(),
  quarantineRetentionDays: Joi.number().integer().min(1).default(30),
  logRetentionDays: Joi.number().integer().min(1).default(90),
  dnsServers: Joi.array()
    .items(Joi.string().pattern(/^(\[[0-9a-fA-F:]+\]|[0-9a-fA-F:.]+)(:\d{1,5})?$/))
    .default([]),
  dnsTimeoutMs: Joi.number().integer().min(100).max(30_000).default(3000),
  domainRefreshSeconds: Joi.number().integer().min(0).default(600),
  recordMissingFailsAfterHours: Joi.number().integer().min(1).default(72),
});
