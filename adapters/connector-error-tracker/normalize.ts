import { EVENT_LEVELS, type EventLevel, type NormalizedEvent, type StackFrame } from '../../core/contracts/index.js';
import { isObj, str, type Obj } from '../connector-common/normalize.js';

/**
 * Sentry-compatible payloads → NormalizedEvent. Three shapes arrive: a full event (webhook
 * `event_alert` → `data.event`, `error` → `data.error`, API `GET …/events/?full=true` items), and
 * an issue (webhook `issue` → `data.issue`). Every event of one tracker issue carries the
 * fingerprint `error-tracker-issue:<issue id>`, so webhook and polled events of one issue fall
 * into one error group (see docs/proactive.md, "connector-error-tracker").
 */

const LEVEL_ALIASES: Record<string, EventLevel> = {
  warn: 'warning',
  critical: 'fatal',
  err: 'error',
  log: 'info',
  sample: 'info',
};

function levelOf(v: unknown): EventLevel {
  const raw = typeof v === 'string' ? v.toLowerCase() : 'error';
  return (EVENT_LEVELS as readonly string[]).includes(raw) ? (raw as EventLevel) : (LEVEL_ALIASES[raw] ?? 'error');
}

/** An ISO date from an ISO string or Unix seconds; null when neither. */
function dateOf(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v < 1e12 ? v * 1000 : v).toISOString();
  if (typeof v === 'string' && v) {
    const asNumber = Number(v);
    const d = Number.isFinite(asNumber) && /^\d+(\.\d+)?$/.test(v) ? new Date(asNumber * 1000) : new Date(v);
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }
  return null;
}

/** Tags come as `[[key, value]]` (events in webhooks) or `[{key, value}]` (REST API). */
function tagsOf(v: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(v)) return out;
  for (const t of v) {
    if (Array.isArray(t) && typeof t[0] === 'string' && typeof t[1] === 'string') out.set(t[0], t[1]);
    else if (isObj(t) && typeof t.key === 'string' && typeof t.value === 'string') out.set(t.key, t.value);
  }
  return out;
}

/** The primary exception: the last of `exception.values` (webhooks) or of the API's exception entry. */
function exceptionOf(e: Obj): Obj | null {
  const fromValues = (x: unknown): Obj | null => {
    const values = isObj(x) && Array.isArray(x.values) ? x.values.filter(isObj) : [];
    return values.length ? values[values.length - 1]! : null;
  };
  const direct = fromValues(e.exception);
  if (direct) return direct;
  if (Array.isArray(e.entries)) {
    const entry = e.entries.find((x) => isObj(x) && x.type === 'exception') as Obj | undefined;
    if (entry) return fromValues(entry.data);
  }
  return null;
}

/** Sentry lists frames caller first; grouping reads the crashing frame first, so they are reversed. */
function framesOf(exc: Obj | null): StackFrame[] | undefined {
  const st = exc && isObj(exc.stacktrace) ? exc.stacktrace : null;
  if (!st || !Array.isArray(st.frames)) return undefined;
  const frames: StackFrame[] = [];
  for (const f of st.frames.slice(-200)) {
    if (!isObj(f)) continue;
    const file = str(f.filename, 1000) ?? str(f.abs_path, 1000) ?? str(f.module, 1000);
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

function userOf(v: unknown): NormalizedEvent['user'] {
  if (!isObj(v)) return undefined;
  const user = {
    id: str(v.id, 200),
    email: str(v.email, 320),
    username: str(v.username, 200),
    ip_address: str(v.ip_address, 64),
  };
  const clean = Object.fromEntries(Object.entries(user).filter(([, x]) => x !== undefined));
  return Object.keys(clean).length ? clean : undefined;
}

/** A custom fingerprint (anything but Sentry's `{{ default }}`) wins; else the tracker's issue id. */
function fingerprintOf(e: Obj, issueId: string | undefined): string | undefined {
  if (Array.isArray(e.fingerprint)) {
    const parts = e.fingerprint.map(String).filter((p) => p && p !== '{{ default }}' && p !== '{{default}}');
    if (parts.length) return parts.join(':').slice(0, 500);
  }
  return issueId ? `error-tracker-issue:${issueId}` : undefined;
}

/** One full tracker event; null when it says nothing usable (no message, no exception). */
export function normalizeTrackerEvent(e: unknown, now: string): NormalizedEvent | null {
  if (!isObj(e)) return null;
  const exc = exceptionOf(e);
  const metadata = isObj(e.metadata) ? e.metadata : {};
  const logentry = isObj(e.logentry) ? e.logentry : isObj(e.message) ? e.message : {};
  const message = str(exc?.value) ?? str(metadata.value) ?? str(logentry.formatted) ?? str(e.message) ?? str(e.title);
  const type = str(exc?.type, 200) ?? str(metadata.type, 200);
  if (!message && !type) return null;
  const tags = tagsOf(e.tags);
  const issueId = str(e.issue_id, 100) ?? str(e.groupID, 100) ?? str(e.group_id, 100);
  const request = isObj(e.request) ? e.request : {};
  const contexts = isObj(e.contexts) ? e.contexts : {};
  const out: NormalizedEvent = {
    type: type ?? 'Error',
    message: message ?? '',
    level: levelOf(e.level ?? tags.get('level')),
    occurred_at: dateOf(e.datetime) ?? dateOf(e.dateCreated) ?? dateOf(e.timestamp) ?? now,
  };
  const put = <K extends keyof NormalizedEvent>(k: K, v: NormalizedEvent[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  put('external_id', str(e.event_id, 200) ?? str(e.eventID, 200) ?? str(e.id, 200));
  put('frames', framesOf(exc));
  put('url', str(request.url, 2_000) ?? str(tags.get('url'), 2_000));
  const release = isObj(e.release) ? str(e.release.version, 200) : str(e.release, 200);
  put('release', release ?? str(tags.get('release'), 200));
  put('environment', str(e.environment, 100) ?? str(tags.get('environment'), 100));
  put('user', userOf(e.user));
  put('fingerprint', fingerprintOf(e, issueId));
  const browser = isObj(contexts.browser) ? contexts.browser : {};
  const os = isObj(contexts.os) ? contexts.os : {};
  const headers = Array.isArray(request.headers)
    ? new Map(
        request.headers
          .filter((h): h is [string, string] => Array.isArray(h) && typeof h[1] === 'string')
          .map((h) => [String(h[0]).toLowerCase(), h[1]]),
      )
    : new Map<string, string>();
  const b = {
    user_agent: str(headers.get('user-agent'), 500),
    name: str(browser.name, 100),
    version: str(browser.version, 50),
    os: str(os.name, 100),
  };
  const cleanBrowser = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined));
  if (Object.keys(cleanBrowser).length) out.browser = cleanBrowser;
  return out;
}

/** A tracker issue (webhook `issue`, action `created` or `unresolved`) as one event of its group. */
export function normalizeTrackerIssue(issue: unknown, action: string, now: string): NormalizedEvent | null {
  if (!isObj(issue)) return null;
  const id = str(issue.id, 100);
  if (!id) return null;
  const metadata = isObj(issue.metadata) ? issue.metadata : {};
  const message = str(metadata.value) ?? str(issue.title) ?? '';
  const occurred = dateOf(issue.lastSeen) ?? dateOf(issue.firstSeen) ?? now;
  const out: NormalizedEvent = {
    external_id: action === 'created' ? `issue:${id}` : `issue:${id}:${action}:${occurred}`,
    type: str(metadata.type, 200) ?? 'Error',
    message,
    level: levelOf(issue.level),
    occurred_at: occurred,
    fingerprint: `error-tracker-issue:${id}`,
  };
  const file = str(metadata.filename, 1000);
  if (file)
    out.frames = [
      { file, ...(str(metadata.function, 300) ? { function: str(metadata.function, 300)! } : {}), in_app: true },
    ];
  return out;
}

/**
 * A webhook body (after its signature was checked) → events. Resources without error events
 * (installation, metric_alert, comment) and issue actions other than created/unresolved give [].
 */
export function normalizeWebhookBody(body: unknown, now: string): NormalizedEvent[] | null {
  if (!isObj(body) || !isObj(body.data)) return null;
  const data = body.data;
  const action = typeof body.action === 'string' ? body.action : '';
  if (isObj(data.event)) return [normalizeTrackerEvent(data.event, now)].filter((e): e is NormalizedEvent => !!e);
  if (isObj(data.error)) return [normalizeTrackerEvent(data.error, now)].filter((e): e is NormalizedEvent => !!e);
  if (isObj(data.issue)) {
    if (action !== 'created' && action !== 'unresolved') return [];
    return [normalizeTrackerIssue(data.issue, action, now)].filter((e): e is NormalizedEvent => !!e);
  }
  return [];
}

/** The `next` cursor of a Link header (`<…>; rel="next"; results="true"; cursor="0:100:0"`), or null at the end. */
export function nextCursorOf(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(/,(?=\s*<)/)) {
    if (!/rel="?next"?/.test(part)) continue;
    if (/results="?false"?/.test(part)) return null;
    const m = /cursor="([^"]+)"/.exec(part);
    if (m) return m[1]!;
    const url = /<([^>]+)>/.exec(part);
    if (url) {
      try {
        return new URL(url[1]!).searchParams.get('cursor');
      } catch {
        return null;
      }
    }
  }
  return null;
}
