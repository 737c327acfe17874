import { createHash } from 'node:crypto';
import type { NormalizedEvent, StackFrame } from '../../../core/contracts/index.js';

/**
 * Grouping: an event's fingerprint comes from its explicit fingerprint when the source gave one,
 * else from its type, its in-app frames (normalised file and function, never line numbers) and
 * its normalised message. Pure functions; docs/proactive.md explains the rules.
 */

const MAX_FRAMES = 200;

/**
 * A bounded memo for the per-event work of grouping: files, user keys and fingerprints repeat
 * across events, regexes and hashes need not run again. Cleared whole when full (no LRU
 * bookkeeping on the hot path).
 */
function memo<V>(max: number): { get(k: string): V | undefined; set(k: string, v: V): V } {
  const m = new Map<string, V>();
  return {
    get: (k) => m.get(k),
    set: (k, v) => {
      if (m.size >= max) m.clear();
      m.set(k, v);
      return v;
    },
  };
}
const inAppFiles = memo<boolean>(5_000);
const normalizedFiles = memo<string>(5_000);
const userKeys = memo<string>(10_000);
const fingerprints = memo<string>(10_000);

/** Parses a V8 (`    at fn (file:line:col)`) or Firefox/Safari (`fn@file:line:col`) stack into frames, top first. */
export function parseStack(stack: string | undefined | null): StackFrame[] {
  if (!stack) return [];
  const frames: StackFrame[] = [];
  for (const raw of stack.split('\n')) {
    if (frames.length >= MAX_FRAMES) break;
    const line = raw.trim();
    let m = /^at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (m) {
      frames.push(frame(m[2], m[1], m[3], m[4]));
      continue;
    }
    m = /^at (?:(.+?) \()?([^():]+)\)?$/.exec(line);
    if (m && line.startsWith('at ')) {
      frames.push(frame(m[2], m[1], undefined, undefined));
      continue;
    }
    m = /^(.*?)@(.+?):(\d+):(\d+)$/.exec(line);
    if (m) frames.push(frame(m[2], m[1] || undefined, m[3], m[4]));
  }
  return frames;
}

function frame(file: string, fn: string | undefined, line: string | undefined, col: string | undefined): StackFrame {
  const f: StackFrame = { file: file.replace(/^async /, '') };
  const name = fn
    ?.replace(/^async /, '')
    .replace(/^new /, '')
    .trim();
  if (name) f.function = name;
  if (line !== undefined) f.line = Number(line);
  if (col !== undefined) f.column = Number(col);
  return f;
}

/** Whether a frame is the application's own code (not a dependency, the runtime or an extension). */
export function isInApp(f: StackFrame): boolean {
  if (typeof f.in_app === 'boolean') return f.in_app;
  const file = f.file;
  return inAppFiles.get(file) ?? inAppFiles.set(file, inAppFile(file));
}

function inAppFile(file: string): boolean {
  if (/node_modules|bower_components|\/vendor\/|^node:|^internal\/|<anonymous>|^native$|^\[native code\]/.test(file))
    return false;
  if (/^(chrome|moz|safari(-web)?)-extension:/.test(file)) return false;
  if (/(^|\/)(react-dom|vue|angular|jquery|lodash|zone)(\.production)?(\.min)?\.js/.test(file)) return false;
  return true;
}

/**
 * A file path as grouping sees it: no scheme, host, query, hash, cache-busting hashes or
 * version segments, so one file keeps one name across deploys.
 */
export function normalizeFile(file: string): string {
  return normalizedFiles.get(file) ?? normalizedFiles.set(file, normalizeFileOnce(file));
}

function normalizeFileOnce(file: string): string {
  let f = file
    .replace(/^webpack:\/\/\/?/, '')
    .replace(/^[a-z]+:\/\/[^/]+/i, '')
    .replace(/[?#].*$/, '');
  f = f.replace(/^\/?(\.\/)+/, '/');
  f = f.replace(/([.-])[0-9a-f]{8,}(?=\.[a-z]+$)/i, ''); // app.3f9a1c2b.js → app.js
  f = f.replace(/\/v?\d+\.\d+\.\d+[^/]*\//, '/'); // /1.4.2/ → /
  return f.toLowerCase();
}

/** A function name without anonymous markers or bundler suffixes. */
export function normalizeFunction(fn: string | undefined): string {
  if (!fn) return '?';
  return fn
    .replace(/^Object\./, '')
    .replace(/\$\d+$/, '')
    .replace(/<anonymous>|anonymous/g, '?');
}

/**
 * The message with variable parts replaced: quoted values, emails, URLs, UUIDs, long hex, ids
 * and numbers. `Cannot read 'id' of order 42` and `… of order 97` become the same text.
 */
export function normalizeMessage(message: string): string {
  // Each rule runs only when the text holds the character it needs (the placeholders bring none
  // of them), so plain messages skip most regexes; the result is the same as running them all.
  let m = message.slice(0, 2_000);
  if (/["'`]/.test(m)) m = m.replace(/(["'`])(?:(?!\1).){0,200}\1/g, '<str>');
  if (m.includes('@')) m = m.replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, '<email>');
  if (m.includes('://')) m = m.replace(/\bhttps?:\/\/\S+/g, '<url>');
  const digits = /\d/.test(m);
  if (m.includes('-')) m = m.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>');
  if (digits) {
    m = m.replace(/\b0x[0-9a-f]+\b/gi, '<hex>').replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>');
  }
  if (m.includes('_')) m = m.replace(/\b[a-z]{2,5}_[A-Za-z0-9]{8,}\b/g, '<id>');
  if (digits) m = m.replace(/\b(?=[A-Za-z]*\d)[A-Za-z0-9]{16,}\b/g, '<id>').replace(/\d+(\.\d+)?/g, '<n>');
  return m.replace(/\s+/g, ' ').trim();
}

export interface GroupingInput {
  type: string;
  message: string;
  frames: StackFrame[];
  fingerprint?: string;
}

/** The grouping key of an event (hex SHA-1, 40 characters). */
export function fingerprintOf(e: GroupingInput): string {
  let basis: string;
  if (e.fingerprint) basis = `explicit\n${e.fingerprint}`;
  else {
    basis = `${e.type}\n${normalizeMessage(e.message)}\n`;
    let n = 0;
    for (const f of e.frames) {
      if (n === 5) break;
      if (!isInApp(f)) continue;
      basis += `${normalizeFile(f.file)}|${normalizeFunction(f.function)}\n`;
      n++;
    }
  }
  return fingerprints.get(basis) ?? fingerprints.set(basis, createHash('sha1').update(basis).digest('hex'));
}

/** Frames of an event: those it carries, else parsed from its stack. */
export function framesOfEvent(e: Pick<NormalizedEvent, 'frames' | 'stack'>): StackFrame[] {
  return e.frames?.length ? e.frames : parseStack(e.stack);
}

// ---- masking of sample events

const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;
const BEARER = /\b(bearer|token|api[_-]?key|secret|password|authorization)(["'\s:=]+)([^\s"',;&]{4,})/gi;
const LONG_SECRET = /\b(?:sk|pk|rk|ghp|gho|xox[abp]|AKIA|eyJ)[A-Za-z0-9_\-.]{10,}\b/g;
const CARD = /\b(?:\d[ -]?){12,18}\d\b/g;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Masks e-mail addresses, tokens and secrets, and card numbers (Luhn-valid runs of 13–19 digits). */
export function maskText(text: string): string;
export function maskText(text: string | null | undefined): string | null;
export function maskText(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  return text
    .replace(CARD, (m) => {
      const digits = m.replace(/\D/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhn(digits) ? `**** **** **** ${digits.slice(-4)}` : m;
    })
    .replace(EMAIL, (m) => maskEmail(m))
    .replace(BEARER, (_m, k: string, sep: string) => `${k}${sep}[redacted]`)
    .replace(LONG_SECRET, '[redacted]');
}

/** `jane.doe@example.com` → `j***@e***.com`. */
export function maskEmail(email: string): string {
  const [local, domain = ''] = email.split('@');
  const dot = domain.lastIndexOf('.');
  const host = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${(local ?? '').slice(0, 1)}***@${host.slice(0, 1)}***${tld}`;
}

/** A stable key of the affected user: id, else email, else username, else IP (hashed; never shown). */
export function userKeyOf(user: NormalizedEvent['user']): string | null {
  const basis = user?.id
    ? `id:${user.id}`
    : user?.email
      ? `email:${user.email.toLowerCase()}`
      : user?.username
        ? `u:${user.username}`
        : user?.ip_address
          ? `ip:${user.ip_address}`
          : null;
  if (!basis) return null;
  return userKeys.get(basis) ?? userKeys.set(basis, createHash('sha256').update(basis).digest('hex').slice(0, 32));
}

/** A title for a group: `TypeError: Cannot read properties of undefined`. */
export function titleOf(type: string, message: string): string {
  const first = message.split('\n')[0].trim();
  return (first ? `${type}: ${first}` : type).slice(0, 300);
}

/** Whether a critical path (a URL path prefix or a file/function fragment) matches the event. */
export function criticalPathHit(
  paths: readonly string[],
  url: string | undefined,
  frames: readonly StackFrame[],
): boolean {
  if (!paths.length) return false;
  let path = '';
  if (url) {
    try {
      path = new URL(url, 'http://x').pathname.toLowerCase();
    } catch {
      path = url.toLowerCase();
    }
  }
  return paths.some((raw) => {
    const p = raw.trim().toLowerCase();
    if (!p) return false;
    if (
      p.startsWith('/') &&
      path &&
      (path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`) || path.startsWith(p))
    )
      return true;
    return frames.some((f) => f.file.toLowerCase().includes(p) || (f.function ?? '').toLowerCase().includes(p));
  });
}
