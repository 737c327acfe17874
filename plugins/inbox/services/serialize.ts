import { dnsRecordOut, type DnsRecord } from '../../../core/contracts/index.js';
import type { EmailDomain, GmailConfirmation, InboundEmail, InboxChannel } from '../models/index.js';
import type { InboxWorkspace } from './deps.js';
import type { SendingSection } from './sending.js';
import { iso } from '../../../core/http/times.js';

/** Public suffixes of two labels common enough to guess a zone (no public suffix list here). */
const TWO_LABEL_SUFFIX = /^(co|com|net|org|gov|edu|ac|or|ne|go|gob|mil|nom|ltd|plc|sch)$/;

/** The zone a DNS host publishes records in: `mail.acme.co.uk` → `acme.co.uk`. */
export function zoneOf(domain: string): string {
  const labels = domain.toLowerCase().split('.');
  if (labels.length <= 2) return labels.join('.');
  const tld = labels[labels.length - 1];
  const sld = labels[labels.length - 2];
  const take = tld.length === 2 && TWO_LABEL_SUFFIX.test(sld) ? 3 : 2;
  return labels.slice(-take).join('.');
}

/** A record's name relative to the zone, as DNS hosting panels ask for it (`@` for the apex). */
export function hostOf(name: string, zone: string): string {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (n === zone) return '@';
  return n.endsWith(`.${zone}`) ? n.slice(0, -(zone.length + 1)) : n;
}

/** DMARC is recommended, not needed to send; every other record is required. */
export const isRequired = (r: DnsRecord): boolean => r.record !== 'dmarc';

export function domainOut(row: EmailDomain): Record<string, unknown> {
  const zone = zoneOf(row.name);
  return {
    name: row.name,
    purpose: row.purpose,
    brand_profile_id: row.brand_profile_id,
    scope: row.scope,
    status: row.status,
    records: (row.records ?? []).map((r) => ({
      ...dnsRecordOut(r),
      host: hostOf(r.name, zone),
      required: isRequired(r),
    })),
    sender_email: row.sender_email ?? null,
    sender_name: row.sender_name ?? null,
    verified_at: iso(row.verified_at),
    last_checked_at: iso(row.last_checked_at),
    created_at: iso(row.created_at),
  };
}

const confirmationOut = (c: GmailConfirmation | null | undefined) =>
  c
    ? {
        code: c.code ?? null,
        url: c.url ?? null,
        requested_by: c.requested_by ?? null,
        received_at: c.received_at ?? null,
        verified: !!c.verified,
      }
    : null;

export interface ChannelView {
  workspace: InboxWorkspace;
  channel: InboxChannel;
  inboxInPlan: boolean;
  customDomainInPlan: boolean;
  sending: SendingSection;
  sendingDomain: EmailDomain | null;
  receivingDomain: EmailDomain | null;
  whiteLabel: boolean;
}

/** The spec's Channel. */
export function channelOut(v: ChannelView): Record<string, unknown> {
  const { workspace: ws, channel: c } = v;
  const receiving = v.receivingDomain;
  const whiteLabelAddress =
    receiving && receiving.status === 'verified'
      ? (receiving.sender_email ?? `${(ws.inbound_address ?? ws.slug).split('@')[0]}@${receiving.name}`)
      : null;
  return {
    workspace_id: ws.id,
    channel_id: c.id,
    enabled: c.enabled && ws.mailbox_enabled && !ws.archived_at,
    inbox_in_plan: v.inboxInPlan,
    custom_domain_in_plan: v.customDomainInPlan,
    inbound_address: ws.inbound_address,
    white_label_address: whiteLabelAddress,
    accept_list_mail: c.accept_list_mail,
    forwarding: c.forwarding_address
      ? {
          address: c.forwarding_address,
          provider: c.forwarding_provider,
          added_at: iso(c.forwarding_added_at),
          verified_at: iso(c.forwarding_verified_at),
          tested_at: iso(c.forwarding_tested_at),
          last_forwarded_at: iso(c.last_forwarded_at),
          test: c.test_code ? { code: c.test_code, sent_at: iso(c.test_sent_at) } : null,
          gmail_confirmation: confirmationOut(c.gmail_confirmation),
        }
      : null,
    pending_gmail_confirmation: confirmationOut(c.pending_gmail_confirmation),
    sending: {
      kind: v.sending.kind,
      from: v.sending.from,
      reply_to_example: v.sending.replyToExample,
      missing: v.sending.missing,
    },
    sending_domain: v.sendingDomain ? domainOut(v.sendingDomain) : null,
    receiving_domain: receiving ? domainOut(receiving) : null,
    white_label: v.whiteLabel,
  };
}

/** Columns of the inbound log (never the raw message). */
export const LOG_COLUMNS = [
  'id',
  'org_id',
  'workspace_id',
  'provider',
  'recipient',
  'from_address',
  'from_name',
  'subject',
  'received_at',
  'status',
  'reason',
  'ticket_id',
  'spam_score',
  'signals',
].map((c) => `inbox_emails.${c}`);

/** The spec's InboundEmail. */
export function inboundEmailOut(e: InboundEmail & Record<string, unknown>): Record<string, unknown> {
  return {
    provider: e.provider,
    email_id: e.id,
    from: e.from_address ?? null,
    from_name: e.from_name ?? null,
    subject: e.subject ?? null,
    recipient: e.recipient,
    received_at: iso(e.received_at),
    status: e.status,
    reason: e.reason ?? null,
    ticket_id: e.ticket_id ?? null,
    spam_score: e.spam_score,
    signals: e.signals ?? [],
    releasable: e.status === 'quarantined' && e.has_raw === true,
  };
}
