import Joi from 'joi';

/** `config.plugins.privacy.options`, documented in docs/privacy.md. */
export interface PrivacyOptions {
  /** Days between a closure and the purge of the organization's data (the promise is 30 at most). */
  closurePurgeDays: number;
  /** How often the scheduler looks for closures to purge and exports to expire. */
  purgeIntervalMs: number;
  /** How long an export's download link works. */
  exportLinkDays: number;
}

export const privacyOptionsSchema = Joi.object<PrivacyOptions>({
  closurePurgeDays: Joi.number().min(0).max(30).default(30),
  purgeIntervalMs: Joi.number()
    .integer()
    .min(1000)
    .max(24 * 3_600_000)
    .default(3_600_000),
  exportLinkDays: Joi.number().min(0.01).max(30).default(7),
});
