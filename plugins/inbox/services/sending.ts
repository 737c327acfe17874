import { createHash } from 'node:crypto';
import type { EmailDomain } from '../models/index.js';
import type { InboxWorkspace } from './deps.js';

export type SendingKind = 'custom' | 'default' | 'white_label' | 'not_ready';

/** The Channel's `sending` section, plus the sender to use. */
export interface SendingSection {
  kind: SendingKind;
  /** `Name <address>` replies are sent from. */
  from: string;
  replyToExample: string | null;
  /** What keeps the channel from its custom or white-label sending (values in docs/inbox.md). */
  missing: string[];
  /** The custom sender when kind is custom or white_label. */
  sender: { address: string; name: string } | null;
}

export interface SendingInput {
  workspace: InboxWorkspace;
  sendingDomain: EmailDomain | null;
  customDomainInPlan: boolean;
  whiteLabel: { whiteLabel: boolean; missing: string[] };
  /** The mail plugin's default sender. */
  defaultFrom: { address: string; name?: string };
}

const TOKEN_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** `Name <address>`, quoting a name with specials. */
export function formatAddress(address: string, name?: string | null): string {
  if (!name) return address;
  const safe = /[",.:;<>@()[\]\\]/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}"` : name;
  return `${safe} <${address}>`;
}

/** An example of the per-ticket reply address (a fixed example token derived from the workspace). */
export function replyToExample(ws: InboxWorkspace): string | null {
  if (!ws.inbound_address) return null;
  const bytes = createHash('sha256').update(`reply-example:${ws.id}`).digest();
  let token = '';
  for (let i = 0; i < 16; i++) token += TOKEN_ALPHABET[bytes[i] & 31];
  const at = ws.inbound_address.lastIndexOf('@');
  return `${ws.inbound_address.slice(0, at)}+t_${token}@${ws.inbound_address.slice(at + 1)}`;
}

/**
 * How the workspace's replies are sent: from the service's default address (`default`), from
 * the customer's verified sending domain (`custom`), under an agency's white label
 * (`white_label`, decided by the brand seam), or `not_ready` while a registered domain or the
 * white label lacks something (`missing`).
 */
export function sendingSection(input: SendingInput): SendingSection {
  const { workspace: ws, sendingDomain: d } = input;
  const base = { replyToExample: replyToExample(ws) };
  const defaultFrom = formatAddress(input.defaultFrom.address, input.defaultFrom.name);
  const domainMissing: string[] = [];
  if (!d) domainMissing.push('sending_domain');
  else {
    if (d.status !== 'verified') domainMissing.push('domain_verification');
    if (!d.sender_email) domainMissing.push('sender_email');
  }
  if (!input.customDomainInPlan && d) domainMissing.push('plan');
  const custom = d && d.sender_email ? { address: d.sender_email, name: d.sender_name ?? ws.name } : null;

  if (input.whiteLabel.whiteLabel) {
    const missing = [...new Set([...input.whiteLabel.missing, ...domainMissing])];
    if (missing.length === 0 && custom)
      return {
        ...base,
        kind: 'white_label',
        from: formatAddress(custom.address, custom.name),
        missing: [],
        sender: custom,
      };
    return { ...base, kind: 'not_ready', from: defaultFrom, missing, sender: null };
  }
  if (!d) return { ...base, kind: 'default', from: defaultFrom, missing: [], sender: null };
  if (!input.customDomainInPlan)
    return { ...base, kind: 'default', from: defaultFrom, missing: ['plan'], sender: null };
  if (domainMissing.length === 0 && custom)
    return { ...base, kind: 'custom', from: formatAddress(custom.address, custom.name), missing: [], sender: custom };
  return { ...base, kind: 'not_ready', from: defaultFrom, missing: domainMissing, sender: null };
}
