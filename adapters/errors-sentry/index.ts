import Joi from 'joi';
import { defineAdapter } from '../../core/contracts/adapter.js';
import type { ErrorReporter } from '../../core/contracts/error-reporter.js';
import type { AppConfig } from '../../core/kernel/config.js';

/** Reports the service's own errors to Sentry (or any Sentry-protocol server) when SENTRY_DSN is set. */
type SentrySdk = typeof import('@sentry/node');

export class SentryErrorReporter implements ErrorReporter {
  readonly identifier = 'errors-sentry';
  private readonly enabled: boolean;

  /**
   * `Sentry` is null without a DSN: @sentry/node takes over a second to import, so `create` only
   * loads it when it will be used (every test process and a service without a DSN skip it).
   */
  constructor(
    sentry: AppConfig['sentry'],
    release: string,
    private readonly Sentry: SentrySdk | null,
  ) {
    this.enabled = Boolean(sentry.dsn) && Sentry !== null;
    if (!this.enabled) return;
    Sentry!.init({
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
      const Sentry = this.Sentry!;
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
    if (this.enabled) await this.Sentry!.flush(timeoutMs).catch(() => false);
  }
}

export default defineAdapter<ErrorReporter>({
  kind: 'errorReporter',
  name: 'errors-sentry',
  optionsSchema: Joi.object({}),
  create: async (_options, deps) => {
    const sentry = (deps.config as AppConfig).sentry;
    const sdk = sentry.dsn ? await import('@sentry/node') : null;
    return new SentryErrorReporter(sentry, process.env.npm_package_version ?? '0.1.0', sdk);
  },
});
