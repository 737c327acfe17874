import type { Knex } from 'knex';

/**
 * The mailer other plugins send through (container key `mailer`, provided by the mail plugin).
 * Defined once here so every plugin that sends mail types its dependency the same way.
 */
export const MAIL_LOCALES = ['en', 'it'] as const;
export type MailLocale = (typeof MAIL_LOCALES)[number];

/** One text in every locale. */
export type Localized = Record<MailLocale, string>;

export interface MailAddress {
  address: string;
  name?: string;
}

export interface MailTemplate {
  /** Unique name, by convention `<plugin>.<what>`, e.g. `accounts.password_reset`. */
  name: string;
  subject: Localized;
  text: Localized;
  /** Without it the HTML part is the text in paragraphs, with links made clickable. */
  html?: Localized;
  /**
   * Who reads it. `customer` (default): mail of a workspace (`workspaceId` or a ticket's
   * `ticketRef` at enqueue) carries the workspace's brand and sender. `team`: mail to the
   * organization's own people (escalations, tests), never branded.
   */
  audience?: 'customer' | 'team';
}

export interface EnqueueMail {
  /** Organization the mail belongs to; null for none. Travels on the outbox event. */
  orgId: string | null;
  /** Name of a registered template. */
  template: string;
  locale: MailLocale;
  /** One address or several (plain addresses, no display names). */
  to: string | string[];
  /** Values of the template's `{{placeholders}}`; each placeholder needs one. */
  data: Record<string, unknown>;
  /** Default: the plugin's `from` option. */
  from?: MailAddress;
  /** Display name to send with at the default address (e.g. an agency's brand); ignored when `from` is given. */
  fromName?: string;
  replyTo?: string | MailAddress;
  /** Extra headers, e.g. In-Reply-To, References, List-Unsubscribe; `Auto-Submitted: auto-generated` by default. */
  headers?: Record<string, string>;
  /** RFC 5322 Message-ID to send with, e.g. for threading; default `<mail id@host of PUBLIC_BASE_URL>`. */
  messageId?: string;
  /** Opaque reference of the caller (a ticket id…) stored with the mail; a ticket id also names the workspace whose brand the mail carries. */
  ticketRef?: string;
  /** Workspace the mail speaks for: customer-facing templates carry its brand (logo, color, font, badge) and sender. */
  workspaceId?: string;
  /** Files to send with the mail (e.g. a report's PDF); at most 5, 5 MiB each. */
  attachments?: { filename: string; contentType: string; content: Buffer }[];
}

export interface MailerPort {
  /** Adds a plugin's templates at register time; a name already taken or a bad placeholder throws. */
  registerTemplates(templates: MailTemplate[]): void;
  /** Stores the mail in `trx` and announces it on the outbox; answers the mail's id. 422 invalid_mail for bad input. */
  enqueue(trx: Knex, input: EnqueueMail): Promise<string>;
  /** Renders a registered template without sending (a notice's text becomes its Draft's body). */
  render(name: string, locale: MailLocale, data: Record<string, unknown>): { subject: string; text: string };
}
