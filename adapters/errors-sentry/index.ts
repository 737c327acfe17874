import * as Sentry from '@sentry/node';
import Joi from 'joi';
import { defineAdapter } from '../../core/contracts/adapter.js';
import type { ErrorReporter } from '../../core/contracts/error-reporter.js';
import type { AppConfig } from '../../core/kernel/config.js';

/** Reports the service's own errors to Sentry (or any Sentry-protocol server) when SENTRY_DSN is set. */
export class SentryErrorReporter implements ErrorReporter {
  readonly identifier = 'errors-sentry';
  private readonly enabled: boolean;

  constructor(sentry: AppConfig['sentry'], release: string) {
    this.enabled = Boolean(sentry.dsn);
    if (!this.enabled) return;
    Sentry.init({
      dsn: sentry.dsn!,
      environment: sentry.environment,
      release,
      tracesSampleRate: sentry.tracesSampleRate,
      defaultIntegrations: false,
    });
  }

  capture(error: unknown, context: Record<string, unknown> = {}): void {
    if (!this.enabled) return;
    try {
      Sentry.withScope((scope) => {
        for (const [k, v] of Object.entries(context)) scope.setExtra(k, v);
        if (typeof context.requestId === 'string') scope.setTag('request_id', context.requestId);
        Sentry.captureException(error);
      });
    } catch {
      // reporting must never break the request that failed
    }
  }

  async flush(timeoutMs: number): Promise<void> {
    if (this.enabled) await Sentry.flush(timeoutMs).catch(() => false);
  }
}

export default defineAdapter<ErrorReporter>({
  kind: 'errorReporter',
  name: 'errors-sentry',
  optionsSchema: Joi.object({}),
  create: (_options, deps) => new SentryErrorReporter((deps.config as AppConfig).sentry, process.env.npm_package_version ?? '0.1.0'),
});
