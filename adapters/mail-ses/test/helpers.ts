/**
 * Local peers of the SES adapter tests:
 * - aws-ses-v2-local (the SES emulator) takes SendEmail and lists what it got at GET /store;
 * - in front of it, a small node:http fake of the SES v2 email-identity operations the emulator
 *   lacks (Create/Get/Delete identity, MAIL FROM), which also keeps the raw MIME of each send;
 * - an SNS signer: a self-signed certificate and key made with openssl, and signed envelopes.
 */
import { createSign, randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sesLocal from 'aws-ses-v2-local';
import type { Test } from 'tap';
import type { InboundDelivery } from '../../../core/contracts/index.js';
import { makeKeyPair } from '../../../test/helpers/certs.js';
import { snsStringToSign, type SnsMessage } from '../sns.js';

export const REGION = 'eu-west-1';
export const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:patchwell-inbound';
export const CERT_URL = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0123456789abcdef.pem';

type Status = 'PENDING' | 'SUCCESS' | 'FAILED' | 'TEMPORARY_FAILURE' | 'NOT_STARTED';

interface Identity {
  tokens: string[];
  dkim: Status;
  verification: Status;
  errorType?: string;
  mailFrom?: { domain: string; status: Status; behavior: string };
}

export interface SesPeer {
  endpoint: string;
  emulator: string;
  identities: Map<string, Identity>;
  /** Raw MIME of every SendEmail, in order. */
  raws: Buffer[];
  /** Every request the fake saw: `METHOD path`. */
  calls: string[];
  store(): Promise<{
    emails: Array<{
      messageId: string;
      from: string;
      subject: string;
      destination: { to: string[]; cc: string[] };
      body: { text?: string; html?: string };
    }>;
  }>;
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function json(res: ServerResponse, status: number, value: unknown, errorType?: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(JSON.stringify(errorType ? { message: String(value) } : value));
}

function identityJson(id: Identity): Record<string, unknown> {
  return {
    IdentityType: 'DOMAIN',
    FeedbackForwardingStatus: true,
    VerifiedForSendingStatus: id.verification === 'SUCCESS',
    VerificationStatus: id.verification,
    ...(id.errorType ? { VerificationInfo: { ErrorType: id.errorType } } : {}),
    DkimAttributes: { SigningEnabled: true, Status: id.dkim, Tokens: id.tokens, SigningAttributesOrigin: 'AWS_SES' },
    ...(id.mailFrom
      ? {
          MailFromAttributes: {
            MailFromDomain: id.mailFrom.domain,
            MailFromDomainStatus: id.mailFrom.status,
            BehaviorOnMxFailure: id.mailFrom.behavior,
          },
        }
      : {}),
    Policies: {},
    Tags: [],
  };
}

/** Starts the emulator and the identity fake in front of it; both stop at teardown. */
export async function startSesPeer(t: Test): Promise<SesPeer> {
  const emulatorServer = await sesLocal.default({ host: '127.0.0.1', port: 0 });
  const emulatorPort = (emulatorServer.address() as AddressInfo).port;
  const identities = new Map<string, Identity>();
  const raws: Buffer[] = [];
  const calls: string[] = [];

  const fake = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = decodeURIComponent(url.pathname);
    calls.push(`${req.method} ${path}`);
    const payload = await body(req);
    const m = /^\/v2\/email\/identities(?:\/([^/]+))?(\/mail-from)?$/.exec(path);
    if (m) {
      const name = m[1];
      if (req.method === 'POST' && !name) {
        const { EmailIdentity } = JSON.parse(payload.toString()) as { EmailIdentity: string };
        if (identities.has(EmailIdentity))
          return json(res, 400, `Email identity ${EmailIdentity} already exist.`, 'AlreadyExistsException');
        const id: Identity = {
          tokens: [0, 1, 2].map(() => randomBytes(16).toString('hex')),
          dkim: 'PENDING',
          verification: 'PENDING',
        };
        identities.set(EmailIdentity, id);
        return json(res, 200, {
          IdentityType: 'DOMAIN',
          VerifiedForSendingStatus: false,
          DkimAttributes: identityJson(id).DkimAttributes,
        });
      }
      const id = name ? identities.get(name) : undefined;
      if (!id) return json(res, 404, `Email identity ${name} does not exist.`, 'NotFoundException');
      if (req.method === 'GET' && !m[2]) return json(res, 200, identityJson(id));
      if (req.method === 'DELETE' && !m[2]) {
        identities.delete(name);
        return json(res, 200, {});
      }
      if (req.method === 'PUT' && m[2]) {
        const p = JSON.parse(payload.toString()) as { MailFromDomain: string; BehaviorOnMxFailure: string };
        id.mailFrom = { domain: p.MailFromDomain, status: 'PENDING', behavior: p.BehaviorOnMxFailure };
        return json(res, 200, {});
      }
      return json(res, 400, 'unexpected identity call', 'BadRequestException');
    }
    if (req.method === 'POST' && path === '/v2/email/outbound-emails') {
      const p = JSON.parse(payload.toString()) as { Content?: { Raw?: { Data?: string } } };
      const raw = p.Content?.Raw?.Data ? Buffer.from(p.Content.Raw.Data, 'base64') : null;
      if (raw) {
        if (/^To:.*refused@/m.test(raw.toString()))
          return json(res, 400, 'Email address is not verified.', 'MessageRejected');
        if (/^To:.*throttled@/m.test(raw.toString()))
          return json(res, 429, 'Maximum sending rate exceeded.', 'TooManyRequestsException');
        raws.push(raw);
      }
    }
    // Everything else goes to the emulator as it came.
    const upstream = request(
      { host: '127.0.0.1', port: emulatorPort, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => json(res, 502, err.message, 'InternalFailure'));
    upstream.end(payload);
  });
  const port = await listen(fake);
  t.teardown(async () => {
    await close(fake);
    await close(emulatorServer);
  });
  const emulator = `http://127.0.0.1:${emulatorPort}`;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    emulator,
    identities,
    raws,
    calls,
    store: async () => (await (await fetch(`${emulator}/store`)).json()) as Awaited<ReturnType<SesPeer['store']>>,
  };
}

export interface SnsSigner {
  certPem: string;
  /** An envelope signed with the test key (or `otherKey`), SignatureVersion 2 unless told. */
  envelope(
    fields: Partial<SnsMessage> & Pick<SnsMessage, 'Type' | 'Message'>,
    opts?: { version?: '1' | '2'; otherKey?: boolean },
  ): SnsMessage;
  delivery(m: SnsMessage | string): InboundDelivery;
  fetches: string[];
  fetchCertificate(url: string): Promise<string>;
}

/** A self-signed SNS-like certificate and key (and a second key that SNS never used). */
export function snsSigner(): SnsSigner {
  const main = makeKeyPair('sns.amazonaws.com', { days: 2 });
  const other = makeKeyPair('sns.amazonaws.com', { days: 2 });
  const fetches: string[] = [];
  return {
    certPem: main.cert,
    fetches,
    fetchCertificate(url) {
      fetches.push(url);
      return Promise.resolve(main.cert);
    },
    envelope(fields, opts = {}) {
      const m: SnsMessage = {
        MessageId: randomBytes(16).toString('hex'),
        TopicArn: TOPIC,
        Timestamp: new Date().toISOString(),
        SignatureVersion: opts.version ?? '2',
        SigningCertURL: CERT_URL,
        Signature: '',
        ...fields,
      };
      const signer = createSign(m.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
      signer.update(snsStringToSign(m), 'utf8');
      m.Signature = signer.sign(opts.otherKey ? other.key : main.key, 'base64');
      return m;
    },
    delivery(m) {
      const rawBody = Buffer.from(typeof m === 'string' ? m : JSON.stringify(m));
      const type = typeof m === 'string' ? 'Notification' : m.Type;
      return {
        provider: 'ses',
        contentType: 'text/plain',
        rawBody,
        headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': type },
      };
    },
  };
}

/** An RFC 5322 message as a sender's server would deliver it. */
export function inboundRaw(to: string): Buffer {
  return Buffer.from(
    [
      'From: Ada <ada@example.test>',
      `To: ${to}`,
      'Subject: Export button broken',
      `Message-ID: <in-${randomBytes(4).toString('hex')}@example.test>`,
      'Date: Tue, 02 Jan 2024 10:00:00 +0000',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'The CSV export does nothing.',
      '',
    ].join('\r\n'),
  );
}

/** An SES receipt notification (SNS action) for `recipients`. */
export function receivedNotification(
  recipients: string[],
  raw: Buffer,
  verdicts: Record<string, string> = {},
  encoding: 'BASE64' | 'UTF8' = 'BASE64',
): string {
  const v = (k: string) => ({ status: verdicts[k] ?? 'PASS' });
  return JSON.stringify({
    notificationType: 'Received',
    mail: {
      timestamp: '2024-01-02T10:00:01.000Z',
      source: 'ada@example.test',
      messageId: 'o3vrnil0e2ic28trm7dfhrc2v0clambfcd7i0ig01',
      destination: recipients,
    },
    receipt: {
      timestamp: '2024-01-02T10:00:01.000Z',
      processingTimeMillis: 420,
      recipients,
      spamVerdict: v('spam'),
      virusVerdict: v('virus'),
      spfVerdict: v('spf'),
      dkimVerdict: v('dkim'),
      dmarcVerdict: v('dmarc'),
      action: { type: 'SNS', topicArn: TOPIC, encoding },
    },
    content: encoding === 'BASE64' ? raw.toString('base64') : raw.toString('utf8'),
  });
}
