import type { EventLevel, NormalizedEvent } from '../../core/contracts/index.js';
import { MAX_TEXT, framesOfStack, isObj, str, type Obj } from '../connector-common/normalize.js';

/**
 * CloudWatch Logs events (`FilterLogEvents` → `events[] = {eventId, timestamp, message,
 * logStreamName}`) → NormalizedEvent. A message is either a JSON object (structured logs: level
 * in `level`/`severity`/`levelname`/`log.level`, the error in `error`/`err`/`exception` with
 * `type|kind|name`, `message`, `stack`) or text (a Lambda or plain line with `ERROR`/`FATAL`, an
 * `XxxError: message` line, a stack or a Python traceback). Only errors become events; every other
 * line gives null.
 */

const LEVELS: Record<string, EventLevel> = {
  error: 'error',
  err: 'error',
  fatal: 'fatal',
  critical: 'fatal',
  crit: 'fatal',
  alert: 'fatal',
  emergency: 'fatal',
  panic: 'fatal',
};
/** Pino and bunyan write numeric levels: 50 error, 60 fatal. */
const numericLevel = (v: number): EventLevel | null => (v >= 60 ? 'fatal' : v >= 50 ? 'error' : null);

/** The default filter pattern: any of these terms (CloudWatch terms are case-sensitive). */
export const DEFAULT_FILTER_PATTERN = '?ERROR ?FATAL ?CRITICAL ?Error ?Exception ?Traceback ?error ?fatal';

export interface CloudLogEvent {
  eventId?: string;
  timestamp?: number;
  message?: string;
  logStreamName?: string;
}

function levelOfJson(o: Obj): EventLevel | null {
  const log = isObj(o.log) ? o.log : {};
  const raw = o.level ?? o.severity ?? o.levelname ?? o.log_level ?? log.level;
  if (typeof raw === 'number') return numericLevel(raw);
  return typeof raw === 'string' ? (LEVELS[raw.toLowerCase()] ?? null) : null;
}

function fromJson(o: Obj, base: Omit<NormalizedEvent, 'type' | 'message' | 'level'>): NormalizedEvent | null {
  const error = isObj(o.error) ? o.error : isObj(o.err) ? o.err : isObj(o.exception) ? o.exception : {};
  const level = levelOfJson(o) ?? (Object.keys(error).length ? 'error' : null);
  if (!level) return null;
  const message =
    str(error.message) ?? str(o.message) ?? str(o.msg) ?? (typeof o.error === 'string' ? str(o.error) : undefined);
  const type = str(error.type, 200) ?? str(error.kind, 200) ?? str(error.name, 200) ?? str(o.errorType, 200);
  if (!message && !type) return null;
  const out: NormalizedEvent = { ...base, type: type ?? 'Error', message: message ?? '', level };
  const stack =
    str(error.stack, 32_000) ?? (Array.isArray(o.stack) ? str(o.stack.join('\n'), 32_000) : str(o.stack, 32_000));
  if (stack) {
    out.stack = stack;
    const frames = framesOfStack(stack);
    if (frames) out.frames = frames;
  }
  const release = str(o.version, 200) ?? str(o.release, 200);
  if (release) out.release = release;
  const env = str(o.env, 100) ?? str(o.environment, 100);
  if (env) out.environment = env;
  const url = str(o.url, 2_000) ?? (isObj(o.req) ? str(o.req.url, 2_000) : undefined);
  if (url) out.url = url;
  return out;
}

const ERROR_LINE = /(?:^|\s)((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*(?:Error|Exception))(?::\s*(.*))?$/;
const LEVEL_WORD = /(?:^|[\s[\]|])(ERROR|FATAL|CRITICAL)(?:[\s[\]|:]|$)/;

function fromText(text: string, base: Omit<NormalizedEvent, 'type' | 'message' | 'level'>): NormalizedEvent | null {
  const lines = text.split('\n');
  const head = lines[0];
  const word = LEVEL_WORD.exec(head);
  // A Lambda line carries a JSON error after the level: `time\trequest\tERROR\tInvoke Error \t{…}`.
  const brace = head.indexOf('{');
  if (brace >= 0) {
    try {
      const o = JSON.parse(text.slice(text.indexOf('{'))) as unknown;
      if (isObj(o)) {
        const e = fromJson({ level: word ? word[1] : undefined, ...o }, base);
        if (e) return e;
      }
    } catch {
      // not JSON after all
    }
  }
  const pyLast = lines.map((l) => l.trim()).filter(Boolean);
  const traceback = lines.some((l) => l.startsWith('Traceback (most recent call last)'));
  const errorLine = traceback ? pyLast[pyLast.length - 1] : lines.find((l) => ERROR_LINE.test(l.trim()));
  const m = errorLine ? ERROR_LINE.exec(errorLine.trim()) : null;
  if (!word && !m && !traceback) return null;
  const level: EventLevel = word && word[1] !== 'ERROR' ? 'fatal' : 'error';
  let message = m ? (m[2] ?? '') : head.slice(word ? word.index + word[0].length : 0).trim();
  if (!message && !m) message = head.trim();
  const out: NormalizedEvent = {
    ...base,
    type: (m ? m[1] : 'Error').split('.').pop()!.slice(0, 200),
    message: message.slice(0, MAX_TEXT),
    level,
  };
  if (lines.length > 1) {
    out.stack = text.slice(0, 32_000);
    const frames = framesOfStack(text);
    if (frames) out.frames = frames;
  }
  return out;
}

/** One FilterLogEvents event; null when it is not an error. */
export function normalizeCloudLogEvent(e: CloudLogEvent, now: string): NormalizedEvent | null {
  const text = typeof e.message === 'string' ? e.message.trim() : '';
  if (!text) return null;
  const base: Omit<NormalizedEvent, 'type' | 'message' | 'level'> = {
    occurred_at:
      typeof e.timestamp === 'number' && Number.isFinite(e.timestamp) ? new Date(e.timestamp).toISOString() : now,
  };
  if (e.eventId) base.external_id = e.eventId.slice(0, 200);
  if (text.startsWith('{')) {
    try {
      const o = JSON.parse(text) as unknown;
      if (isObj(o)) return fromJson(o, base);
    } catch {
      // a line that only starts like JSON: read it as text
    }
  }
  return fromText(text, base);
}
