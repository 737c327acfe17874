import Joi from 'joi';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type Boom from '@hapi/boom';
import type { Outbox } from '../../../core/bus/outbox.js';
import { newId } from '../../../core/data/ids.js';
import { httpError } from '../../../core/http/errors.js';
import { mailDomainOf } from '../../../core/kernel/mail-domain.js';
import { MailMessage } from '../models/mail-message.js';
import type { MailBrand, MailBrandingPort } from './branding.js';
import type { EnqueueMail, MailAddress, MailerPort } from '../../../core/contracts/mail.js';
import {
  MAIL_LOCALES,
  MailTemplateError,
  checkTemplate,
  renderTemplate,
  type MailLocale,
  type MailTemplate,
  type RenderedMail,
} from './templates.js';

export type { EnqueueMail, MailAddress } from '../../../core/contracts/mail.js';

export const MAIL_REQUESTED = 'mail.requested';

/**
 * Bad input to `enqueue` (an address that is not one, a header with a line break…): a 422
 * `invalid_mail` Boom error named `MailInputError`, so an operation that sends mail answers 422
 * naming the problem, never a 500 (and the OpenAPI error walk sees it: an httpError call);
 * consumers treat it as any failure.
 */
export function mailInputError(message: string, details: Record<string, unknown> = {}): Boom.Boom {
  const err = httpError(422, 'invalid_mail', message, details);
  err.name = 'MailInputError';
  return err;
}

/** Whether an error is the mailer's refusal of its input. */
export const isMailInputError = (err: unknown): boolean =>
  (err as { name?: unknown } | null)?.name === 'MailInputError';

const email = Joi.string()
  .trim()
  .email({ tlds: { allow: false }, ignoreLength: false })
  .max(320);
const address = Joi.object<MailAddress>({ address: email.required(), name: Joi.string().max(200).allow('') });
const headerName = Joi.string()
  .pattern(/^[A-Za-z0-9][A-Za-z0-9-]*$/)
  .max(100);
const headerValue = Joi.string()
  .max(4000)
  .pattern(/^[^\r\n]*$/, 'one line');

// Headers the message's own fields set; a caller giving them would contradict the stored row.
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'sender',
  'subject',
  'message-id',
  'date',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'return-path',
]);

const enqueueSchema = Joi.object<EnqueueMail>({
  orgId: Joi.string().allow(null).required(),
  template: Joi.string().required(),
  locale: Joi.string()
    .valid(...MAIL_LOCALES)
    .required(),
  to: Joi.alternatives(email, Joi.array().items(email).min(1).max(50)).required(),
  data: Joi.object().unknown(true).required(),
  from: address,
  fromName: Joi.string()
    .max(200)
    .pattern(/^[^\r\n]*$/, 'one line'),
  replyTo: Joi.alternatives(email, address),
  headers: Joi.object().pattern(headerName, headerValue),
  messageId: Joi.string()
    .pattern(/^<?[^<>\s@]+@[^<>\s@]+>?$/)
    .max(998),
  ticketRef: Joi.string().max(200),
  workspaceId: Joi.string().max(100),
  attachments: Joi.array()
    .items(
      Joi.object({
        filename: Joi.string()
          .max(200)
          .pattern(/^[^\r\n/\\]+$/)
          .required(),
        contentType: Joi.string().max(100).required(),
        content: Joi.binary()
          .max(5 * 1024 * 1024)
          .required(),
      }),
    )
    .max(5),
});

export interface MailerOptions {
  outbox: Outbox;
  /** PUBLIC_BASE_URL: its host names the Message-IDs (`localhost` for an IP address). */
  publicBaseUrl: string;
  defaultFrom: MailAddress;
  log?: Logger;
  /** The brand lookup (container key `mailBranding`), resolved at each enqueue; null when no plugin provides it. */
  branding?: () => MailBrandingPort | null;
}

function formatAddress(a: MailAddress): string {
  if (!a.name) return a.address;
  return `"${a.name.replace(/["\\]/g, '\\$&')}" <${a.address}>`;
}

/**
 * The service's mail for other plugins: register templates once, then `enqueue` in the
 * transaction of the change the mail announces. The mail is rendered and stored then, and an
 * outbox event asks the mail plugin's consumer to send it after the commit.
 */
export class Mailer implements MailerPort {
  private readonly templates = new Map<string, MailTemplate>();
  private readonly outbox: Outbox;
  private readonly host: string;
  private readonly defaultFrom: MailAddress;
  private readonly log: Logger | undefined;
  private readonly branding: () => MailBrandingPort | null;

  constructor(options: MailerOptions) {
    this.branding = options.branding ?? (() => null);
    this.outbox = options.outbox;
    this.host = mailDomainOf(options.publicBaseUrl);
    this.defaultFrom = options.defaultFrom;
    this.log = options.log;
  }

  /**
   * Adds templates. Registering the same template again is harmless; another template under a
   * name already taken throws MailTemplateError.
   */
  registerTemplates(templates: MailTemplate[]): void {
    for (const template of templates) {
      checkTemplate(template);
      const known = this.templates.get(template.name);
      if (known && JSON.stringify(known) !== JSON.stringify(template)) {
        throw new MailTemplateError(`mail template ${template.name} is already registered with other texts`);
      }
      this.templates.set(template.name, template);
    }
  }

  /** Names of the registered templates. */
  templateNames(): string[] {
    return [...this.templates.keys()].sort();
  }

  /** Renders a registered template without sending anything (previews, tests). */
  render(name: string, locale: MailLocale, data: Record<string, unknown>): RenderedMail {
    return renderTemplate(this.template(name), locale, data);
  }

  /**
   * The brand a mail of this template would carry for `ref` (null: plain look): customer-facing
   * templates of a workspace, when a brand lookup is installed.
   */
  async brandFor(
    trx: Knex,
    name: string,
    ref: { orgId: string | null; workspaceId?: string; ticketRef?: string },
  ): Promise<MailBrand | null> {
    const template = this.template(name);
    const branding = this.branding();
    if (template.audience === 'team' || !branding || !ref.orgId || !(ref.workspaceId || ref.ticketRef)) return null;
    return branding.forMail(trx, {
      orgId: ref.orgId,
      ...(ref.workspaceId ? { workspaceId: ref.workspaceId } : {}),
      ...(ref.ticketRef ? { ticketRef: ref.ticketRef } : {}),
    });
  }

  /** Renders a template as `enqueue` would for a workspace or ticket (previews, tests), with the sender it would use. */
  async renderFor(
    trx: Knex,
    ref: { orgId: string | null; workspaceId?: string; ticketRef?: string },
    name: string,
    locale: MailLocale,
    data: Record<string, unknown>,
  ): Promise<RenderedMail & { from: MailAddress }> {
    const brand = await this.brandFor(trx, name, ref);
    return {
      ...renderTemplate(this.template(name), locale, data, brand),
      from: this.senderOf(undefined, undefined, brand),
    };
  }

  // Precedence: the caller's `from`, the brand's verified sender, a display name (the caller's, else the brand's) at the default address.
  private senderOf(from: MailAddress | undefined, fromName: string | undefined, brand: MailBrand | null): MailAddress {
    if (from) return from;
    if (brand?.from) return brand.from;
    const name = fromName ?? brand?.fromName ?? null;
    return name ? { ...this.defaultFrom, name } : this.defaultFrom;
  }

  /**
   * Renders the mail, stores it as `queued` and writes the `mail.requested` outbox event, both
   * in `trx`: the mail leaves if and only if the transaction commits. Returns the mail id.
   * Throws a MailInputError (422 invalid_mail) for bad input and MailTemplateError for an unknown template or a
   * placeholder without a value; nothing is written then.
   */
  async enqueue(trx: Knex, input: EnqueueMail): Promise<string> {
    // Read as a whole: joi types the value of a failed validation `any`, of a passed one EnqueueMail.
    const checked = enqueueSchema.validate(input, { abortEarly: false, convert: true });
    if (checked.error) {
      const { error } = checked;
      throw mailInputError(`mail: ${error.details.map((d) => d.message).join('; ')}`, {
        errors: error.details.map((d) => ({ path: d.path.join('.'), message: d.message })),
      });
    }
    const mail = checked.value;
    const template = this.template(mail.template);
    const headers = this.headers(mail.headers);
    const brand = await this.brandFor(trx, template.name, mail);
    const rendered = renderTemplate(template, mail.locale, mail.data, brand);
    const id = newId(MailMessage.idPrefix);
    const from = this.senderOf(mail.from, mail.fromName, brand);
    const replyTo = typeof mail.replyTo === 'string' ? { address: mail.replyTo } : mail.replyTo;
    const to = Array.isArray(mail.to) ? mail.to : [mail.to];
    await MailMessage.query(trx).insert({
      id,
      org_id: mail.orgId,
      template: template.name,
      locale: mail.locale,
      to_address: to.join(', '),
      from_address: from.address,
      from_name: from.name || null,
      reply_to: replyTo ? formatAddress(replyTo) : null,
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      headers,
      message_id: mail.messageId ? `<${mail.messageId.replace(/^<|>$/g, '')}>` : `<${id}@${this.host}>`,
      ticket_ref: mail.ticketRef ?? null,
      ...(mail.attachments?.length
        ? {
            attachments: mail.attachments.map((a) => ({
              filename: a.filename,
              content_type: a.contentType,
              content_base64: a.content.toString('base64'),
            })),
          }
        : {}),
      status: 'queued',
      attempts: 0,
    });
    await this.outbox.add(trx, MAIL_REQUESTED, { mail_id: id }, { orgId: mail.orgId });
    this.log?.debug({ mailId: id, template: template.name, orgId: mail.orgId }, 'mail enqueued');
    return id;
  }

  private template(name: string): MailTemplate {
    const template = this.templates.get(name);
    if (!template) throw new MailTemplateError(`mail template ${name} is not registered`);
    return template;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { 'Auto-Submitted': 'auto-generated' };
    for (const [name, value] of Object.entries(extra)) {
      if (RESERVED_HEADERS.has(name.toLowerCase()))
        throw mailInputError(`mail: header ${name} is set from the mail's own fields`, {
          errors: [{ path: `headers.${name}`, message: "set from the mail's own fields" }],
        });
      // One spelling per header: a caller's `auto-submitted` replaces the default.
      for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
      headers[name] = value;
    }
    return headers;
  }
}
