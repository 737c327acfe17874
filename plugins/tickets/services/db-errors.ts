/** Whether a database error (raw pg, or wrapped by objection's db-errors) is a unique violation. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; name?: string; nativeError?: { code?: string } } | null;
  return !!e && (e.code === '23505' || e.nativeError?.code === '23505' || e.name === 'UniqueViolationError');
}
