import type { AppConfig } from '../kernel/config.js';
import type { OutgoingMessage } from './bus.js';

/** The `bus` section of the configuration. */
export type BusConfig = AppConfig['bus'];

/** The part of a pino logger the bus uses; pino's Logger satisfies it. */
export interface BusLog {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const noop = (): void => {};

/** Used when a caller passes no logger, so the bus code never checks for one. */
export const silentLog: BusLog = { debug: noop, info: noop, warn: noop, error: noop };

/** Delay before attempt n+1 after attempt n failed: backoffMs[min(n-1, len-1)] (the last value repeats). */
export function backoffDelay(backoffMs: readonly number[], failedAttempt: number): number {
  if (backoffMs.length === 0) return 0;
  const index = Math.min(Math.max(failedAttempt - 1, 0), backoffMs.length - 1);
  return backoffMs[index] ?? 0;
}

/** Error text kept for operators: the stack when there is one (it starts with the message), bounded in size. */
export function describeError(err: unknown, max = 4000): string {
  const text = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Short one-line error text, for log fields and outbox.last_error. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** timestamptz values arrive as Date from pg and PGlite; tolerate strings too. */
export function toIso(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return new Date(String(value)).toISOString();
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Rejects after `ms` unless `work` settles first; the work itself is not cancelled. */
export async function withTimeout<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads a message envelope that crossed a process boundary (broker body, stored JSON), or null
 * when it is not one; `attempt` is not part of it because it travels separately.
 */
export function readEnvelope(value: unknown): OutgoingMessage | null {
  if (!isRecord(value)) return null;
  const { id, type, orgId, occurredAt, payload } = value;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof occurredAt !== 'string') return null;
  if (orgId !== null && orgId !== undefined && typeof orgId !== 'string') return null;
  return { id, type, orgId: orgId ?? null, occurredAt, payload };
}

/** The JSON form of a message on the wire: what both buses deliver, so payloads behave alike. */
export function envelopeJson(message: OutgoingMessage): string {
  const { id, type, orgId, occurredAt, payload } = message;
  return JSON.stringify({ id, type, orgId, occurredAt, payload });
}
