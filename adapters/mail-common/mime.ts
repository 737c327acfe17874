/**
 * Shared by the mail adapters (not an adapter itself): the RFC 5322 message of an OutgoingEmail,
 * built with nodemailer's MailComposer so every provider sends byte-for-byte the same MIME, with
 * real encodings and the threading headers intact.
 */
import type { EmailAddress, OutgoingEmail } from '../../core/contracts/index.js';
import { lazyImport } from '../../core/kernel/lazy.js';

/** MailComposer loads with the first message composed, not at every start (docs/boot.md). */
const loadComposer = lazyImport(async () => (await import('nodemailer/lib/mail-composer/index.js')).default);

export interface ComposedMessage {
  /** The whole message, CRLF line ends. */
  raw: Buffer;
  /** SMTP envelope: the From address and every To and Cc address. */
  envelope: { from: string; to: string[] };
}

// Set from the message's own fields; a same-named entry in `headers` is ignored.
const OWN_FIELDS = new Set([
  'message-id',
  'in-reply-to',
  'references',
  'from',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'subject',
  'date',
]);

const addr = (a: EmailAddress) => (a.name ? { address: a.address, name: a.name } : a.address);

function header(headers: Record<string, string>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === wanted) return v;
  return undefined;
}

/** Builds the message of `email`; `date` defaults to now. */
export async function composeMime(email: OutgoingEmail, date = new Date()): Promise<ComposedMessage> {
  const headers = email.headers ?? {};
  const extra: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!OWN_FIELDS.has(k.toLowerCase()) && v !== undefined) extra[k] = v;
  const references = header(headers, 'References');
  const MailComposer = await loadComposer();
  const composer = new MailComposer({
    from: addr(email.from),
    to: email.to.map(addr),
    ...(email.cc?.length ? { cc: email.cc.map(addr) } : {}),
    ...(email.replyTo ? { replyTo: addr(email.replyTo) } : {}),
    subject: email.subject,
    messageId: email.messageId,
    date,
    ...(header(headers, 'In-Reply-To') ? { inReplyTo: header(headers, 'In-Reply-To') } : {}),
    ...(references ? { references } : {}),
    headers: extra,
    text: email.text,
    ...(email.html ? { html: email.html } : {}),
    attachments: (email.attachments ?? []).map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      ...(a.contentId ? { cid: a.contentId.replace(/^<|>$/g, '') } : {}),
    })),
    // Content comes from the service, never from a path or URL on this machine.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const node = composer.compile();
  return {
    raw: await node.build(),
    envelope: { from: email.from.address, to: [...email.to, ...(email.cc ?? [])].map((a) => a.address) },
  };
}

/** Links in a text (for logs of local adapters, so a developer can click a magic link). */
export function linksIn(text: string): string[] {
  return [...new Set([...text.matchAll(/\bhttps?:\/\/[^\s<>"']+/g)].map((m) => m[0].replace(/[.,;:!?)\]]+$/, '')))];
}
