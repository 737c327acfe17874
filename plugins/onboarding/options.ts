import Joi from 'joi';

/** `config.plugins.onboarding.options`, documented in docs/onboarding.md. */
export interface OnboardingOptions {
  /** What the service spends at most on one organization's demo (all its attempts). */
  demoCapUsd: number;
  /** Time to first diagnosis the metrics compare against (seconds from signup). */
  targetSeconds: number;
  /** A demo without a diagnosis after this long stops with error timed_out. */
  demoTimeoutMinutes: number;
  /** Attempts of one demo (the first run plus retries). */
  demoMaxAttempts: number;
}

export const onboardingOptionsSchema = Joi.object<OnboardingOptions>({
  demoCapUsd: Joi.number().min(0).max(100).default(2),
  targetSeconds: Joi.number()
    .integer()
    .min(1)
    .max(7 * 86400)
    .default(600),
  demoTimeoutMinutes: Joi.number()
    .min(0.1)
    .max(24 * 60)
    .default(30),
  demoMaxAttempts: Joi.number().integer().min(1).max(10).default(3),
});
