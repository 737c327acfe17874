/**
 * Where the service reports its own unexpected errors (not customers' errors: those are events of
 * the proactive plugin). The default is none; `errors-sentry` sends them with @sentry/node.
 */
export interface ErrorReporter {
  /** Identifier, e.g. `errors-sentry`. */
  readonly identifier: string;
  /**
   * Reports one error with context (request id, route, organization). Never throws.
   * @example reporter.capture(err, { requestId: request.info.id, route: '/v1/tickets' })
   */
  capture(error: unknown, context?: Record<string, unknown>): void;
  /** Sends what is buffered; called on shutdown. */
  flush(timeoutMs: number): Promise<void>;
}

/** Used when no reporter is configured: the log line is the report. */
export const noopErrorReporter: ErrorReporter = {
  identifier: 'none',
  capture: () => undefined,
  flush: () => Promise.resolve(),
};
