import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeKeyPair, type KeyPair } from '../../../../test/helpers/certs.js';

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl. */
export const selfSigned = (): KeyPair =>
  makeKeyPair('localhost', { days: 2, subjectAltName: 'IP:127.0.0.1,DNS:localhost' });

export interface ReceivedBatch {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: {
    batch_id: string;
    stream_id: string;
    org_id: string;
    test: boolean;
    entries: Array<{ id: string; action: string; created_at: string }>;
  };
}

/**
 * A log collector over HTTPS: records every batch it accepts. `down()` makes it answer 503
 * (`mode: 'error'`) or close its port (`mode: 'closed'`); `up()` brings it back on the same port.
 */
export class HttpsPeer {
  readonly batches: ReceivedBatch[] = [];
  refused = 0;
  private failing = false;
  private server: https.Server;
  port = 0;

  constructor(private readonly tls: { key: string; cert: string }) {
    this.server = this.make();
  }

  private make(): https.Server {
    return https.createServer(this.tls, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (this.failing) {
          this.refused++;
          res.writeHead(503).end('down');
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        this.batches.push({ headers: req.headers, raw, body: JSON.parse(raw) as ReceivedBatch['body'] });
        res.writeHead(204).end();
      });
    });
  }

  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return `https://127.0.0.1:${this.port}/collect`;
  }

  async down(mode: 'error' | 'closed'): Promise<void> {
    if (mode === 'error') {
      this.failing = true;
      return;
    }
    await this.stop();
  }

  async up(): Promise<void> {
    this.failing = false;
    if (!this.server.listening) {
      this.server = this.make();
      await this.start(this.port);
    }
  }

  async stop(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Every delivered entry id, in arrival order. */
  entryIds(opts: { includeTests?: boolean } = {}): string[] {
    return this.batches
      .filter((b) => opts.includeTests || !b.body.test)
      .flatMap((b) => b.body.entries.map((e) => e.id));
  }
}

/** Checks an X-Patchwell-Signature header the way a receiver would (any v1 made with `secret`, t within tolerance). */
export function verifySignature(header: string, raw: string, secret: string, toleranceS = 300): boolean {
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isFinite(t) || Math.abs(Date.now() / 1000 - t) > toleranceS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex');
  return parts.some(([k, v]) => k === 'v1' && v === expected);
}

/**
 * A small peer of the CloudWatch Logs JSON 1.1 protocol (`X-Amz-Target: Logs_20140328.<Op>`):
 * CreateLogGroup, CreateLogStream, PutLogEvents (ResourceNotFoundException for a missing group
 * or stream, InvalidParameterException for events out of time order), enough for the sink. It
 * checks that requests are SigV4-signed with the expected access key.
 */
export class CloudWatchLogsPeer {
  readonly groups = new Map<string, Map<string, Array<{ timestamp: number; message: string }>>>();
  readonly calls: string[] = [];
  private server = http.createServer((req, res) => this.handle(req, res));

  constructor(private readonly accessKeyId: string) {}

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  events(group: string, stream: string) {
    return this.groups.get(group)?.get(stream) ?? [];
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fail = (status: number, type: string, message: string) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'test' });
        res.end(JSON.stringify({ __type: type, message }));
      };
      const ok = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'test' });
        res.end(JSON.stringify(body));
      };
      const auth = String(req.headers.authorization ?? '');
      if (!auth.startsWith('AWS4-HMAC-SHA256 ') || !auth.includes(`Credential=${this.accessKeyId}/`))
        return fail(400, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      const op = String(req.headers['x-amz-target'] ?? '').replace(/^Logs_20140328\./, '');
      this.calls.push(op);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        logGroupName?: string;
        logStreamName?: string;
        logEvents?: Array<{ timestamp: number; message: string }>;
      };
      const group = this.groups.get(body.logGroupName ?? '');
      switch (op) {
        case 'CreateLogGroup':
          if (group) return fail(400, 'ResourceAlreadyExistsException', 'The specified log group already exists');
          this.groups.set(body.logGroupName!, new Map());
          return ok({});
        case 'CreateLogStream':
          if (!group) return fail(400, 'ResourceNotFoundException', 'The specified log group does not exist.');
          if (group.has(body.logStreamName!))
            return fail(400, 'ResourceAlreadyExistsException', 'The specified log stream already exists');
          group.set(body.logStreamName!, []);
          return ok({});
        case 'PutLogEvents': {
          if (!group) return fail(400, 'ResourceNotFoundException', 'The specified log group does not exist.');
          const stream = group.get(body.logStreamName!);
          if (!stream) return fail(400, 'ResourceNotFoundException', 'The specified log stream does not exist.');
          const events = body.logEvents ?? [];
          for (let i = 1; i < events.length; i++) {
            if (events[i].timestamp < events[i - 1].timestamp)
              return fail(
                400,
                'InvalidParameterException',
                'Log events in a single PutLogEvents request must be in chronological order.',
              );
          }
          stream.push(...events);
          return ok({ nextSequenceToken: String(stream.length) });
        }
        default:
          return fail(400, 'UnknownOperationException', `unknown operation ${op}`);
      }
    });
  }
}
