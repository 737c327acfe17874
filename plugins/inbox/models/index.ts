import { tenantModel } from '../../../core/data/model.js';
import type { DnsRecord, DomainPurpose, DomainStatus } from '../../../core/contracts/index.js';

/** A forwarding provider's confirmation request (the spec's gmail_confirmation shape). */
export interface GmailConfirmation {
  code: string | null;
  url: string | null;
  requested_by: string | null;
  received_at: string;
  verified: boolean;
}

export type InboundStatus = 'processed' | 'ignored' | 'quarantined' | 'released';
export const INBOUND_STATUSES: readonly InboundStatus[] = ['processed', 'ignored', 'quarantined', 'released'];

export type InboundReason =
  | 'duplicate'
  | 'auto_reply'
  | 'bounce'
  | 'no_reply'
  | 'loop'
  | 'mailing_list'
  | 'forwarding_confirmation'
  | 'forwarding_test'
  | 'channel_disabled'
  | 'not_in_plan'
  | 'spam'
  | 'rate_limited';
export const INBOUND_REASONS: readonly InboundReason[] = [
  'duplicate',
  'auto_reply',
  'bounce',
  'no_reply',
  'loop',
  'mailing_list',
  'forwarding_confirmation',
  'forwarding_test',
  'channel_disabled',
  'not_in_plan',
  'spam',
  'rate_limited',
];

export class InboxChannel extends tenantModel({
  table: 'inbox_channels',
  idPrefix: 'ch',
  json: ['gmail_confirmation', 'pending_gmail_confirmation'],
}) {
  declare workspace_id: string;
  declare enabled: boolean;
  declare accept_list_mail: boolean;
  declare forwarding_address: string | null;
  declare forwarding_provider: 'mail_a' | 'mail_b' | 'other' | null;
  declare forwarding_added_at: Date | null;
  declare forwarding_verified_at: Date | null;
  declare forwarding_tested_at: Date | null;
  declare last_forwarded_at: Date | null;
  declare test_code: string | null;
  declare test_sent_at: Date | null;
  declare gmail_confirmation: GmailConfirmation | null;
  declare pending_gmail_confirmation: GmailConfirmation | null;
  declare updated_at: Date;
}

export class InboundEmail extends tenantModel({ table: 'inbox_emails', idPrefix: 'ie', json: ['signals'] }) {
  declare workspace_id: string;
  declare channel_id: string;
  declare provider: string;
  declare provider_message_id: string;
  declare recipient: string;
  declare from_address: string | null;
  declare from_name: string | null;
  declare subject: string | null;
  declare message_id: string | null;
  declare message_key: string;
  declare sender_key: string | null;
  declare content_key: string | null;
  declare received_at: Date;
  declare status: InboundStatus;
  declare reason: InboundReason | null;
  declare ticket_id: string | null;
  declare ticket_created: boolean;
  declare spam_score: number;
  declare signals: string[];
  declare raw: Buffer | null;
  declare size: number;
  declare released_at: Date | null;
  declare released_by_user_id: string | null;
  declare updated_at: Date;
}

export class EmailDomain extends tenantModel({
  table: 'inbox_domains',
  idPrefix: 'dom',
  json: ['records', 'last_error'],
}) {
  declare brand_profile_id: string;
  declare scope: 'workspace' | 'organization';
  declare workspace_id: string | null;
  declare purpose: DomainPurpose;
  declare name: string;
  declare adapter: string;
  declare status: DomainStatus;
  declare records: DnsRecord[];
  declare sender_email: string | null;
  declare sender_name: string | null;
  declare last_error: { code: string; message: string } | null;
  declare verified_at: Date | null;
  declare last_checked_at: Date | null;
  declare updated_at: Date;
}
