import Joi from 'joi';
import nodemailer, { type SMTPSentMessageInfo, type SMTPTransportOptions, type Transporter } from 'nodemailer';
import {
  AdapterError,
  adapterModule,
  type AdapterDeps,
  type OutgoingEmail,
  type SendResult,
} from '../../core/contracts/index.js';
import { composeMime } from '../mail-common/mime.js';
import {
  ConfiguredDomainsChannelAdapter,
  configuredDomainsOptionKeys,
  type ConfiguredDomainsOptions,
} from '../mail-common/configured-domains.js';

/** `domainRecords`: the relay's SPF/DKIM/MX records for customer domains. */
export interface SmtpOptions extends ConfiguredDomainsOptions {
  /** `smtp://user:pass@host:587` or `smtps://…:465`; instead of host/port/secure/auth. */
  url?: string;
  host?: string;
  port?: number;
  /** TLS from the start (port 465); otherwise STARTTLS when the server offers it. */
  secure?: boolean;
  /** Refuse to send unless STARTTLS succeeds. */
  requireTLS?: boolean;
  auth?: { user: string; pass: string };
  tls?: { rejectUnauthorized?: boolean; servername?: string };
  /** Keep a few connections open (a busy relay). */
  pool?: boolean;
  /** Envelope sender (Return-Path), e.g. a bounce mailbox; default the From address. */
  envelopeFrom?: string;
  connectionTimeoutMs: number;
  socketTimeoutMs: number;
}

interface SmtpErrorShape {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

/** Maps nodemailer's error: a 5xx answer is permanent, everything else (4xx, network, auth) may pass later. */
export function smtpError(err: unknown): AdapterError {
  const e = (err ?? {}) as SmtpErrorShape & { message?: string };
  const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.code !== 'EAUTH';
  return new AdapterError(permanent ? 'send_rejected' : 'send_failed', `SMTP: ${e.message ?? String(err)}`, {
    retryable: !permanent,
    details: { smtpCode: e.code, responseCode: e.responseCode, command: e.command },
    cause: err,
  });
}

/**
 * Sends through any SMTP server with nodemailer (a relay such as Postfix, or a provider's SMTP
 * endpoint). The message is composed once (mail-common/mime) and handed over raw, so headers
 * and threading are exactly those of the other adapters. Inbound mail arrives as `mime`.
 */
export class SmtpChannelAdapter extends ConfiguredDomainsChannelAdapter<SmtpOptions> {
  static override identifier = 'mail-smtp';
  static override optionsSchema = Joi.object<SmtpOptions>({
    ...configuredDomainsOptionKeys,
    url: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
    host: Joi.string().hostname(),
    port: Joi.number().integer().min(1).max(65535),
    secure: Joi.boolean(),
    requireTLS: Joi.boolean(),
    auth: Joi.object({ user: Joi.string().required(), pass: Joi.string().required() }),
    tls: Joi.object({ rejectUnauthorized: Joi.boolean(), servername: Joi.string() }),
    pool: Joi.boolean(),
    envelopeFrom: Joi.string().email({ tlds: { allow: false } }),
    connectionTimeoutMs: Joi.number().integer().min(100).default(30_000),
    socketTimeoutMs: Joi.number().integer().min(100).default(60_000),
  }).xor('url', 'host');

  private readonly transport: Transporter<SMTPSentMessageInfo>;

  constructor(options: SmtpOptions, deps?: AdapterDeps) {
    super(options, deps);
    const o = options;
    this.transport = nodemailer.createTransport({
      ...(o.url ? { url: o.url } : { host: o.host, port: o.port ?? (o.secure ? 465 : 587), secure: o.secure ?? false }),
      ...(o.requireTLS !== undefined ? { requireTLS: o.requireTLS } : {}),
      ...(o.auth ? { auth: o.auth } : {}),
      ...(o.tls ? { tls: o.tls } : {}),
      ...(o.pool ? { pool: true } : {}),
      connectionTimeout: o.connectionTimeoutMs,
      greetingTimeout: o.connectionTimeoutMs,
      socketTimeout: o.socketTimeoutMs,
    } as SMTPTransportOptions);
  }

  async send(email: OutgoingEmail): Promise<SendResult> {
    const { raw, envelope } = await composeMime(email);
    let info: { accepted?: unknown[]; rejected?: unknown[]; response?: string };
    try {
      info = await this.transport.sendMail({
        envelope: { from: this.options.envelopeFrom ?? envelope.from, to: envelope.to },
        raw,
      });
    } catch (err) {
      throw smtpError(err);
    }
    const addresses = (list: unknown[] | undefined) =>
      (list ?? []).map((a) => (typeof a === 'string' ? a : (a as { address: string }).address));
    const rejected = addresses(info.rejected);
    // SMTP has no provider id that bounces carry; the Message-ID is what a DSN names.
    return {
      providerMessageId: email.messageId,
      accepted: addresses(info.accepted),
      ...(rejected.length ? { rejected } : {}),
    };
  }

  /** Closes pooled connections. */
  close(): void {
    this.transport.close();
  }
}

export default adapterModule('channel', SmtpChannelAdapter, (adapter) => {
  adapter.close();
  return Promise.resolve();
});
