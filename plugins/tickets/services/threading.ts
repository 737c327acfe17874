import type { TicketMessage } from '../models/index.js';

/** References keeps the first Message-ID (the thread's root) and the most recent ones, as RFC 5322 suggests for long threads. */
const MAX_REFERENCES = 20;

export interface Threading {
  inReplyTo: string | null;
  references: string | null;
}

/**
 * Threading headers of a reply from the conversation so far (oldest first, notes ignored):
 * In-Reply-To is the customer's latest message (else the latest message with an id),
 * References the conversation's Message-IDs in order, including any the customer's client sent
 * in its own References.
 */
export function threadingFor(messages: TicketMessage[]): Threading {
  const mail = messages.filter((m) => !m.is_internal_note && m.email_message_id);
  if (mail.length === 0) return { inReplyTo: null, references: null };
  const lastIn = [...mail].reverse().find((m) => m.direction === 'in');
  const parent = lastIn ?? mail[mail.length - 1];
  const ids: string[] = [];
  const push = (id: string) => {
    if (!ids.includes(id)) ids.push(id);
  };
  for (const m of mail) {
    for (const ref of (m.references_header ?? '').match(/<[^<>\s]+>/g) ?? []) push(ref);
    push(m.email_message_id!);
  }
  // The parent's id ends the list.
  const ordered = [...ids.filter((i) => i !== parent.email_message_id), parent.email_message_id!];
  const refs = ordered.length > MAX_REFERENCES ? [ordered[0], ...ordered.slice(-(MAX_REFERENCES - 1))] : ordered;
  return { inReplyTo: parent.email_message_id, references: refs.join(' ') };
}

/** `Re: <subject>` unless it already starts with a reply prefix (Re:, R:, Aw:, Sv:). */
export function replySubject(subject: string): string {
  const s = subject.trim() || '(no subject)';
  return /^(re|r|aw|sv)\s*:/i.test(s) ? s : `Re: ${s}`;
}

/**
 * The per-ticket reply address: the workspace's inbound local part plus `+t_<token>`, so the
 * customer's answer joins this ticket even when their client drops the threading headers.
 */
export function replyAddress(inboundAddress: string, replyToken: string): string {
  const at = inboundAddress.lastIndexOf('@');
  return `${inboundAddress.slice(0, at)}+t_${replyToken}@${inboundAddress.slice(at + 1)}`;
}
