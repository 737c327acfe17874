/**
 * Amazon SNS HTTP(S) deliveries: the JSON envelope, its signature (SignatureVersion 1 =
 * SHA1withRSA, 2 = SHA256withRSA over the canonical string of the message's fields) and the
 * signing certificate, fetched from an SNS host over https and cached.
 */
import { X509Certificate, createVerify } from 'node:crypto';
import { AdapterError, DeliverySignatureError, PayloadError } from '../../core/contracts/index.js';

export type SnsMessageType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

export interface SnsMessage {
  Type: SnsMessageType;
  MessageId: string;
  TopicArn: string;
  Subject?: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: '1' | '2';
  Signature: string;
  SigningCertURL: string;
  SubscribeURL?: string;
  Token?: string;
  UnsubscribeURL?: string;
}

/** Hosts SNS signs from and sends subscription links on (all partitions, incl. China). */
export const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

const TYPES: readonly SnsMessageType[] = ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'];

/** True for an https URL on an SNS host. */
export function isSnsUrl(value: unknown, pathPattern?: RegExp): boolean {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.port !== '' || url.username || url.password) return false;
  if (!SNS_HOST.test(url.hostname)) return false;
  return pathPattern ? pathPattern.test(url.pathname) : true;
}

/** The string SNS signs: `Key\nValue\n` for each present field, in SNS's fixed order. */
export function snsStringToSign(m: Partial<SnsMessage>): string {
  const keys: Array<keyof SnsMessage> =
    m.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return keys
    .filter((k) => m[k] !== undefined && m[k] !== null)
    .map((k) => `${k}\n${m[k]}\n`)
    .join('');
}

/**
 * Reads the envelope of an SNS delivery; throws DeliverySignatureError when it is not one (an
 * unauthenticated body is refused as such, whatever it holds).
 */
export function readSnsEnvelope(rawBody: Buffer): SnsMessage {
  let m: unknown;
  try {
    m = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new DeliverySignatureError('the SNS delivery is not JSON, so it carries no signature');
  }
  const o = m as Record<string, unknown>;
  const strings = ['MessageId', 'TopicArn', 'Message', 'Timestamp', 'Signature', 'SigningCertURL'];
  if (
    typeof m !== 'object' ||
    m === null ||
    !TYPES.includes(o.Type as SnsMessageType) ||
    strings.some((k) => typeof o[k] !== 'string')
  ) {
    throw new DeliverySignatureError('the SNS delivery lacks its type, fields or signature');
  }
  if (o.SignatureVersion !== '1' && o.SignatureVersion !== '2') {
    throw new DeliverySignatureError(`SNS SignatureVersion ${String(o.SignatureVersion)} is not supported`);
  }
  return m as SnsMessage;
}

/** Fetches a PEM certificate (injectable for tests). */
export type CertificateFetcher = (url: string) => Promise<string>;

export const fetchCertificate: CertificateFetcher = async (url) => {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'error' });
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return res.text();
};

/**
 * Checks SNS signatures, caching certificates by URL. A certificate that cannot be fetched is a
 * retryable AdapterError (SNS delivers again later); everything else wrong is a
 * DeliverySignatureError.
 */
export class SnsVerifier {
  private readonly certs = new Map<string, Promise<string>>();

  constructor(private readonly fetcher: CertificateFetcher = fetchCertificate) {}

  async verify(m: SnsMessage, now = new Date()): Promise<void> {
    if (!isSnsUrl(m.SigningCertURL, /\.pem$/)) {
      throw new DeliverySignatureError('SigningCertURL is not an https .pem URL on an SNS host');
    }
    const pem = await this.certificate(m.SigningCertURL);
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(pem);
    } catch {
      this.certs.delete(m.SigningCertURL);
      throw new DeliverySignatureError('the SNS signing certificate cannot be read');
    }
    if (now < new Date(cert.validFrom) || now > new Date(cert.validTo)) {
      throw new DeliverySignatureError('the SNS signing certificate is not valid now');
    }
    const verifier = createVerify(m.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
    verifier.update(snsStringToSign(m), 'utf8');
    let ok: boolean;
    try {
      ok = verifier.verify(cert.publicKey, m.Signature, 'base64');
    } catch {
      ok = false;
    }
    if (!ok) throw new DeliverySignatureError('the SNS signature does not match');
  }

  private certificate(url: string): Promise<string> {
    let pending = this.certs.get(url);
    if (!pending) {
      pending = this.fetcher(url).catch((err: unknown) => {
        this.certs.delete(url);
        throw new AdapterError(
          'certificate_unavailable',
          `the SNS signing certificate ${url} cannot be fetched: ${(err as Error).message}`,
          {
            retryable: true,
            cause: err,
          },
        );
      });
      this.certs.set(url, pending);
    }
    return pending;
  }
}

/** Parses the `Message` of a Notification as JSON; PayloadError when it is not. */
export function notificationJson(m: SnsMessage): Record<string, unknown> {
  try {
    const value = JSON.parse(m.Message) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new PayloadError('the SNS notification does not carry an SES notification (JSON object)');
}
