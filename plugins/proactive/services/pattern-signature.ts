import { createHash } from 'node:crypto';
import type { StackFrame } from '../../../core/contracts/index.js';
import { isInApp, maskText, normalizeFile, normalizeFunction, normalizeMessage } from './grouping.js';

/**
 * The problem side of a pattern, free of customer and tenant data: what a pattern stores and what
 * a ticket is matched with. Texts pass three filters: the tenant's own names (customer name and
 * address, organization, workspace, repositories) are replaced, then the masking of error groups
 * (emails, tokens, card numbers), then message normalisation (ids, numbers, quoted values).
 */
export interface ProblemSignature {
  category: string;
  error_type: string | null;
  normalized_message: string;
  frames: Array<{ file: string; function: string }>;
  keywords: string[];
  /** SHA-1 of type, message and frames. */
  signature: string;
  group_fingerprint: string | null;
}

const STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'that',
  'this',
  'from',
  'have',
  'when',
  'what',
  'your',
  'into',
  'there',
  'does',
  'not',
  'are',
  'was',
  'but',
  'can',
  'cannot',
  'after',
  'before',
  'will',
  'would',
  'could',
  'should',
  'they',
  'them',
  'then',
  'than',
  'just',
  'also',
  'some',
  'only',
  'please',
  'thanks',
  'hello',
  'error',
  'errors',
  'null',
  'undefined',
  'str',
  'email',
  'url',
  'uuid',
  'hex',
  'redacted',
  'customer',
  'org',
  'workspace',
  'repository',
  'della',
  'delle',
  'dello',
  'sono',
  'quando',
  'questo',
  'questa',
  'grazie',
  'ciao',
  'non',
  'per',
  'con',
  'che',
]);

/** Replaces the tenant's own names (case-insensitive, longest first) before anything is stored or shared. */
export function scrubber(names: Array<{ value: string | null | undefined; as: string }>): (text: string) => string {
  const list = names
    .filter((n): n is { value: string; as: string } => typeof n.value === 'string' && n.value.trim().length >= 3)
    .sort((a, b) => b.value.length - a.value.length)
    .map((n) => ({ re: new RegExp(n.value.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), as: n.as }));
  return (text) => list.reduce((t, n) => t.replace(n.re, n.as), text);
}

/** Text safe to keep: tenant names replaced, then masked (emails, secrets, card numbers). */
export function safeText(text: string | null | undefined, scrub: (t: string) => string, max: number): string {
  return maskText(scrub(text ?? ''))
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);
}

/** A frame as patterns keep it: the last two path segments of the normalised file (no host, no tenant's directory layout) and the function. */
export function patternFrame(f: StackFrame): { file: string; function: string } {
  return {
    file: normalizeFile(f.file).split('/').filter(Boolean).slice(-2).join('/'),
    function: normalizeFunction(f.function),
  };
}

export function tokensOf(text: string): string[] {
  return (text.toLowerCase().match(/[a-zà-ù][a-zà-ù0-9_]{2,}/g) ?? []).filter((w) => !STOP.has(w));
}

/** Up to 12 keywords, most frequent first. */
export function keywordsOf(...texts: string[]): string[] {
  const counts = new Map<string, number>();
  for (const t of texts) for (const w of tokensOf(t)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 12)
    .map(([w]) => w);
}

export function signatureOf(
  errorType: string | null,
  message: string,
  frames: Array<{ file: string; function: string }>,
): string {
  const h = createHash('sha1').update(`${errorType ?? ''}\n${message}\n`);
  for (const f of frames) h.update(`${f.file}|${f.function}\n`);
  return h.digest('hex');
}

export interface ProblemInput {
  category: string;
  subject: string;
  rootCause: string | null;
  group: { type: string; normalized_message: string; frames: StackFrame[]; fingerprint: string } | null;
  scrub: (t: string) => string;
}

export function problemOf(p: ProblemInput): ProblemSignature {
  const subject = safeText(p.subject, p.scrub, 500);
  const message = normalizeMessage(p.group ? safeText(p.group.normalized_message, p.scrub, 2000) : subject);
  const frames = (p.group?.frames ?? []).filter(isInApp).slice(0, 5).map(patternFrame);
  const errorType = p.group?.type ? p.group.type.slice(0, 200) : null;
  const rootCause = normalizeMessage(safeText(p.rootCause, p.scrub, 4000));
  return {
    category: p.category,
    error_type: errorType,
    normalized_message: message,
    frames,
    keywords: keywordsOf(message, normalizeMessage(subject), rootCause),
    signature: signatureOf(errorType, message, frames),
    group_fingerprint: p.group?.fingerprint ?? null,
  };
}

function jaccard<T>(a: readonly T[], b: readonly T[]): number {
  if (!a.length || !b.length) return 0;
  const sa = new Set(a);
  const sb = new Set(b);
  let inter = 0;
  for (const x of sa) if (sb.has(x)) inter++;
  return inter / (sa.size + sb.size - inter);
}

export interface Scored {
  score: number;
  reasons: string[];
}

/**
 * How well a stored pattern fits a ticket's problem, 0…1. The same error group (same workspace)
 * is 1; the same signature 0.95; otherwise a weighted sum: error type 0.3, message words 0.35,
 * frames 0.2, keywords 0.15 (Jaccard similarities).
 */
export function scorePattern(
  probe: ProblemSignature,
  probeWorkspace: string,
  p: ProblemSignature & { workspace_id: string },
): Scored {
  if (probe.group_fingerprint && p.group_fingerprint === probe.group_fingerprint && p.workspace_id === probeWorkspace)
    return { score: 1, reasons: ['same_error_group'] };
  if (
    p.signature === probe.signature &&
    (probe.error_type || probe.frames.length || probe.normalized_message.length > 10)
  )
    return { score: 0.95, reasons: ['same_signature'] };
  const reasons: string[] = [];
  let score = 0;
  if (probe.error_type && p.error_type === probe.error_type) {
    score += 0.3;
    reasons.push('error_type');
  }
  const words = jaccard(tokensOf(probe.normalized_message), tokensOf(p.normalized_message));
  if (words > 0) {
    score += 0.35 * words;
    reasons.push('message');
  }
  const frames = jaccard(
    probe.frames.map((f) => `${f.file}|${f.function}`),
    p.frames.map((f) => `${f.file}|${f.function}`),
  );
  if (frames > 0) {
    score += 0.2 * frames;
    reasons.push('frames');
  }
  const kw = jaccard(probe.keywords, p.keywords);
  if (kw > 0) {
    score += 0.15 * kw;
    reasons.push('keywords');
  }
  if (reasons.length && probe.category !== 'unknown' && probe.category === p.category) reasons.push('category');
  return { score: Math.round(Math.min(1, score) * 1000) / 1000, reasons };
}
