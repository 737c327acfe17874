import { createHash } from 'node:crypto';
import type { AddressObject, HeaderValue, ParsedMail, StructuredHeader } from 'mailparser';
import { cleanText } from '../../../core/http/input-guard.js';
import { lazyImport } from '../../../core/kernel/lazy.js';

export interface Mailbox {
  address: string;
  name: string | null;
}

export interface MessageAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  contentId: string | null;
  inline: boolean;
}

/**
 * What the inbox reads of one RFC 5322 message: the parsed fields, every top-level header as
 * lower-case name → raw values, and the parts a delivery report carries.
 */
export interface MessageFacts {
  from: Mailbox | null;
  replyTo: Mailbox | null;
  to: Mailbox[];
  cc: Mailbox[];
  subject: string;
  /** With angle brackets, or null. */
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  date: Date | null;
  /** Top-level headers, lower-case names, values as received (unfolded). */
  headers: Map<string, string[]>;
  /** `multipart/report` etc., lower case. */
  contentType: string;
  /** The `report-type` parameter of a multipart/report, lower case. */
  reportType: string | null;
  text: string;
  html: string | null;
  /** The raw body (after the header block), at most 20,000 characters: checks fall back to it when a malformed message gives no text. */
  rawBody: string;
  /** Real attachments (parts of a delivery report are in `reportParts`). */
  attachments: MessageAttachment[];
  /** Parts of a delivery report: content type → text (message/delivery-status, message/rfc822, text/rfc822-headers …). */
  reportParts: { contentType: string; text: string }[];
  /** SHA-256 of the raw message, hex. */
  rawHash: string;
  size: number;
}

const REPORT_PART =
  /^(message\/(delivery-status|global-delivery-status|rfc822|global|feedback-report|disposition-notification|global-headers)|text\/rfc822-headers)$/;

/** Drops an mbox `From ` separator line some stores keep in front of the message. */
export function stripMboxLine(raw: Buffer): Buffer {
  if (raw.length > 5 && raw.subarray(0, 5).toString('latin1') === 'From ') {
    const nl = raw.indexOf(0x0a);
    if (nl > 0) return raw.subarray(nl + 1);
  }
  return raw;
}

const addrList = (v: AddressObject | AddressObject[] | undefined): Mailbox[] =>
  (Array.isArray(v) ? v : v ? [v] : [])
    .flatMap((a) => a.value.flatMap((e) => (e.group ? e.group : [e])))
    .filter((e) => !!e.address)
    .map((e) => ({ address: e.address!.trim().toLowerCase(), name: e.name?.trim() || null }));

function headerText(v: HeaderValue): string[] {
  if (typeof v === 'string') return [v];
  if (v instanceof Date) return [v.toISOString()];
  if (Array.isArray(v)) return v.flatMap((x) => (typeof x === 'string' ? [x] : [(x as StructuredHeader).value]));
  if ('text' in v && typeof (v as AddressObject).text === 'string') return [(v as AddressObject).text];
  if ('value' in v && typeof (v as StructuredHeader).value === 'string') return [(v as StructuredHeader).value];
  return [];
}

/** Top-level header lines, unfolded, by lower-case name (several lines of one name kept in order). */
function rawHeaders(parsed: ParsedMail): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { key, line } of parsed.headerLines) {
    const colon = line.indexOf(':');
    const value = (colon >= 0 ? line.slice(colon + 1) : line).replace(/\r?\n[ \t]+/g, ' ').trim();
    out.set(key.toLowerCase(), [...(out.get(key.toLowerCase()) ?? []), value]);
  }
  // Decoded values for encoded words (Subject etc.) are in parsed.headers; prefer them for text headers.
  for (const [key, value] of parsed.headers) {
    if (key === 'subject' || key === 'x-autoreply' || key === 'x-autorespond') out.set(key, headerText(value));
  }
  return out;
}

const ids = (v: string | string[] | undefined): string[] =>
  (Array.isArray(v) ? v : v ? [v] : []).flatMap(
    (s) => s.match(/<[^<>\s]+>/g) ?? (s.trim() ? [`<${s.trim().replace(/^<|>$/g, '')}>`] : []),
  );

// Loaded with the first message, not at start: mailparser and its encodings are a third of a second of every boot.
// Once: an `import()` per message resolves the module again each time (through the loader's hooks thread under tsx).
const loadMailparser = lazyImport(() => import('mailparser'));

/** Parses one raw message with mailparser into MessageFacts. */
export async function readMessage(rawInput: Buffer | Uint8Array): Promise<MessageFacts> {
  // bytea columns come back as a Uint8Array from some drivers (PGlite).
  const raw = stripMboxLine(Buffer.isBuffer(rawInput) ? rawInput : Buffer.from(rawInput));
  const { simpleParser } = await loadMailparser();
  const parsed = await simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true });
  const ct = parsed.headers.get('content-type') as StructuredHeader | undefined;
  const contentType = (ct?.value ?? 'text/plain').toLowerCase();
  const reportType =
    contentType === 'multipart/report' ? (ct?.params?.['report-type'] ?? '').toLowerCase() || null : null;

  const attachments: MessageAttachment[] = [];
  const reportParts: MessageFacts['reportParts'] = [];
  for (const a of parsed.attachments) {
    const type = (a.contentType ?? 'application/octet-stream').toLowerCase();
    if (REPORT_PART.test(type)) {
      reportParts.push({ contentType: type, text: a.content.toString('utf8').slice(0, 64 * 1024) });
      // A report's parts are not attachments; a message forwarded as an attachment is.
      if (reportType || !/^message\/(rfc822|global)$/.test(type)) continue;
    }
    attachments.push({
      filename: a.filename || `attachment${attachments.length + 1}`,
      contentType: type,
      content: a.content,
      contentId: a.cid ? `<${a.cid.replace(/^<|>$/g, '')}>` : null,
      inline: a.contentDisposition === 'inline' && !!a.cid,
    });
  }
  const from = addrList(parsed.from)[0] ?? null;
  const inReplyTo = ids(parsed.inReplyTo)[0] ?? null;
  // Text Postgres cannot store (NULs, unpaired surrogates) is dropped here, once, for every reader.
  return storable({
    from,
    replyTo: addrList(parsed.replyTo)[0] ?? null,
    to: addrList(parsed.to),
    cc: addrList(parsed.cc),
    subject: (parsed.subject ?? '').replace(/\s+/g, ' ').trim(),
    messageId: ids(parsed.messageId)[0] ?? null,
    inReplyTo,
    references: ids(parsed.references),
    date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date : null,
    headers: rawHeaders(parsed),
    contentType,
    reportType,
    text: (parsed.text ?? '').replace(/\r\n/g, '\n'),
    html: typeof parsed.html === 'string' ? parsed.html : null,
    rawBody: rawBodyOf(raw),
    attachments,
    reportParts,
    rawHash: createHash('sha256').update(raw).digest('hex'),
    size: raw.length,
  });
}

/** Every string of parsed facts made storable (core/http/input-guard.ts); bytes and dates as they are. */
function storable<T>(v: T): T {
  if (typeof v === 'string') return cleanText(v) as T;
  if (Array.isArray(v)) return v.map(storable) as T;
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [storable(k), storable(x)])) as T;
  if (!v || typeof v !== 'object' || Buffer.isBuffer(v) || v instanceof Date || v instanceof Uint8Array) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, storable(x)])) as T;
}

function rawBodyOf(raw: Buffer): string {
  const head = raw.subarray(0, 256 * 1024).toString('latin1');
  const end = head.search(/\r?\n\r?\n/);
  return end < 0 ? '' : head.slice(end).trim().slice(0, 20_000);
}

/** The first value of a header, or ''. */
export const header = (facts: MessageFacts, name: string): string => facts.headers.get(name)?.[0] ?? '';

/** Every value of a header. */
export const headers = (facts: MessageFacts, name: string): string[] => facts.headers.get(name) ?? [];

/**
 * What the loop check compares: the normalized subject and the text without quoted lines, so a
 * robot answering the same words again and again matches, and a person writing again does not.
 */
export function contentKey(f: Pick<MessageFacts, 'subject' | 'text'>): string {
  const text = f.text
    .split('\n')
    .filter((l) => !/^\s*>/.test(l) && !/^\s*(on .+ wrote:|il .+ ha scritto:)\s*$/i.test(l))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 2000)
    .toLowerCase();
  return createHash('sha256')
    .update(`${normalizeSubject(f.subject)}\n${text}`)
    .digest('hex')
    .slice(0, 32);
}

/** `Re: Fwd: Login fails` → `login fails`. */
export function normalizeSubject(subject: string): string {
  let s = subject.toLowerCase().trim();
  for (;;) {
    const next = s.replace(/^\s*((re|r|aw|sv|fw|fwd|i|rif|inoltro|wg)\s*(\[\d+\])?\s*:\s*)/i, '').trim();
    if (next === s) break;
    s = next;
  }
  return s.replace(/\s+/g, ' ').slice(0, 200);
}
