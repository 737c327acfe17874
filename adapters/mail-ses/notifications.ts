/**
 * SES notifications (inside an SNS Notification's Message): a received message (receipt rule
 * with an SNS action), and bounce, complaint and delivery notifications or the same events
 * published through a configuration set (`eventType` instead of `notificationType`).
 */
import {
  PayloadError,
  type DeliveryEvent,
  type InboundParseResult,
  type ParsedInboundEmail,
  type ProviderVerdict,
  type ProviderVerdicts,
} from '../../core/contracts/index.js';

interface SesMail {
  messageId?: string;
  timestamp?: string;
  destination?: string[];
}

interface Verdict {
  status?: string;
}

interface SesReceipt {
  recipients?: string[];
  spamVerdict?: Verdict;
  virusVerdict?: Verdict;
  spfVerdict?: Verdict;
  dkimVerdict?: Verdict;
  dmarcVerdict?: Verdict;
  action?: { type?: string; encoding?: string };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** SES verdict status → ProviderVerdict. */
export function verdict(v: Verdict | undefined): ProviderVerdict | undefined {
  switch (v?.status?.toUpperCase()) {
    case 'PASS':
      return 'pass';
    case 'FAIL':
      return 'fail';
    case 'GRAY':
      return 'gray';
    case 'PROCESSING_FAILED':
      return 'error';
    case 'DISABLED':
      return 'none';
    default:
      return undefined;
  }
}

function verdicts(r: SesReceipt): ProviderVerdicts {
  const out: ProviderVerdicts = {};
  const pairs: Array<[keyof ProviderVerdicts, Verdict | undefined]> = [
    ['spam', r.spamVerdict],
    ['virus', r.virusVerdict],
    ['spf', r.spfVerdict],
    ['dkim', r.dkimVerdict],
    ['dmarc', r.dmarcVerdict],
  ];
  for (const [key, v] of pairs) {
    const mapped = verdict(v);
    if (mapped) out[key] = mapped;
  }
  return out;
}

/** `Ada <ada@x.test>` or `ada@x.test` → `ada@x.test`. */
function bareAddress(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /<([^>]+)>/.exec(value);
  const address = (m ? m[1] : value).trim();
  return address.includes('@') ? address : null;
}

function dateOf(value: unknown, fallback: Date): Date {
  const d = typeof value === 'string' ? new Date(value) : fallback;
  return Number.isNaN(d.getTime()) ? fallback : d;
}

function received(n: Record<string, unknown>, mail: SesMail): ParsedInboundEmail[] {
  const receipt = (isObject(n.receipt) ? n.receipt : {}) as SesReceipt;
  if (typeof n.content !== 'string' || n.content.length === 0) {
    throw new PayloadError(
      'the SES notification carries no message: use an SNS receipt action (S3 actions are not read)',
    );
  }
  const raw =
    receipt.action?.encoding?.toUpperCase() === 'UTF8'
      ? Buffer.from(n.content, 'utf8')
      : Buffer.from(n.content, 'base64');
  if (raw.length === 0) throw new PayloadError('the SES notification carries an empty message');
  if (!mail.messageId) throw new PayloadError('the SES notification has no mail.messageId');
  const recipients = (receipt.recipients ?? mail.destination ?? [])
    .map(bareAddress)
    .filter((a): a is string => a !== null);
  if (recipients.length === 0) throw new PayloadError('the SES notification names no recipient');
  const providerVerdicts = verdicts(receipt);
  return [...new Set(recipients.map((r) => r.toLowerCase()))].map((recipient) => ({
    recipient,
    raw,
    providerVerdicts,
    providerMessageId: mail.messageId!,
  }));
}

const EVENT_TYPES = new Set(['Bounce', 'Complaint', 'Delivery', 'Reject', 'Rendering Failure']);

function events(type: string, n: Record<string, unknown>, mail: SesMail, at: Date): DeliveryEvent[] {
  if (!EVENT_TYPES.has(type)) return [];
  const providerMessageId = mail.messageId;
  if (!providerMessageId) throw new PayloadError(`the SES ${type} notification has no mail.messageId`);
  const each = (list: unknown, make: (address: string, item: Record<string, unknown>) => DeliveryEvent | null) =>
    (Array.isArray(list) ? list : [])
      .map((item) => {
        const address = isObject(item) ? bareAddress(item.emailAddress) : bareAddress(item);
        return address ? make(address, isObject(item) ? item : {}) : null;
      })
      .filter((e): e is DeliveryEvent => e !== null);

  switch (type) {
    case 'Bounce': {
      const b = isObject(n.bounce) ? n.bounce : {};
      const kind = typeof b.bounceType === 'string' ? b.bounceType : 'Undetermined';
      const sub = typeof b.bounceSubType === 'string' ? b.bounceSubType : 'General';
      return each(b.bouncedRecipients, (recipient, r) => ({
        type: 'bounced',
        providerMessageId,
        recipient,
        detail: typeof r.diagnosticCode === 'string' && r.diagnosticCode ? r.diagnosticCode : `${kind} bounce (${sub})`,
        permanent: kind === 'Permanent',
        occurredAt: dateOf(b.timestamp, at),
      }));
    }
    case 'Complaint': {
      const c = isObject(n.complaint) ? n.complaint : {};
      const feedback = typeof c.complaintFeedbackType === 'string' ? c.complaintFeedbackType : 'complaint';
      return each(c.complainedRecipients, (recipient) => ({
        type: 'complained',
        providerMessageId,
        recipient,
        detail: feedback,
        occurredAt: dateOf(c.timestamp, at),
      }));
    }
    case 'Delivery': {
      const d = isObject(n.delivery) ? n.delivery : {};
      return each(d.recipients, (recipient) => ({
        type: 'delivered',
        providerMessageId,
        recipient,
        detail: typeof d.smtpResponse === 'string' && d.smtpResponse ? d.smtpResponse : 'delivered',
        occurredAt: dateOf(d.timestamp, at),
      }));
    }
    case 'Reject':
    case 'Rendering Failure': {
      const why = isObject(n.reject) && typeof n.reject.reason === 'string' ? n.reject.reason : type;
      return each(mail.destination, (recipient) => ({
        type: 'failed',
        providerMessageId,
        recipient,
        detail: why,
        occurredAt: at,
      }));
    }
    default:
      return [];
  }
}

/**
 * Reads an SES notification. Types that say nothing about delivery (Send, Open, Click,
 * DeliveryDelay, the subscription notice) give two empty lists.
 */
export function readSesNotification(n: Record<string, unknown>, at: Date): InboundParseResult {
  const type =
    typeof n.notificationType === 'string' ? n.notificationType : typeof n.eventType === 'string' ? n.eventType : '';
  const mail = (isObject(n.mail) ? n.mail : {}) as SesMail;
  if (type === 'Received') return { emails: received(n, mail), events: [] };
  return { emails: [], events: events(type, n, mail, at) };
}
