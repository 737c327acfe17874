import Joi from 'joi';
import {
  AbstractAdapter,
  SignatureError,
  PayloadError,
  headerValue,
  hmacSha256Hex,
  verifySha256Header,
  type AdapterErrorOptions,
  type RawHeaders,
} from './adapter.js';

/** Status of a sending or receiving domain (spec: Domain.status). */
export type DomainStatus =
  'not_started' | 'pending' | 'verified' | 'partially_verified' | 'partially_failed' | 'failed' | 'temporary_failure';

export const DOMAIN_STATUSES: readonly DomainStatus[] = [
  'not_started',
  'pending',
  'verified',
  'partially_verified',
  'partially_failed',
  'failed',
  'temporary_failure',
];

/** Status of one DNS record (spec: DnsRecord.status). */
export type DnsRecordStatus = 'not_started' | 'pending' | 'verified' | 'failed' | 'temporary_failure';
export const DNS_RECORD_STATUSES: readonly DnsRecordStatus[] = [
  'not_started',
  'pending',
  'verified',
  'failed',
  'temporary_failure',
];

export type DnsRecordType = 'MX' | 'TXT' | 'CNAME' | 'A' | 'AAAA' | 'CAA';
export const DNS_RECORD_TYPES: readonly DnsRecordType[] = ['MX', 'TXT', 'CNAME', 'A', 'AAAA', 'CAA'];

/** What a domain is for. */
export type DomainPurpose = 'sending' | 'receiving';
/** What a DNS record is for; `status_page` records come from the brand plugin, not from a channel adapter. */
export type DnsRecordPurpose = DomainPurpose | 'status_page';

/** A DNS record the customer publishes (spec: DnsRecord). */
export interface DnsRecord {
  purpose: DnsRecordPurpose;
  /** What the record proves, e.g. `spf`, `dkim`, `dmarc`, `mx`, `return_path`. */
  record?: string;
  type: DnsRecordType;
  /** Fully qualified name, e.g. `abc._domainkey.mail.example.com`. */
  name: string;
  value: string;
  priority?: number;
  ttl?: string | number;
  status?: DnsRecordStatus;
}

/** Joi keys of the spec's DnsRecord answer; the domain and brand schemas spread them (each its own component). */
export const dnsRecordSchemaKeys = {
  purpose: Joi.string().valid('sending', 'receiving', 'status_page').required(),
  record: Joi.string(),
  type: Joi.string()
    .valid(...DNS_RECORD_TYPES)
    .required(),
  name: Joi.string().required(),
  value: Joi.string().required(),
  priority: Joi.number().integer(),
  ttl: Joi.alternatives(Joi.string(), Joi.number().integer()),
  status: Joi.string().valid(...DNS_RECORD_STATUSES),
};

/** A DnsRecord with the spec's fields only (stored records may carry more), in the spec's order. */
export function dnsRecordOut(r: DnsRecord): DnsRecord {
  return {
    purpose: r.purpose,
    ...(r.record !== undefined ? { record: r.record } : {}),
    type: r.type,
    name: r.name,
    value: r.value,
    ...(r.priority !== undefined ? { priority: r.priority } : {}),
    ...(r.ttl !== undefined ? { ttl: r.ttl } : {}),
    ...(r.status !== undefined ? { status: r.status } : {}),
  };
}

/** What the provider knows about one domain. */
export interface DomainState {
  /** Lower-case domain name as registered. */
  domain: string;
  purpose: DomainPurpose;
  status: DomainStatus;
  /** Records to publish, each with its own status when the provider checks them one by one. */
  records: DnsRecord[];
  /** Why the last check failed, for `failed` and `temporary_failure`. */
  error?: { code: string; message: string };
}

export interface EmailAddress {
  address: string;
  name?: string;
}

/**
 * Headers of an outgoing message. The known threading and list headers are named; any other
 * header may be added. `Message-ID` always equals `OutgoingEmail.messageId`.
 */
export type OutgoingHeaders = {
  'Message-ID'?: string;
  'In-Reply-To'?: string;
  References?: string;
  /** `auto-replied` or `auto-generated` on everything the service sends by itself (RFC 3834). */
  'Auto-Submitted'?: string;
  'List-Unsubscribe'?: string;
  'List-Unsubscribe-Post'?: string;
} & Record<string, string>;

export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  /** For inline images referenced as `cid:` in the HTML. */
  contentId?: string;
}

/** One message to send. Built by the inbox plugin; the adapter only delivers it. */
export interface OutgoingEmail {
  from: EmailAddress;
  to: EmailAddress[];
  cc?: EmailAddress[];
  replyTo?: EmailAddress;
  subject: string;
  text: string;
  html?: string;
  headers: OutgoingHeaders;
  /** RFC 5322 Message-ID with angle brackets, e.g. `<msg_01h…@mail.patchwell.dev>`; the adapter sends this exact id. */
  messageId: string;
  attachments?: EmailAttachment[];
}

/** What the provider answered to a send. */
export interface SendResult {
  /** The provider's id of the message; delivery events refer to it. */
  providerMessageId: string;
  /** Recipients the provider accepted (addresses only). */
  accepted: string[];
  /** Recipients the provider refused at once. */
  rejected?: string[];
}

/** One request to `POST /v1/webhooks/email/{provider}`, as hapi received it. */
export interface InboundDelivery {
  /** The `{provider}` path segment (`mime`, `ses`, …); one of the adapter's `inboundProviders`. */
  provider: string;
  headers: RawHeaders;
  /** Exact bytes of the body; signatures are computed over them. */
  rawBody: Buffer;
  /** Content-Type without parameters, lower case, e.g. `message/rfc822` or `text/plain` (SNS). */
  contentType: string;
}

/** A provider's verdict on one check of an inbound message. `gray` covers neutral and soft fail. */
export type ProviderVerdict = 'pass' | 'fail' | 'gray' | 'none' | 'error';
export const PROVIDER_VERDICTS: readonly ProviderVerdict[] = ['pass', 'fail', 'gray', 'none', 'error'];

export interface ProviderVerdicts {
  spam?: ProviderVerdict;
  virus?: ProviderVerdict;
  spf?: ProviderVerdict;
  dkim?: ProviderVerdict;
  dmarc?: ProviderVerdict;
}

/** One inbound message for one envelope recipient. */
export interface ParsedInboundEmail {
  /** Envelope recipient, lower case, e.g. `acme@in.patchwell.dev`. */
  recipient: string;
  /** The whole RFC 5322 message; the inbox plugin parses it with mailparser. */
  raw: Buffer;
  providerVerdicts: ProviderVerdicts;
  /** The provider's id of the delivery; with the recipient, the deduplication key. */
  providerMessageId: string;
}

export type DeliveryEventType = 'delivered' | 'bounced' | 'complained' | 'failed';
export const DELIVERY_EVENT_TYPES: readonly DeliveryEventType[] = ['delivered', 'bounced', 'complained', 'failed'];

/** What happened to a message the service sent (maps to Message.delivery_status). */
export interface DeliveryEvent {
  type: DeliveryEventType;
  /** `SendResult.providerMessageId` of the message concerned. */
  providerMessageId: string;
  recipient: string;
  /** Provider's reason in words, e.g. `550 5.1.1 user unknown`. */
  detail: string;
  /** For `bounced`: true for a permanent (hard) bounce. */
  permanent?: boolean;
  occurredAt: Date;
}

/**
 * What one delivery carried. Control messages (an SNS subscription confirmation) are handled
 * inside the adapter and give two empty lists.
 */
export interface InboundParseResult {
  emails: ParsedInboundEmail[];
  events: DeliveryEvent[];
}

/** A delivery whose signature is missing or wrong. The webhook answers 401; nothing is stored. */
export class DeliverySignatureError extends SignatureError {
  override name = 'DeliverySignatureError';
  constructor(message = 'the email delivery signature is missing or does not match', opts: AdapterErrorOptions = {}) {
    super(message, opts);
  }
}

/**
 * An email provider: sends the service's mail, reads inbound deliveries and delivery events,
 * and registers the domains customers send from and receive on. One is active (`adapters.channel`).
 */
export interface ChannelAdapter {
  /**
   * Name of the adapter in config and container keys.
   *
   * @example adapter.identifier // 'mail-ses'
   */
  readonly identifier: string;

  /**
   * The `{provider}` path segments of `POST /v1/webhooks/email/{provider}` this adapter reads.
   *
   * @example adapter.inboundProviders // ['ses', 'mime']
   */
  readonly inboundProviders: readonly string[];

  /**
   * Sends one message. Throws an AdapterError (retryable for a provider outage) when nothing was sent.
   *
   * @example
   * const { providerMessageId } = await adapter.send({
   *   from: { address: 'support@acme.test', name: 'Acme' }, to: [{ address: 'ada@example.com' }],
   *   subject: 'Re: Login fails', text: 'Fixed in 1.4.2', messageId: '<m1@acme.test>',
   *   headers: { 'In-Reply-To': '<c1@example.com>', References: '<c1@example.com>', 'Auto-Submitted': 'auto-replied' },
   * });
   */
  send(message: OutgoingEmail): Promise<SendResult>;

  /**
   * Verifies and reads one inbound delivery: messages for the service, delivery events, or both.
   * Throws DeliverySignatureError when the signature is missing or wrong (before reading the
   * body), PayloadError when the body cannot be read.
   *
   * @example
   * const { emails, events } = await adapter.parseInbound({
   *   provider: 'mime', contentType: 'message/rfc822', rawBody,
   *   headers: { 'x-envelope-to': 'acme@in.patchwell.dev', 'x-webhook-signature': 'sha256=…' },
   * });
   */
  parseInbound(delivery: InboundDelivery): Promise<InboundParseResult>;

  /**
   * Creates (or re-reads, when it exists) a sending or receiving domain at the provider and
   * returns the DNS records the customer publishes.
   *
   * @example
   * const state = await adapter.registerDomain('mail.acme.com', 'sending');
   * state.records // [{ purpose: 'sending', record: 'dkim', type: 'CNAME', name: '…._domainkey.mail.acme.com', … }]
   */
  registerDomain(domain: string, purpose: DomainPurpose): Promise<DomainState>;

  /**
   * Checks the domain's DNS records now and returns its status.
   *
   * @example (await adapter.checkDomain('mail.acme.com', 'sending')).status // 'verified'
   */
  checkDomain(domain: string, purpose: DomainPurpose): Promise<DomainState>;

  /**
   * Removes the domain from the provider; succeeds when it is already gone.
   *
   * @example await adapter.deleteDomain('mail.acme.com', 'sending')
   */
  deleteDomain(domain: string, purpose: DomainPurpose): Promise<void>;
}

/** Options every channel adapter accepts. */
export interface ChannelAdapterOptions {
  /**
   * Secret of the `mime` inbound provider (HMAC-SHA256 of the raw body, header
   * X-Webhook-Signature). The kernel fills it from EMAIL_WEBHOOK_SECRET when it is not set.
   */
  webhookSecret?: string;
}

/** Joi keys of ChannelAdapterOptions; a vendor schema spreads them: `Joi.object<SmtpOptions>({ ...channelAdapterOptionKeys, url })`. */
export const channelAdapterOptionKeys: Joi.PartialSchemaMap<ChannelAdapterOptions> = {
  webhookSecret: Joi.string().min(16),
};

export const channelAdapterOptionsSchema = Joi.object<ChannelAdapterOptions>(channelAdapterOptionKeys);

/** Signature header value of a `mime` delivery: `sha256=<hex HMAC-SHA256 of the raw body>`. */
export function signMimeDelivery(rawBody: Buffer | string, secret: string): string {
  return `sha256=${hmacSha256Hex(secret, rawBody)}`;
}

/**
 * Reads a delivery of the `mime` provider: a raw RFC 5322 message, the envelope recipient in
 * X-Envelope-To (several separated by commas) and X-Webhook-Signature. Shared by every adapter
 * that offers `mime`.
 */
export function parseMimeDelivery(delivery: InboundDelivery, secret: string | undefined): InboundParseResult {
  if (!secret || !verifySha256Header(delivery.headers, 'x-webhook-signature', secret, delivery.rawBody)) {
    throw new DeliverySignatureError();
  }
  const recipients = (headerValue(delivery.headers, 'x-envelope-to') ?? '')
    .split(',')
    .map((r) => r.trim().replace(/^<|>$/g, '').toLowerCase())
    .filter(Boolean);
  if (recipients.length === 0) throw new PayloadError('X-Envelope-To is missing');
  if (delivery.rawBody.length === 0) throw new PayloadError('the message is empty');
  const providerMessageId = `mime-${hmacSha256Hex('message-id', delivery.rawBody).slice(0, 32)}`;
  return {
    emails: recipients.map((recipient) => ({
      recipient,
      raw: delivery.rawBody,
      providerVerdicts: {},
      providerMessageId,
    })),
    events: [],
  };
}

/**
 * Base of channel adapters. A vendor class sets `static identifier` and `optionsSchema`
 * (spreading `channelAdapterOptionKeys`) and implements the provider calls; `mime`
 * deliveries are read here.
 *
 * @example
 * export class SmtpChannelAdapter extends AbstractChannelAdapter<SmtpOptions> {
 *   static override identifier = 'mail-smtp';
 *   static override optionsSchema = Joi.object<SmtpOptions>({ ...channelAdapterOptionKeys, url: Joi.string().uri().required() });
 *   …
 * }
 */
export abstract class AbstractChannelAdapter<O extends ChannelAdapterOptions = ChannelAdapterOptions>
  extends AbstractAdapter<O>
  implements ChannelAdapter
{
  static override optionsSchema: Joi.ObjectSchema<ChannelAdapterOptions> = channelAdapterOptionsSchema;

  get inboundProviders(): readonly string[] {
    return ['mime'];
  }

  abstract send(message: OutgoingEmail): Promise<SendResult>;
  abstract registerDomain(domain: string, purpose: DomainPurpose): Promise<DomainState>;
  abstract checkDomain(domain: string, purpose: DomainPurpose): Promise<DomainState>;
  abstract deleteDomain(domain: string, purpose: DomainPurpose): Promise<void>;

  /** Reads `mime` deliveries; a vendor class overrides it for its own providers and calls super for `mime`. */
  parseInbound(delivery: InboundDelivery): Promise<InboundParseResult> {
    // In the executor, a delivery that cannot be read rejects the promise, as the contract has it.
    return new Promise((resolve) => {
      if (delivery.provider !== 'mime') {
        throw new PayloadError(`adapter ${this.identifier} does not read provider ${delivery.provider}`);
      }
      resolve(parseMimeDelivery(delivery, this.options.webhookSecret));
    });
  }
}
