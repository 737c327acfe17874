import { globalModel } from '../../../core/data/model.js';

/** An attachment as stored with a mail. */
export interface StoredAttachment {
  filename: string;
  content_type: string;
  content_base64: string;
}

export type MailStatus = 'queued' | 'sent' | 'failed';

/**
 * One email the service sends by itself. A global table (globalModel), not a tenant one: org_id is
 * null for mail that belongs to no organization, and rows are only read by the mail plugin's own
 * consumer (system work), never through the API.
 */
export class MailMessage extends globalModel({
  table: 'mail_messages',
  idPrefix: 'mail',
  json: ['headers', 'attachments'],
}) {
  declare org_id: string | null;
  declare template: string;
  declare locale: string;
  declare to_address: string;
  declare from_address: string;
  declare from_name: string | null;
  declare reply_to: string | null;
  declare subject: string;
  declare text: string;
  declare html: string;
  declare headers: Record<string, string>;
  /** Files sent with the mail (base64 content); null for none. Column added by migration 0930. */
  declare attachments?: StoredAttachment[] | null;
  declare message_id: string;
  declare ticket_ref: string | null;
  declare status: MailStatus;
  declare attempts: number;
  declare last_error: string | null;
  declare provider_message_id: string | null;
  declare locked_until: Date | null;
  declare updated_at: Date;
  declare sent_at: Date | null;
}
