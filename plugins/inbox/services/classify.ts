/**
 * Pure checks of one message's headers and structure: bounces, auto-replies, mailing lists,
 * no-reply senders, our own mail coming back, forwarding confirmations and forwarding tests.
 * Each answers the signal that fired (a short snake_case token stored in InboundEmail.signals),
 * or null. The order in which the pipeline applies them is in docs/inbox.md.
 */
import { header, headers, type MessageFacts } from './mime.js';

// ---------------------------------------------------------------------------------------------
// Bounces (RFC 3464 DSN, RFC 5965 ARF, and the formats of MTAs that send neither)

const BOUNCE_SENDER =
  /^(mailer-daemon|mail-daemon|maildaemon|postmaster|post_master|mail\.?delivery\.?(system|subsystem)?|double-bounce|bounce|bounces|mdaemon|nobody-bounce|[a-z0-9._-]+-admin|owner-[a-z0-9._-]+)$/i;
const BOUNCE_NAME =
  /^(mail delivery (subsystem|system|service)|mailer[- ]daemon|postmaster|mail administrator|microsoft outlook|system administrator|mail system|internet mail delivery)$/i;
const BOUNCE_SUBJECT = new RegExp(
  [
    'undeliver(ed|able)',
    'undelivered mail',
    'delivery (status notification|failure|failed|has failed|notification|problem|report|incomplete)',
    'mail delivery (failed|failure|error|problem)',
    'returned (mail|to sender)',
    'failure notice',
    'non[- ]?delivery',
    'nondeliverable',
    'message (not delivered|could not be delivered|delivery failed|undeliverable|status)',
    'could not send message',
    'mail system error',
    'delivery failure',
    'rejected:? ',
    "mail (could not|couldn't) be delivered",
    'unable to deliver',
    'permanent error',
    'notice of (non-?)?delivery',
    'delayed mail',
    'warning: (could not send|message .* delayed)',
    'message you sent .* (blocked|rejected)',
    'error sending message',
    'bounced mail',
    'mail failure',
    'address not found',
    'delivery notification',
    'error sending your (mail|message)',
    'loop alert',
    'complaint about message',
    'unzustellbar',
    'nicht zustellbar',
    'non remis',
    'no entregado',
    // Italian
    'non recapitabile',
    'mancato recapito',
    'impossibile recapitare',
    'messaggio non recapitato',
    'avviso di mancata consegna',
    'errore di consegna',
  ].join('|'),
  'i',
);
const BOUNCE_BODY =
  /(this is the mail system at host|i'm sorry to have to inform you that your message could not|this message was created automatically by mail delivery software|the following (message|addresses|recipients?) (had|could not|failed)|delivery to the following recipients? (failed|has failed)|your message (could not|wasn't|was not) (be )?delivered|delivery has failed to these recipients|could not be delivered to one or more recipients|a message that you sent could not be delivered|undeliverable message|permanent fatal errors|the original message was received at|unable to deliver (your )?message|we had trouble delivering your message|could not be delivered to|requested action not taken|no such user|user unknown|mailbox (is )?(full|unavailable|not found)|--- ?below this line is a copy of the message|reporting-mta:|final-recipient:|diagnostic-code:|il messaggio non (è stato|e' stato|puo' essere|può essere) recapitato)/i;

export interface BounceFinding {
  signal: string;
  /** Message-IDs of the message that bounced, from the report's parts (to mark our reply bounced). */
  originalMessageIds: string[];
}

/** Whether the message is a bounce or delivery report; strong structural signals first. */
export function detectBounce(f: MessageFacts): BounceFinding | null {
  const signal = bounceSignal(f);
  return signal ? { signal, originalMessageIds: originalIds(f) } : null;
}

function bounceSignal(f: MessageFacts): string | null {
  if (f.reportType === 'delivery-status' || f.reportType === 'global-delivery-status') return 'dsn';
  if (f.reportType === 'feedback-report' || f.reportParts.some((p) => p.contentType === 'message/feedback-report'))
    return 'feedback_report';
  if (f.reportParts.some((p) => /delivery-status$/.test(p.contentType))) return 'dsn';
  if (f.headers.has('x-failed-recipients')) return 'x_failed_recipients';
  const body = (f.text.trim() ? f.text : f.rawBody).slice(0, 20_000);
  // A provider's bounce or complaint notification mailed as JSON (SES through an SNS email subscription).
  if (/"(notificationType|eventType)"\s*:\s*"(Bounce|Complaint|Delivery|Reject)"/.test(body))
    return 'provider_notification';
  // Hotmail's feedback loop (JMRP) before ARF existed.
  if (/^complaint about message from /i.test(f.subject)) return 'feedback_report';
  const local = (f.from?.address ?? '').split('@')[0] ?? '';
  const daemon =
    /^(mailer-daemon|mail-daemon|postmaster)$/i.test(local) ||
    (!f.from && /mailer-daemon|postmaster/i.test(header(f, 'from')));
  const senderLooks = daemon || BOUNCE_SENDER.test(local) || BOUNCE_NAME.test(f.from?.name ?? '') || !f.from;
  const subjectLooks = BOUNCE_SUBJECT.test(f.subject);
  const bodyLooks = BOUNCE_BODY.test(body);
  const carriesOriginal = f.reportParts.some((p) => /rfc822|headers/.test(p.contentType));
  if (senderLooks && (subjectLooks || bodyLooks)) return 'bounce_sender';
  if (daemon && !isAutoSubmittedReply(f)) return 'bounce_sender';
  if (subjectLooks && (nullReturnPath(f) || bodyLooks || carriesOriginal)) return 'bounce_subject';
  if ((nullReturnPath(f) || carriesOriginal) && bodyLooks) return 'bounce_body';
  return null;
}

const nullReturnPath = (f: MessageFacts) => headers(f, 'return-path').some((v) => /^<\s*>$/.test(v.trim()));
const isAutoSubmittedReply = (f: MessageFacts) => /^auto-replied/i.test(header(f, 'auto-submitted'));

function originalIds(f: MessageFacts): string[] {
  const out = new Set<string>();
  for (const p of f.reportParts) {
    for (const m of p.text.matchAll(/^(?:original-)?message-id:\s*(<[^<>\s]+>)/gim)) out.add(m[1]);
  }
  if (out.size === 0) {
    // MTAs that quote the original inline.
    for (const m of f.text.matchAll(/^\s*message-id:\s*(<[^<>\s]+>)/gim)) out.add(m[1]);
  }
  if (f.messageId) out.delete(f.messageId);
  return [...out].slice(0, 10);
}

// ---------------------------------------------------------------------------------------------
// Auto-replies (RFC 3834 and the vendor headers that predate it)

const AUTO_SUBJECT = new RegExp(
  '^\\s*(' +
    [
      // "Automatic reply: <subject>" (Outlook), "Auto reply: …" (Apple): with the colon, so a customer's
      // "Automatic replies do not work" is not taken for one.
      'auto(matic|matische|matica)?[ -]?(reply|response|responder|antwort|risposta)\\s*:',
      'autoreply\\s*:',
      'out of (the )?office',
      'away from (the )?(office|desk)',
      'on vacation',
      'vacation (reply|notice|message)',
      'i am (currently )?(out of|away|on (holiday|leave|vacation))',
      "i'm (currently )?(out of|away|on (holiday|leave|vacation))",
      'abwesenheit',
      'office closed',
      'ticket received:',
      'your request has been received',
      // Italian
      'risposta automatica\\s*:',
      "fuori (sede|ufficio|dall'ufficio)",
      'sono (in ferie|assente|fuori (sede|ufficio))',
      'in ferie',
      'assente (dall|fino)',
    ].join('|') +
    ')',
  'i',
);

/** Whether the message was sent by a machine in answer to something (RFC 3834 and vendor conventions). */
export function detectAutoReply(f: MessageFacts): string | null {
  const autoSubmitted = header(f, 'auto-submitted').toLowerCase();
  if (autoSubmitted && !/^no\b/.test(autoSubmitted)) return 'auto_submitted';
  if (f.headers.has('x-autoreply') && !/^(no|false|0)$/i.test(header(f, 'x-autoreply').trim())) return 'x_autoreply';
  if (
    f.headers.has('x-autorespond') ||
    f.headers.has('x-autoresponder') ||
    f.headers.has('x-autoreply-from') ||
    f.headers.has('x-mail-autoreply')
  )
    return 'x_autorespond';
  if (/^reply$/i.test(header(f, 'x-autogenerated'))) return 'x_autogenerated';
  if (/^auto[_-]?reply$/i.test(header(f, 'precedence').trim())) return 'precedence_auto_reply';
  if (header(f, 'x-post-messageclass').trim() === '9; Autoresponder') return 'x_autorespond';
  if (f.reportType === 'disposition-notification') return 'read_receipt';
  if (AUTO_SUBJECT.test(f.subject)) return 'auto_reply_subject';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Mailing lists and bulk mail

/** Whether the message came through a mailing list or bulk sender. */
export function detectMailingList(f: MessageFacts): string | null {
  if (f.headers.has('list-id')) return 'list_id';
  const precedence = header(f, 'precedence').trim().toLowerCase();
  if (precedence === 'bulk' || precedence === 'list' || precedence === 'junk') return `precedence_${precedence}`;
  if (
    f.headers.has('list-post') ||
    f.headers.has('mailing-list') ||
    f.headers.has('x-mailing-list') ||
    f.headers.has('list-help')
  )
    return 'list_headers';
  if (f.headers.has('list-unsubscribe')) return 'list_unsubscribe';
  return null;
}

// ---------------------------------------------------------------------------------------------
// No-reply senders

const NO_REPLY =
  /(^|[-_.+])(no[-_.]?reply|do[-_.]?not[-_.]?reply|donotreply|noreply|no[-_.]?response|do[-_.]?not[-_.]?respond)([-_.+]|$)/i;

/** Whether the sender's address says nobody reads answers to it. */
export function isNoReplySender(address: string | null | undefined): boolean {
  if (!address) return false;
  const local = address.split('@')[0] ?? '';
  return NO_REPLY.test(local);
}

// ---------------------------------------------------------------------------------------------
// Our own mail coming back

export interface OwnIdentity {
  /** Domains of our inbound addresses and Message-IDs (the inbound domain, the public host). */
  domains: string[];
  /** Addresses we send from (the mailer's default From). */
  senders: string[];
}

const domainOf = (address: string) => (address.split('@')[1] ?? '').toLowerCase();

/** Whether the message is the service's own mail (or passed through it) coming back. */
export function detectOwnMail(f: MessageFacts, own: OwnIdentity): string | null {
  const domains = new Set(own.domains.map((d) => d.toLowerCase()));
  if (f.headers.has('x-patchwell-loop')) return 'own_loop_header';
  for (const v of headers(f, 'x-loop')) {
    const value = v.toLowerCase();
    if ([...domains].some((d) => value.includes(d))) return 'x_loop';
  }
  const from = f.from?.address ?? '';
  if (from && (domains.has(domainOf(from)) || own.senders.some((s) => s.toLowerCase() === from))) return 'own_sender';
  const mid = f.messageId ?? '';
  const midDomain = mid.replace(/^<|>$/g, '').split('@')[1]?.toLowerCase() ?? '';
  if (midDomain && domains.has(midDomain) && /^<(msg|mail|ie)_/.test(mid)) return 'own_message_id';
  if (headers(f, 'received').length > 40) return 'hop_count';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Forwarding: a provider's confirmation request, and our own test coming back

export interface ForwardingConfirmationFinding {
  code: string | null;
  url: string | null;
  requestedBy: string | null;
}

const CONFIRM_SENDERS =
  /^(forwarding-noreply@google\.com|mail-noreply@google\.com|[^@]+@(google\.com|googlemail\.com))$/i;
const CONFIRM_SUBJECT =
  /(forwarding confirmation|conferma (dell'?|di )?inoltro|confirmation de transfert|weiterleitungsbestätigung|confirmar el reenvío)/i;

/**
 * A mailbox provider asking the owner of our inbound address to confirm a forwarding (Gmail's
 * "(#123456789) Gmail Forwarding Confirmation - Receive Mail from ada@example.com"), with the
 * confirmation code, the link and who asked.
 */
export function detectForwardingConfirmation(f: MessageFacts): ForwardingConfirmationFinding | null {
  const from = f.from?.address ?? '';
  if (!CONFIRM_SUBJECT.test(f.subject) || !CONFIRM_SENDERS.test(from)) return null;
  const text = `${f.subject}\n${f.text}`;
  const code =
    /(?:confirmation code|codice di conferma|code de confirmation|bestätigungscode|código de confirmación)\s*:\s*([0-9A-Za-z-]{4,40})/i.exec(
      text,
    )?.[1] ??
    /\((?:#|n\.?\s*|nº\s*)\s*([0-9]{4,20})\)/i.exec(f.subject)?.[1] ??
    null;
  const url =
    /(https:\/\/(?:mail-settings|mail|isolated\.mail)\.google\.com\/[^\s<>"')\]]+)/i.exec(
      `${f.text}\n${f.html ?? ''}`,
    )?.[1] ?? null;
  const requestedBy =
    /(?:receive mail from|ricevi (?:la )?posta da|ricevere posta da|recevoir des messages de|e-mails empfangen von|recibir correo de)\s+([^\s<>()]+@[^\s<>()]+)/i.exec(
      f.subject,
    )?.[1] ??
    /([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,})\s+(?:has requested|ha richiesto|a demandé|hat angefordert|ha solicitado)/i.exec(
      f.text,
    )?.[1] ??
    null;
  return {
    code,
    url: url?.replace(/[.,;]+$/, '') ?? null,
    requestedBy: requestedBy?.toLowerCase().replace(/[.,;]+$/, '') ?? null,
  };
}

/** Header our forwarding test carries; the code is also in the subject and the body. */
export const FORWARDING_TEST_HEADER = 'X-Patchwell-Forwarding-Test';

/** Whether the message is our forwarding test carrying `code`. */
export function isForwardingTest(f: MessageFacts, code: string | null): boolean {
  if (!code) return false;
  const wanted = code.toUpperCase();
  if (headers(f, FORWARDING_TEST_HEADER.toLowerCase()).some((v) => v.trim().toUpperCase() === wanted)) return true;
  return f.subject.toUpperCase().includes(wanted);
}

/** Whether the message reached us through the customer's forwarding of `address`. */
export function viaForwarding(f: MessageFacts, address: string | null): boolean {
  if (!address) return false;
  const a = address.toLowerCase();
  if ([...f.to, ...f.cc].some((m) => m.address === a)) return true;
  for (const name of ['x-forwarded-to', 'x-forwarded-for', 'delivered-to', 'x-original-to', 'resent-to']) {
    if (headers(f, name).some((v) => v.toLowerCase().includes(a))) return true;
  }
  return false;
}
