// One Sentry event (as an SDK sends it, or as Sentry's webhooks and REST API carry it) → NormalizedEvent.
// Shared by connector-error-tracker (webhooks, polling) and connector-endpoint (the Sentry protocol's ingest).
// docs/proactive.md, "Sentry SDK events", has the field mapping.
import {
  EVENT_LEVELS,
  type EventBreadcrumb,
  type EventContext,
  type EventLevel,
  type NormalizedEvent,
  type StackFrame,
} from '../../core/contracts/index.js';
import { isObj, str, type Obj } from './normalize.js';

export interface SentryEventOptions {
  /**
   * Frames of raw SDK events keep `abs_path` when it is a URL (the bundle the line and column refer to, which the
   * symbolicator needs); Sentry-processed events (webhooks, API) are already source-mapped, so `filename` (the
   * original source) comes first there.
   */
  preferUrlPaths?: boolean;
}

/** The longest stack text an event keeps. */
export const MAX_STACK = 32_000;
const MAX_CHAIN = 10;
const MAX_FRAMES = 200;
const MAX_TAGS = 50;
const MAX_BREADCRUMBS = 100;
const MAX_DEBUG_IDS = 100;
const MAX_DATA_KEYS = 20;
const MAX_DATA_TEXT = 500;

const LEVEL_ALIASES: Record<string, EventLevel> = {
  warn: 'warning',
  critical: 'fatal',
  err: 'error',
  log: 'info',
  sample: 'info',
};

export function levelOf(v: unknown): EventLevel {
  const raw = typeof v === 'string' ? v.toLowerCase() : 'error';
  return (EVENT_LEVELS as readonly string[]).includes(raw) ? (raw as EventLevel) : (LEVEL_ALIASES[raw] ?? 'error');
}

/** An ISO date from an ISO string or Unix seconds (float, as SDKs send) or milliseconds; null when neither. */
export function dateOf(v: unknown): string | null {
  let d: Date | null = null;
  if (typeof v === 'number' && Number.isFinite(v)) d = new Date(v < 1e12 ? v * 1000 : v);
  else if (typeof v === 'string' && v) d = /^\d+(\.\d+)?$/.test(v) ? new Date(Number(v) * 1000) : new Date(v);
  // Out-of-range dates are Invalid Date, whose toISOString throws.
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** An event id as Sentry answers it: a UUID as 32 lowercase hex (dashes dropped), so retries match; others as sent. */
export function eventIdOf(v: unknown): string | undefined {
  const id = str(v, 200);
  return id && UUID.test(id) ? id.replace(/-/g, '').toLowerCase() : id;
}

/** Tags come as `{key: value}` (SDKs), `[[key, value]]` (events in webhooks) or `[{key, value}]` (REST API). */
function tagsOf(v: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const add = (k: unknown, val: unknown) => {
    const key = str(k, 200);
    const value = typeof val === 'boolean' ? String(val) : str(val, 200);
    if (key && value !== undefined && out.size < MAX_TAGS) out.set(key, value);
  };
  if (isObj(v)) for (const [k, val] of Object.entries(v)) add(k, val);
  else if (Array.isArray(v))
    for (const t of v) {
      if (Array.isArray(t)) add(t[0], t[1]);
      else if (isObj(t)) add(t.key, t.value);
    }
  return out;
}

/** The exception chain, innermost cause first and the primary exception last (Sentry's order), at most 10. */
function chainOf(e: Obj): Obj[] {
  const valuesOf = (x: unknown): Obj[] => (isObj(x) && Array.isArray(x.values) ? x.values.filter(isObj) : []);
  let values = valuesOf(e.exception);
  if (!values.length && Array.isArray(e.entries)) {
    const entry: unknown = e.entries.find((x) => isObj(x) && x.type === 'exception');
    if (isObj(entry)) values = valuesOf(entry.data);
  }
  return values.slice(-MAX_CHAIN);
}

/** A stack trace without an exception: `stacktrace` (attachStacktrace) or the crashed/current thread's. */
function looseStacktrace(e: Obj): unknown {
  if (isObj(e.stacktrace)) return e.stacktrace;
  const threads = isObj(e.threads) && Array.isArray(e.threads.values) ? e.threads.values.filter(isObj) : [];
  const thread = threads.find((t) => t.crashed === true) ?? threads.find((t) => t.current === true) ?? threads[0];
  return thread?.stacktrace;
}

const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Sentry lists frames caller first; grouping reads the crashing frame first, so they are reversed. */
function framesOf(stacktrace: unknown, opts: SentryEventOptions): StackFrame[] | undefined {
  if (!isObj(stacktrace) || !Array.isArray(stacktrace.frames)) return undefined;
  const frames: StackFrame[] = [];
  for (const f of stacktrace.frames.slice(-MAX_FRAMES)) {
    if (!isObj(f)) continue;
    const absPath = str(f.abs_path, 1000);
    const file =
      (opts.preferUrlPaths && absPath && URL_LIKE.test(absPath) ? absPath : undefined) ??
      str(f.filename, 1000) ??
      absPath ??
      str(f.module, 1000);
    if (!file) continue;
    const frame: StackFrame = { file };
    const fn = str(f.function, 300);
    if (fn) frame.function = fn;
    if (Number.isInteger(f.lineno) && (f.lineno as number) >= 0) frame.line = f.lineno as number;
    if (Number.isInteger(f.colno) && (f.colno as number) >= 0) frame.column = f.colno as number;
    if (typeof f.in_app === 'boolean') frame.in_app = f.in_app;
    frames.push(frame);
  }
  return frames.length ? frames.reverse() : undefined;
}

/** One exception as V8 prints it: `Type: value` and its frames `at fn (file:line:col)`, crashing frame first. */
function exceptionText(exc: Obj, opts: SentryEventOptions): string {
  const type = str(exc.type, 200);
  const value = str(exc.value);
  const lines = [type && value ? `${type}: ${value}` : (type ?? value ?? 'Error')];
  for (const f of framesOf(exc.stacktrace, opts) ?? []) {
    const at = `${f.file}${f.line !== undefined ? `:${f.line}${f.column !== undefined ? `:${f.column}` : ''}` : ''}`;
    lines.push(f.function && f.function !== '?' ? `    at ${f.function} (${at})` : `    at ${at}`);
  }
  return lines.join('\n');
}

/** The whole chain, primary exception first and each cause after it (`Caused by: …`), capped at 32,000 chars. */
function stackOf(chain: Obj[], opts: SentryEventOptions): string | undefined {
  if (!chain.length) return undefined;
  const parts = chain
    .slice()
    .reverse()
    .map((exc, i) => (i === 0 ? '' : 'Caused by: ') + exceptionText(exc, opts));
  return parts.join('\n').slice(0, MAX_STACK);
}

function userOf(v: unknown): NormalizedEvent['user'] {
  if (!isObj(v)) return undefined;
  const ip = str(v.ip_address, 64);
  const user = {
    id: str(v.id, 200),
    email: str(v.email, 320),
    username: str(v.username, 200),
    // `{{auto}}` asks Sentry to take the request's address; it is no address itself.
    ip_address: ip === '{{auto}}' ? undefined : ip,
  };
  const clean = Object.fromEntries(Object.entries(user).filter(([, x]) => x !== undefined));
  return Object.keys(clean).length ? clean : undefined;
}

/**
 * A custom fingerprint, its parts joined. One that names `{{ default }}` extends the default grouping, which is
 * Patchwell's own here: it is left out (undefined) rather than merging every event that shares the extra parts.
 */
function fingerprintOf(v: unknown): string | undefined {
  if (!Array.isArray(v)) return undefined;
  const parts = v.map((p) => (typeof p === 'string' || typeof p === 'number' ? String(p) : '')).filter(Boolean);
  if (!parts.length || parts.some((p) => /^\{\{\s*default\s*\}\}$/.test(p))) return undefined;
  return parts.join(':').slice(0, 500);
}

/** Request headers come as an object or as `[[name, value]]`; the user agent, whatever its case. */
function userAgentOf(headers: unknown): string | undefined {
  const pairs: unknown[][] = Array.isArray(headers)
    ? headers.filter((h): h is unknown[] => Array.isArray(h))
    : isObj(headers)
      ? Object.entries(headers)
      : [];
  const ua = pairs.find((h) => typeof h[0] === 'string' && h[0].toLowerCase() === 'user-agent');
  return ua ? str(ua[1], 500) : undefined;
}

function browserOf(request: Obj, contexts: Obj): NormalizedEvent['browser'] {
  const browser = isObj(contexts.browser) ? contexts.browser : {};
  const os = isObj(contexts.os) ? contexts.os : {};
  const b = {
    user_agent: userAgentOf(request.headers),
    name: str(browser.name, 100),
    version: str(browser.version, 50),
    os: str(os.name, 100),
  };
  const clean = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined));
  return Object.keys(clean).length ? clean : undefined;
}

/** Breadcrumb data kept small: at most 20 keys, texts cut to 500 chars, nested values as cut JSON. */
function smallData(v: unknown): Record<string, unknown> | undefined {
  if (!isObj(v)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v).slice(0, MAX_DATA_KEYS)) {
    if (typeof val === 'string') out[k.slice(0, 100)] = val.slice(0, MAX_DATA_TEXT);
    else if (typeof val === 'number' || typeof val === 'boolean' || val === null) out[k.slice(0, 100)] = val;
    else if (val !== undefined) {
      let text: string | undefined;
      try {
        text = JSON.stringify(val);
      } catch {
        text = undefined;
      }
      if (text !== undefined) out[k.slice(0, 100)] = text.slice(0, MAX_DATA_TEXT);
    }
  }
  return Object.keys(out).length ? out : undefined;
}

/** The last 100 breadcrumbs (`[...]` or `{values: [...]}`), timestamps as ISO. */
function breadcrumbsOf(v: unknown): EventBreadcrumb[] | undefined {
  const list = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.values) ? v.values : [];
  const out: EventBreadcrumb[] = [];
  for (const b of list.slice(-MAX_BREADCRUMBS)) {
    if (!isObj(b)) continue;
    const crumb: EventBreadcrumb = {};
    const timestamp = dateOf(b.timestamp);
    if (timestamp) crumb.timestamp = timestamp;
    const type = str(b.type, 50);
    if (type) crumb.type = type;
    const category = str(b.category, 100);
    if (category) crumb.category = category;
    const level = str(b.level, 20);
    if (level) crumb.level = level;
    const message = str(b.message, 1000);
    if (message) crumb.message = message;
    const data = smallData(b.data);
    if (data) crumb.data = data;
    if (Object.keys(crumb).length) out.push(crumb);
  }
  return out.length ? out : undefined;
}

/** Source-map debug ids by bundle URL (`debug_meta.images` of type `sourcemap`). */
function debugIdsOf(v: unknown): Record<string, string> | undefined {
  const images = isObj(v) && Array.isArray(v.images) ? v.images.filter(isObj) : [];
  const out: Record<string, string> = {};
  let n = 0;
  for (const image of images) {
    if (image.type !== 'sourcemap' || n >= MAX_DEBUG_IDS) continue;
    const file = str(image.code_file, 1000);
    const hex = typeof image.debug_id === 'string' && UUID.test(image.debug_id.trim()) ? image.debug_id : '';
    if (!file || !hex) continue;
    // One form (lower case, hyphens), the one the source-map upload stores.
    const h = hex.trim().replace(/-/g, '').toLowerCase();
    out[file] = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    n++;
  }
  return n ? out : undefined;
}

function contextOf(e: Obj, tags: Map<string, string>): EventContext | undefined {
  const context: EventContext = {};
  if (tags.size) context.tags = Object.fromEntries(tags);
  const breadcrumbs = breadcrumbsOf(e.breadcrumbs);
  if (breadcrumbs) context.breadcrumbs = breadcrumbs;
  const sdk = isObj(e.sdk) ? e.sdk : {};
  const sdkName = str(sdk.name, 100);
  if (sdkName) {
    const version = str(sdk.version, 50);
    context.sdk = version ? { name: sdkName, version } : { name: sdkName };
  }
  const debugIds = debugIdsOf(e.debug_meta);
  if (debugIds) context.debug_ids = debugIds;
  return Object.keys(context).length ? context : undefined;
}

/**
 * One Sentry event; null when it says nothing usable (no exception, no message). Never throws. The primary
 * exception (the last of `exception.values`) gives type, message and frames; `stack` shows the whole chain.
 */
export function normalizeSentryEvent(e: unknown, now: string, opts: SentryEventOptions = {}): NormalizedEvent | null {
  if (!isObj(e)) return null;
  const chain = chainOf(e);
  const exc = chain.length ? chain[chain.length - 1] : null;
  const metadata = isObj(e.metadata) ? e.metadata : {};
  const logentry = isObj(e.logentry) ? e.logentry : isObj(e.message) ? e.message : {};
  const message =
    str(exc?.value) ??
    str(metadata.value) ??
    str(logentry.formatted) ??
    str(e.message) ??
    str(logentry.message) ??
    str(e.title);
  const type = str(exc?.type, 200) ?? str(metadata.type, 200);
  if (!message && !type) return null;
  const tags = tagsOf(e.tags);
  const request = isObj(e.request) ? e.request : {};
  const out: NormalizedEvent = {
    type: type ?? 'Error',
    message: message ?? '',
    level: levelOf(e.level ?? tags.get('level')),
    occurred_at: dateOf(e.datetime) ?? dateOf(e.dateCreated) ?? dateOf(e.timestamp) ?? now,
  };
  const put = <K extends keyof NormalizedEvent>(k: K, v: NormalizedEvent[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  put('external_id', eventIdOf(e.event_id) ?? eventIdOf(e.eventID) ?? str(e.id, 200));
  put('stack', stackOf(chain, opts));
  put('frames', framesOf(exc ? exc.stacktrace : looseStacktrace(e), opts));
  put('url', str(request.url, 2_000) ?? str(tags.get('url'), 2_000));
  const release = isObj(e.release) ? str(e.release.version, 200) : str(e.release, 200);
  put('release', release ?? str(tags.get('release'), 200));
  put('environment', str(e.environment, 100) ?? str(tags.get('environment'), 100));
  put('user', userOf(e.user));
  put('fingerprint', fingerprintOf(e.fingerprint));
  put('browser', browserOf(request, isObj(e.contexts) ? e.contexts : {}));
  put('context', contextOf(e, tags));
  return out;
}
