import type { EventLevel, NormalizedEvent } from '../../core/contracts/index.js';
import { framesOfStack, isObj, str } from '../connector-common/normalize.js';

/**
 * Datadog-style log search results (`POST /api/v2/logs/events/search`, `data[]`) → NormalizedEvent.
 * Only error-level logs become events: statuses `error`, `critical`, `alert`, `emergency` (and
 * their short forms); everything else gives null. The error itself comes from the standard
 * attributes `error.kind`, `error.message`, `error.stack`; frames are parsed from the stack
 * (V8 `at fn (file:line:col)` and Python `File "f", line n, in fn`).
 */

/** Log statuses that are errors, and the event level each becomes. */
const ERROR_STATUSES: Record<string, EventLevel> = {
  error: 'error',
  err: 'error',
  critical: 'fatal',
  crit: 'fatal',
  alert: 'fatal',
  emergency: 'fatal',
  emerg: 'fatal',
  fatal: 'fatal',
};

/** The search query part that keeps error-level logs only. */
export const ERROR_STATUS_QUERY = 'status:(error OR critical OR alert OR emergency)';

/** The level of an error-level status; null for any other status. */
export function errorLevelOf(status: unknown): EventLevel | null {
  return typeof status === 'string' ? (ERROR_STATUSES[status.toLowerCase()] ?? null) : null;
}

/** `key:value` tags into a map (first value wins). */
function tagsOf(v: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(v)) return out;
  for (const t of v) {
    if (typeof t !== 'string') continue;
    const i = t.indexOf(':');
    if (i > 0 && !out.has(t.slice(0, i))) out.set(t.slice(0, i), t.slice(i + 1));
  }
  return out;
}

function dateOf(v: unknown): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** One item of `data[]`; null when it is not an error-level log or says nothing usable. */
export function normalizeLog(item: unknown, now: string): NormalizedEvent | null {
  if (!isObj(item) || !isObj(item.attributes)) return null;
  const a = item.attributes;
  const level = errorLevelOf(a.status);
  if (!level) return null;
  const custom = isObj(a.attributes) ? a.attributes : {};
  const error = isObj(custom.error) ? custom.error : {};
  const message = str(error.message) ?? str(a.message) ?? str(custom.message);
  const type = str(error.kind, 200);
  if (!message && !type) return null;
  const tags = tagsOf(a.tags);
  const out: NormalizedEvent = {
    type: type ?? 'Error',
    message: message ?? '',
    level,
    occurred_at: dateOf(a.timestamp) ?? now,
  };
  const put = <K extends keyof NormalizedEvent>(k: K, v: NormalizedEvent[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  put('external_id', str(item.id, 200));
  const stack = str(error.stack, 32_000);
  put('stack', stack);
  put('frames', framesOfStack(stack));
  const http = isObj(custom.http) ? custom.http : {};
  put('url', str(http.url, 2_000));
  put('release', str(custom.version, 200) ?? str(tags.get('version'), 200));
  put('environment', str(custom.env, 100) ?? str(tags.get('env'), 100));
  const usr = isObj(custom.usr) ? custom.usr : {};
  const user = Object.fromEntries(
    Object.entries({
      id: str(usr.id, 200),
      email: str(usr.email, 320),
      username: str(usr.name, 200),
      ip_address: str(isObj(custom.network) && isObj(custom.network.client) ? custom.network.client.ip : undefined, 64),
    }).filter(([, v]) => v !== undefined),
  );
  if (Object.keys(user).length) out.user = user;
  put('fingerprint', str(error.fingerprint, 500));
  const ua = str(http.useragent, 500);
  if (ua) out.browser = { user_agent: ua };
  return out;
}
