/**
 * Spam score of one inbound message: the provider's verdicts (when it gives them) plus header
 * and content heuristics. Each signal adds its weight once; the score is an integer and the
 * message is quarantined at or above the `spamThreshold` option. Weights are in docs/inbox.md.
 */
import type { ProviderVerdicts } from '../../../core/contracts/index.js';
import { header, headers, type MessageFacts } from './mime.js';

export interface SpamResult {
  score: number;
  signals: string[];
}

/** Signal → weight. Exported for the documentation test. */
export const SPAM_WEIGHTS = {
  virus: 100,
  provider_spam: 10,
  provider_spam_gray: 2,
  spf_fail: 3,
  spf_softfail: 1,
  dkim_fail: 2,
  dmarc_fail: 4,
  x_spam_flag: 6,
  x_spam_score: 3,
  exchange_scl: 4,
  display_name_spoof: 3,
  dangerous_attachment: 6,
  ip_url: 2,
  shortened_url: 1,
  many_links: 1,
  spam_phrases: 3,
  subject_caps: 1,
  many_recipients: 2,
  no_message_id: 1,
  no_date: 1,
  future_date: 1,
  empty_message: 1,
  reply_to_mismatch: 1,
} as const;

export type SpamSignal = keyof typeof SPAM_WEIGHTS;

const DANGEROUS =
  /\.(exe|scr|pif|com|bat|cmd|vbs|vbe|js|jse|wsf|wsh|hta|msi|msp|cpl|jar|ps1|lnk|iso|img|reg|docm|xlsm|pptm)$/i;
const SHORTENERS =
  /https?:\/\/(bit\.ly|tinyurl\.com|goo\.gl|t\.co|ow\.ly|is\.gd|buff\.ly|cutt\.ly|rb\.gy|shorturl\.at)\//i;
const IP_URL = /https?:\/\/\d{1,3}(\.\d{1,3}){3}([:/]|\b)/i;
const PHRASES = [
  /\b(lottery|you(?:'ve| have) won|winner notification|claim your (prize|reward))\b/i,
  /\b(viagra|cialis|casino bonus|crypto(currency)? investment|double your bitcoin|bitcoin wallet recovery)\b/i,
  /\b(wire transfer urgently|inheritance fund|beneficiary of|dear beneficiary|nigerian prince)\b/i,
  /\b(verify your account (now|immediately)|your account (will be|has been) suspended|update your payment details)\b/i,
  // Italian
  /\b(hai vinto|vincitore (del|della)|premio in denaro|eredità (di|da)|prestito immediato|verifica (subito )?il tuo account|il tuo account (sarà|è stato) sospeso)\b/i,
];

const domainOf = (address: string | null | undefined) => (address?.split('@')[1] ?? '').toLowerCase();
/** `example.co.uk` and `mail.example.com` → the last two labels (enough to compare senders). */
const baseDomain = (d: string) => d.split('.').slice(-2).join('.');

export function scoreSpam(f: MessageFacts, verdicts: ProviderVerdicts, now = new Date()): SpamResult {
  const signals = new Set<SpamSignal>();

  if (verdicts.virus === 'fail') signals.add('virus');
  if (verdicts.spam === 'fail') signals.add('provider_spam');
  else if (verdicts.spam === 'gray') signals.add('provider_spam_gray');
  if (verdicts.spf === 'fail') signals.add('spf_fail');
  else if (verdicts.spf === 'gray') signals.add('spf_softfail');
  if (verdicts.dkim === 'fail') signals.add('dkim_fail');
  if (verdicts.dmarc === 'fail') signals.add('dmarc_fail');

  // Verdicts of the receiving MTA, written as headers (only when the provider gave none).
  const auth = headers(f, 'authentication-results').join(' ; ').toLowerCase();
  if (!verdicts.spf && /\bspf=fail\b/.test(auth)) signals.add('spf_fail');
  if (!verdicts.spf && /\bspf=softfail\b/.test(auth)) signals.add('spf_softfail');
  if (!verdicts.dkim && /\bdkim=fail\b/.test(auth)) signals.add('dkim_fail');
  if (!verdicts.dmarc && /\bdmarc=fail\b/.test(auth)) signals.add('dmarc_fail');
  if (/^yes\b/i.test(header(f, 'x-spam-flag').trim()) || /^yes\b/i.test(header(f, 'x-spam-status').trim()))
    signals.add('x_spam_flag');
  const score = Number.parseFloat(header(f, 'x-spam-score'));
  if ((Number.isFinite(score) && score >= 5) || /^\*{5,}/.test(header(f, 'x-spam-level').trim()))
    signals.add('x_spam_score');
  const scl = Number.parseInt(header(f, 'x-ms-exchange-organization-scl'), 10);
  if (Number.isFinite(scl) && scl >= 5) signals.add('exchange_scl');

  // The display name shows an address of another domain than the real sender's.
  const shown = /[A-Za-z0-9._%+-]+@([A-Za-z0-9.-]+\.[A-Za-z]{2,})/.exec(f.from?.name ?? '')?.[1]?.toLowerCase();
  if (shown && f.from && baseDomain(shown) !== baseDomain(domainOf(f.from.address))) signals.add('display_name_spoof');
  if (
    f.replyTo &&
    f.from &&
    baseDomain(domainOf(f.replyTo.address)) !== baseDomain(domainOf(f.from.address)) &&
    signals.has('display_name_spoof')
  ) {
    signals.add('reply_to_mismatch');
  }

  if (f.attachments.some((a) => DANGEROUS.test(a.filename))) signals.add('dangerous_attachment');
  const body = `${f.text}\n${f.html ?? ''}`.slice(0, 200_000);
  if (IP_URL.test(body)) signals.add('ip_url');
  if (SHORTENERS.test(body)) signals.add('shortened_url');
  if ((body.match(/https?:\/\//gi)?.length ?? 0) > 25) signals.add('many_links');
  const phraseText = `${f.subject}\n${f.text.slice(0, 20_000)}`;
  if (PHRASES.some((re) => re.test(phraseText))) signals.add('spam_phrases');

  const letters = f.subject.replace(/[^A-Za-z]/g, '');
  if (letters.length >= 12 && letters.replace(/[^A-Z]/g, '').length / letters.length > 0.8) signals.add('subject_caps');
  if (f.to.length + f.cc.length > 25) signals.add('many_recipients');
  if (!f.messageId) signals.add('no_message_id');
  if (!f.date) signals.add('no_date');
  else if (f.date.getTime() > now.getTime() + 24 * 3600_000) signals.add('future_date');
  if (!f.subject && !f.text.trim() && !f.html && f.attachments.length === 0) signals.add('empty_message');

  const list = [...signals];
  return { score: list.reduce((sum, s) => sum + SPAM_WEIGHTS[s], 0), signals: list };
}
