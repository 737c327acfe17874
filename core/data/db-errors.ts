/** What pg, PGlite and objection's wrapped errors tell of a failed statement (objection keeps the driver's). */
interface DbError {
  code?: string;
  name?: string;
  constraint?: string;
  message?: string;
  nativeError?: { code?: string; constraint?: string; message?: string };
}

/**
 * Whether a statement failed on a unique index (SQLSTATE 23505), from the driver or wrapped by objection; with
 * `constraint`, only on that index (matched against the index name, or the message where a driver gives none).
 */
export function isUniqueViolation(err: unknown, constraint?: RegExp): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as DbError;
  const native = e.nativeError;
  const unique = e.code === '23505' || native?.code === '23505' || e.name === 'UniqueViolationError';
  if (!unique || !constraint) return unique;
  return constraint.test(e.constraint ?? native?.constraint ?? native?.message ?? e.message ?? '');
}
