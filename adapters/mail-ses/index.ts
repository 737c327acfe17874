import {
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  PutEmailIdentityMailFromAttributesCommand,
  SESv2Client,
  SendEmailCommand,
  type GetEmailIdentityResponse,
  type SESv2ClientConfig,
} from '@aws-sdk/client-sesv2';
import Joi from 'joi';
import {
  AbstractChannelAdapter,
  AdapterError,
  AdapterNotFoundError,
  DeliverySignatureError,
  adapterModule,
  channelAdapterOptionKeys,
  type AdapterDeps,
  type ChannelAdapterOptions,
  type DomainPurpose,
  type DomainState,
  type InboundDelivery,
  type InboundParseResult,
  type OutgoingEmail,
  type SendResult,
} from '../../core/contracts/index.js';
import { composeMime } from '../mail-common/mime.js';
import { identityState, mailFromDomain } from './domains.js';
import { readSesNotification } from './notifications.js';
import {
  SnsVerifier,
  fetchCertificate,
  isSnsUrl,
  notificationJson,
  readSnsEnvelope,
  type CertificateFetcher,
} from './sns.js';

export interface SesOptions extends ChannelAdapterOptions {
  /** AWS region; default the SDK's (AWS_REGION, shared config). */
  region?: string;
  /** Endpoint override; default the SDK's (AWS_ENDPOINT_URL_SESV2, AWS_ENDPOINT_URL). */
  endpoint?: string;
  /** Static credentials; default the SDK's chain (env, shared files, instance role…). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** SES configuration set for sending (event publishing to SNS: bounces, complaints, deliveries). */
  configurationSetName?: string;
  /** Custom MAIL FROM of sending domains: `<subdomain>.<domain>`. */
  mailFromSubdomain: string;
  /**
   * SNS topics whose notifications are read. Required for the `ses` provider: a valid SNS
   * signature proves only that some AWS account's topic sent it.
   */
  topicArns: string[];
  /** Visit the SubscribeURL of a signed SubscriptionConfirmation of an allowed topic. */
  confirmSubscriptions: boolean;
}

/** Test seams: where certificates come from and how subscriptions are confirmed. */
export interface SesHooks {
  fetchCertificate?: CertificateFetcher;
  confirmSubscription?: (subscribeUrl: string) => Promise<void>;
}

interface Log {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

interface AwsErrorShape {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
}

const PERMANENT_SEND_ERRORS = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'BadRequestException',
  'AccountSuspendedException',
  'NotFoundException',
]);

/** Maps an SDK error: throttling, 5xx and network trouble may pass later; a refused message does not. */
export function sesError(err: unknown, what: string): AdapterError {
  const e = (err ?? {}) as AwsErrorShape;
  const status = e.$metadata?.httpStatusCode;
  const permanent =
    PERMANENT_SEND_ERRORS.has(e.name ?? '') ||
    (status !== undefined &&
      status >= 400 &&
      status < 500 &&
      status !== 429 &&
      e.name !== 'TooManyRequestsException' &&
      e.name !== 'LimitExceededException' &&
      e.name !== 'SendingPausedException');
  return new AdapterError(
    permanent ? `${what}_rejected` : `${what}_failed`,
    `SES: ${e.name ?? 'Error'}: ${e.message ?? String(err)}`,
    {
      retryable: !permanent,
      details: { awsError: e.name, httpStatus: status },
      cause: err,
    },
  );
}

const awsName = (err: unknown) => (err as AwsErrorShape | null)?.name;

const defaultConfirm = async (url: string): Promise<void> => {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'error' });
  if (!res.ok) throw new Error(`GET SubscribeURL answered ${res.status}`);
};

/**
 * Amazon SES (API v2): sends raw MIME (so the threading headers survive), registers domains as
 * email identities (Easy DKIM, custom MAIL FROM, inbound MX) and reads SNS notifications:
 * received mail from a receipt rule's SNS action, and bounce, complaint and delivery events.
 */
export class SesChannelAdapter extends AbstractChannelAdapter<SesOptions> {
  static override identifier = 'mail-ses';
  static override optionsSchema = Joi.object<SesOptions>({
    ...channelAdapterOptionKeys,
    region: Joi.string().pattern(/^[a-z0-9-]+$/),
    endpoint: Joi.string().uri({ scheme: ['http', 'https'] }),
    credentials: Joi.object({
      accessKeyId: Joi.string().required(),
      secretAccessKey: Joi.string().required(),
      sessionToken: Joi.string(),
    }),
    configurationSetName: Joi.string().max(64),
    mailFromSubdomain: Joi.string().hostname().default('bounce'),
    topicArns: Joi.array()
      .items(Joi.string().pattern(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/))
      .default([]),
    confirmSubscriptions: Joi.boolean().default(true),
  });

  /** The SDK client (tests add middleware to it). */
  readonly client: SESv2Client;
  private readonly sns: SnsVerifier;
  private readonly confirm: (url: string) => Promise<void>;

  constructor(options: SesOptions, deps?: AdapterDeps, hooks: SesHooks = {}) {
    super(options, deps);
    const config: SESv2ClientConfig = {
      ...(options.region ? { region: options.region } : {}),
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
    };
    this.client = new SESv2Client(config);
    this.sns = new SnsVerifier(hooks.fetchCertificate ?? fetchCertificate);
    this.confirm = hooks.confirmSubscription ?? defaultConfirm;
  }

  override get inboundProviders(): readonly string[] {
    return ['ses', 'mime'];
  }

  async send(email: OutgoingEmail): Promise<SendResult> {
    const { raw, envelope } = await composeMime(email);
    try {
      const out = await this.client.send(
        new SendEmailCommand({
          FromEmailAddress: email.from.address,
          Destination: {
            ToAddresses: email.to.map((a) => a.address),
            ...(email.cc?.length ? { CcAddresses: email.cc.map((a) => a.address) } : {}),
          },
          Content: { Raw: { Data: raw } },
          ...(this.options.configurationSetName ? { ConfigurationSetName: this.options.configurationSetName } : {}),
        }),
      );
      if (!out.MessageId)
        throw new AdapterError('send_failed', 'SES answered without a MessageId', { retryable: true });
      return { providerMessageId: out.MessageId, accepted: envelope.to };
    } catch (err) {
      if (err instanceof AdapterError) throw err;
      throw sesError(err, 'send');
    }
  }

  async registerDomain(domain: string, purpose: DomainPurpose): Promise<DomainState> {
    const name = normalizeDomain(domain);
    try {
      await this.client.send(
        new CreateEmailIdentityCommand({
          EmailIdentity: name,
          ...(this.options.configurationSetName ? { ConfigurationSetName: this.options.configurationSetName } : {}),
        }),
      );
    } catch (err) {
      if (awsName(err) !== 'AlreadyExistsException') throw sesError(err, 'domain');
    }
    if (purpose === 'sending') {
      try {
        await this.client.send(
          new PutEmailIdentityMailFromAttributesCommand({
            EmailIdentity: name,
            MailFromDomain: mailFromDomain({ domain: name, mailFromSubdomain: this.options.mailFromSubdomain }),
            // Until the MX exists, SES sends with its own MAIL FROM instead of refusing.
            BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
          }),
        );
      } catch (err) {
        throw sesError(err, 'domain');
      }
    }
    return this.checkDomain(name, purpose);
  }

  async checkDomain(domain: string, purpose: DomainPurpose): Promise<DomainState> {
    const name = normalizeDomain(domain);
    let identity: GetEmailIdentityResponse;
    try {
      identity = await this.client.send(new GetEmailIdentityCommand({ EmailIdentity: name }));
    } catch (err) {
      if (awsName(err) === 'NotFoundException')
        throw new AdapterNotFoundError(`domain ${name} is not registered at SES`);
      throw sesError(err, 'domain');
    }
    return identityState(identity, {
      domain: name,
      purpose,
      region: await this.region(),
      mailFromSubdomain: this.options.mailFromSubdomain,
    });
  }

  /**
   * Deletes the SES identity. SES has one identity per domain: a domain registered for both
   * purposes loses both (the inbox plugin uses distinct sending and receiving domains).
   */
  async deleteDomain(domain: string, _purpose?: DomainPurpose): Promise<void> {
    try {
      await this.client.send(new DeleteEmailIdentityCommand({ EmailIdentity: normalizeDomain(domain) }));
    } catch (err) {
      if (awsName(err) !== 'NotFoundException') throw sesError(err, 'domain');
    }
  }

  override async parseInbound(delivery: InboundDelivery): Promise<InboundParseResult> {
    if (delivery.provider !== 'ses') return super.parseInbound(delivery);
    const m = readSnsEnvelope(delivery.rawBody);
    if (!this.options.topicArns.includes(m.TopicArn)) {
      throw new DeliverySignatureError(
        `SNS topic ${m.TopicArn} is not allowed (config key adapters.options.mail-ses.topicArns)`,
      );
    }
    await this.sns.verify(m);
    const log = this.deps.log as Log | undefined;
    if (m.Type === 'SubscriptionConfirmation') {
      if (!isSnsUrl(m.SubscribeURL))
        throw new DeliverySignatureError('SubscribeURL is not an https URL on an SNS host');
      if (this.options.confirmSubscriptions) {
        try {
          await this.confirm(m.SubscribeURL!);
        } catch (err) {
          throw new AdapterError(
            'subscription_unconfirmed',
            `SNS subscription to ${m.TopicArn} not confirmed: ${(err as Error).message}`,
            { retryable: true, cause: err },
          );
        }
        log?.info?.({ topicArn: m.TopicArn }, 'SNS subscription confirmed');
      } else {
        log?.warn?.(
          { topicArn: m.TopicArn, subscribeUrl: m.SubscribeURL },
          'SNS subscription waits for confirmation (confirmSubscriptions is off)',
        );
      }
      return { emails: [], events: [] };
    }
    if (m.Type === 'UnsubscribeConfirmation') {
      log?.warn?.({ topicArn: m.TopicArn }, 'SNS says this endpoint was unsubscribed');
      return { emails: [], events: [] };
    }
    const at = new Date(m.Timestamp);
    return readSesNotification(notificationJson(m), Number.isNaN(at.getTime()) ? new Date() : at);
  }

  private async region(): Promise<string> {
    const region = await this.client.config.region();
    if (!region)
      throw new AdapterError(
        'region_missing',
        'no AWS region is configured (AWS_REGION or adapters.options.mail-ses.region)',
      );
    return region;
  }

  close(): void {
    this.client.destroy();
  }
}

function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, '');
}

export default adapterModule('channel', SesChannelAdapter, (adapter) => {
  adapter.close();
  return Promise.resolve();
});
