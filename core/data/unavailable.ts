/**
 * SQLSTATEs and socket errors of a database that is gone for a moment (restart, failover, pooler
 * reload): class 08 connection exceptions, 57P01–57P03 (shutdown, crash, starting up), 53300 (too many
 * connections). The HTTP envelope answers them 503 with Retry-After (core/http/errors.ts): nothing is wrong with
 * the request; a consumer can likewise retry them without spending an attempt.
 */
const DB_GONE_CODES = new Set(['57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const DB_GONE_MESSAGES =
  /(Connection terminated|Client has encountered a connection error|Timeout acquiring a connection)/;

/** Whether an error (or what it wraps: objection's nativeError, a cause) says the database is unreachable. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; nativeError?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && (DB_GONE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  if (e.name === 'KnexTimeoutError') return true;
  if (typeof e.message === 'string' && DB_GONE_MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.nativeError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}
