import Joi from 'joi';
import {
  AbstractConnectorAdapter,
  EVENT_LEVELS,
  PayloadError,
  adapterModule,
  connectorAdapterOptionKeys,
  headerValue,
  safeEqual,
  type ConnectorAdapterOptions,
  type ConnectorSecretName,
  type ConnectorSettings,
  type ConnectorTestResult,
  type EventLevel,
  type NormalizedEvent,
  type RawHeaders,
  type SentryPush,
  type StackFrame,
} from '../../core/contracts/index.js';
import { hashToken } from '../../core/security/tokens.js';
import { readEnvelope, readStore } from './sentry.js';

export interface EndpointOptions extends ConnectorAdapterOptions {
  /** Most events one request may carry (generic body, or error events of one Sentry envelope). */
  maxEventsPerRequest: number;
  /** Most items of any type one Sentry envelope may carry. */
  maxEnvelopeItems: number;
}

const LEVEL_ALIASES: Record<string, EventLevel> = {
  warn: 'warning',
  critical: 'fatal',
  err: 'error',
  information: 'info',
  trace: 'debug',
};
const MAX_TEXT = 8_000;
const MAX_STACK = 32_000;

/**
 * The offline default log source: `POST /v1/ingest/{connectorId}` with `Authorization: Bearer
 * <token>`. The service issues the token (shown once, rotatable) and keeps only its SHA-256, so
 * the connector takes no secret from the user; verifyPush compares hashes in constant time.
 * The body is one event or an array of events in the generic shape
 * `{type, message, level, stack, url, release, environment, user, occurred_at, fingerprint}`
 * (plus optional external_id, frames, browser). The same connector takes the Sentry SDKs' bodies
 * (`normalizeSentry`, sentry.ts) once the service has checked their DSN key.
 */
export class EndpointConnectorAdapter extends AbstractConnectorAdapter<EndpointOptions> {
  static override identifier = 'connector-endpoint';
  static override optionsSchema = Joi.object<EndpointOptions>({
    ...connectorAdapterOptionKeys,
    maxEventsPerRequest: Joi.number().integer().min(1).max(1000).default(100),
    maxEnvelopeItems: Joi.number().integer().min(1).max(10_000).default(1000),
  });

  readonly kind = 'endpoint' as const;
  readonly secretNames: readonly ConnectorSecretName[] = [];

  test(settings: ConnectorSettings): Promise<ConnectorTestResult> {
    return Promise.resolve(this.pushOnlyTestResult(settings));
  }

  verifyPush(headers: RawHeaders, _rawBody: Buffer, settings: ConnectorSettings): boolean {
    if (!settings.tokenHash) return false;
    const auth = (headerValue(headers, 'authorization') ?? '').trim();
    const m = /^Bearer\s+([A-Za-z0-9_.~+/=-]{16,200})$/i.exec(auth);
    if (!m) return false;
    return safeEqual(hashToken(m[1]), settings.tokenHash);
  }

  normalizePush(body: unknown): NormalizedEvent[] {
    const items = Array.isArray(body) ? body : [body];
    if (items.length > this.options.maxEventsPerRequest)
      throw new PayloadError(`at most ${this.options.maxEventsPerRequest} events per request`);
    const now = new Date().toISOString();
    return items.map((item, i) => normalizeGeneric(item, i, now));
  }

  normalizeSentry(format: 'envelope' | 'store', body: Buffer, _settings?: ConnectorSettings): SentryPush {
    const now = new Date().toISOString();
    if (format === 'store') return readStore(body, now);
    return readEnvelope(
      body,
      { maxEvents: this.options.maxEventsPerRequest, maxItems: this.options.maxEnvelopeItems },
      now,
    );
  }
}

const str = (v: unknown, max = MAX_TEXT): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.slice(0, max) : undefined;

/** One event of the generic ingest shape; a PayloadError names the index and field of a problem. */
export function normalizeGeneric(item: unknown, index: number, now: string): NormalizedEvent {
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    throw new PayloadError(`event ${index}: an event is an object`);
  const e = item as Record<string, unknown>;
  const message = typeof e.message === 'string' ? e.message.slice(0, MAX_TEXT) : undefined;
  if (message === undefined || (message.trim() === '' && !str(e.type)))
    throw new PayloadError(`event ${index}: message is required`);
  let occurred = now;
  if (e.occurred_at !== undefined) {
    const d =
      typeof e.occurred_at === 'string' || typeof e.occurred_at === 'number' ? new Date(e.occurred_at) : new Date(NaN);
    if (Number.isNaN(d.getTime())) throw new PayloadError(`event ${index}: occurred_at is not a date-time`);
    occurred = d.toISOString();
  }
  const rawLevel = typeof e.level === 'string' ? e.level.toLowerCase() : 'error';
  const level = (EVENT_LEVELS as readonly string[]).includes(rawLevel)
    ? (rawLevel as EventLevel)
    : (LEVEL_ALIASES[rawLevel] ?? 'error');
  const out: NormalizedEvent = { type: str(e.type, 200) ?? 'Error', message, level, occurred_at: occurred };
  const put = <K extends keyof NormalizedEvent>(k: K, v: NormalizedEvent[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  put('external_id', str(e.external_id, 200) ?? str(e.id, 200));
  put('stack', str(e.stack, MAX_STACK));
  put('url', str(e.url, 2_000));
  put('release', str(e.release, 200));
  put('environment', str(e.environment, 100));
  put(
    'fingerprint',
    str(e.fingerprint, 500) ??
      (Array.isArray(e.fingerprint) ? str(e.fingerprint.map(String).join(':'), 500) : undefined),
  );
  put('user', userOf(e.user));
  put('frames', framesOf(e.frames));
  const browser = e.browser && typeof e.browser === 'object' ? (e.browser as Record<string, unknown>) : null;
  if (browser) {
    const b = {
      user_agent: str(browser.user_agent, 500),
      name: str(browser.name, 100),
      version: str(browser.version, 50),
      os: str(browser.os, 100),
    };
    const clean = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined));
    if (Object.keys(clean).length) out.browser = clean;
  }
  return out;
}

function userOf(v: unknown): NormalizedEvent['user'] {
  if (typeof v === 'string' && v.trim()) return { id: v.slice(0, 200) };
  if (!v || typeof v !== 'object') return undefined;
  const u = v as Record<string, unknown>;
  const user = {
    id: str(u.id, 200) ?? (typeof u.id === 'number' ? String(u.id) : undefined),
    email: str(u.email, 320),
    username: str(u.username, 200),
    ip_address: str(u.ip_address, 64),
  };
  const clean = Object.fromEntries(Object.entries(user).filter(([, x]) => x !== undefined));
  return Object.keys(clean).length ? clean : undefined;
}

function framesOf(v: unknown): StackFrame[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const frames: StackFrame[] = [];
  for (const f of v.slice(0, 200)) {
    if (!f || typeof f !== 'object') continue;
    const r = f as Record<string, unknown>;
    const file = str(r.file, 1000) ?? str(r.filename, 1000) ?? str(r.abs_path, 1000);
    if (!file) continue;
    const frame: StackFrame = { file };
    const fn = str(r.function, 300);
    if (fn) frame.function = fn;
    const line = Number(r.line ?? r.lineno);
    if (Number.isInteger(line) && line >= 0) frame.line = line;
    const column = Number(r.column ?? r.colno);
    if (Number.isInteger(column) && column >= 0) frame.column = column;
    if (typeof r.in_app === 'boolean') frame.in_app = r.in_app;
    frames.push(frame);
  }
  return frames.length ? frames : undefined;
}

export default adapterModule('connector', EndpointConnectorAdapter);
