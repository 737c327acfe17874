/**
 * `john.doe@example.com` → `j***@e***.com`: the first character of the local part and of the
 * domain, and the top-level domain. Subscriber addresses only ever leave the API like this.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${local[0]}***@${domain[0] ?? ''}***${tld}`;
}

const EMAIL_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/** Masks every email address inside a text (public pages never show an address in full). */
export const maskEmailsIn = (text: string): string => text.replace(EMAIL_IN_TEXT, (m) => maskEmail(m));
