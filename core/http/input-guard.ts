import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import { httpError } from './errors.js';

/**
 * One rule for every route: text that Postgres cannot store, or stores as something else, never
 * reaches a handler. A NUL character (U+0000) fails any text or jsonb write ("invalid byte
 * sequence", "unsupported Unicode escape sequence": a 500), and an unpaired UTF-16 surrogate is
 * silently turned into U+FFFD on the way out. Both are refused with 400 invalid_request naming
 * the field (details.errors[].path, as joi's answers do), in path parameters, the query,
 * headers, the parsed payload (keys and values), and in JSON bodies that routes read raw
 * (webhooks, ingest: `\u0000` escapes and unpaired `\uD800`-style escapes in the text).
 *
 * Raw bodies that are not JSON (a MIME message, form-encoded code-host deliveries) are the
 * route's to read: `cleanText` gives plugins the same rule for what they take out of them.
 * Telemetry routes (error events) set `plugins.patchwell.cleansText`: an event from production is
 * never lost for a character, so their payload is left to them and they store it cleaned.
 */

const MESSAGE = 'must not contain NUL characters or unpaired surrogates';

type WellFormed = string & { isWellFormed(): boolean };

/** Whether `s` can be stored as it is: no NUL, no unpaired surrogate. */
export function isCleanText(s: string): boolean {
  return !s.includes('\u0000') && (s as WellFormed).isWellFormed();
}

/** `s` made storable: NULs dropped, unpaired surrogates replaced with U+FFFD (for content taken from raw bodies). */
export function cleanText(s: string): string {
  const noNul = s.includes('\u0000') ? s.replaceAll('\u0000', '') : s;
  return (noNul as WellFormed).isWellFormed()
    ? noNul
    : (noNul as WellFormed & { toWellFormed(): string }).toWellFormed();
}

/**
 * The path (dotted, as in joi's details) of the first string or key in `value` that is not
 * clean, or null. Iterative: a deeply nested body must not overflow the stack.
 */
export function findUncleanText(value: unknown, root: string): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isCleanText(v)) return path;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}.${i}`]);
      continue;
    }
    // Plain data only: a stream or a Buffer payload is the route's own business.
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) continue;
    for (const key of Object.keys(v)) {
      const at = `${path}.${key}`;
      if (!isCleanText(key)) return `${path}.${JSON.stringify(key).slice(1, -1)}`;
      stack.push([(v as Record<string, unknown>)[key], at]);
    }
  }
  return null;
}

const BACKSLASH = 0x5c;

function hexAt(buf: Buffer, at: number): number {
  if (at + 4 > buf.length) return -1;
  const n = Number.parseInt(buf.toString('latin1', at, at + 4), 16);
  return Number.isNaN(n) ? -1 : n;
}

/**
 * Whether raw JSON text would parse into clean strings: no NUL byte, no `\u0000` escape and no
 * surrogate escape without its pair. Walks the escapes only (Buffer.indexOf), so a body with
 * none costs one native scan.
 */
export function isCleanJsonText(buf: Buffer): boolean {
  if (buf.indexOf(0) !== -1) return false;
  let i = buf.indexOf(BACKSLASH);
  while (i !== -1) {
    const kind = buf[i + 1];
    if (kind === 0x75 /* u */) {
      const code = hexAt(buf, i + 2);
      if (code === 0) return false;
      if (code >= 0xdc00 && code <= 0xdfff) return false;
      if (code >= 0xd800 && code <= 0xdbff) {
        const pair = buf[i + 6] === BACKSLASH && buf[i + 7] === 0x75 ? hexAt(buf, i + 8) : -1;
        if (pair < 0xdc00 || pair > 0xdfff) return false;
        i = buf.indexOf(BACKSLASH, i + 12);
        continue;
      }
      i = buf.indexOf(BACKSLASH, i + 6);
      continue;
    }
    // Any other escape (\\ included) is two characters.
    i = buf.indexOf(BACKSLASH, i + 2);
  }
  return true;
}

const refuse = (path: string) =>
  httpError(400, 'invalid_request', `${path} ${MESSAGE}`, { errors: [{ path, message: MESSAGE }] });

function isJsonType(request: Request): boolean {
  // Node keeps one Content-Type header, a string (a repeated one is dropped).
  const header = request.headers['content-type'];
  const type = (typeof header === 'string' ? header : '').toLowerCase();
  return type.startsWith('application/json') || /^application\/[a-z0-9.+-]*\+json/.test(type);
}

function cleansText(request: Request): boolean {
  return request.route.settings.plugins?.patchwell?.cleansText === true;
}

/** Registers the rule: path, query and headers before authentication, the payload after it (when hapi has read it). */
export function registerInputGuard(server: Server): void {
  server.ext('onPreAuth', (request: Request, h: ResponseToolkit) => {
    const at =
      findUncleanText(request.params, 'params') ??
      findUncleanText(request.query, 'query') ??
      findUncleanText(request.headers, 'headers');
    if (at) throw refuse(at);
    return h.continue;
  });
  server.ext('onPostAuth', (request: Request, h: ResponseToolkit) => {
    const payload = request.payload as unknown;
    if (payload === null || payload === undefined || cleansText(request)) return h.continue;
    if (Buffer.isBuffer(payload)) {
      if (isJsonType(request) && !isCleanJsonText(payload)) throw refuse('payload');
      return h.continue;
    }
    const at = findUncleanText(payload, 'payload');
    if (at) throw refuse(at);
    return h.continue;
  });
}
