import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { performance } from 'node:perf_hooks';
import { SafeFetchError, type SafeFetch } from '../../../core/security/safe-fetch.js';
import { hmacSha256Hex } from '../../../core/security/tokens.js';
import { lazyImport } from '../../../core/kernel/lazy.js';
import type { AuditEntryOut } from './entries.js';

/** What a destination receives: one JSON document per batch. */
export interface AuditBatch {
  /** Same entries, same id: a retried batch keeps its id so a receiver can drop a repeat. */
  batch_id: string;
  stream_id: string;
  org_id: string;
  test: boolean;
  sent_at: string;
  entries: AuditEntryOut[];
}

export interface SinkResult {
  ok: boolean;
  /** The destination's HTTP status, when it answered. */
  status: number | null;
  error: string | null;
  latency_ms: number;
}

/** A destination of the audit stream. */
export interface AuditSink {
  deliver(batch: AuditBatch, signingSecrets: string[]): Promise<SinkResult>;
}

export const SIGNATURE_HEADER = 'X-Patchwell-Signature';
export const BATCH_HEADER = 'X-Patchwell-Batch-Id';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one v1 per secret (the current one
 * first; the previous one too for a while after a rotation), as Stripe signs its webhooks.
 */
export function signatureHeader(body: string, secrets: string[], at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return [`t=${t}`, ...secrets.map((s) => `v1=${hmacSha256Hex(s, `${t}.${body}`)}`)].join(',');
}

const elapsed = (start: number) => Math.round(performance.now() - start);

/** POSTs the batch as JSON to an https URL through the SSRF-guarded fetch. */
export class HttpsSink implements AuditSink {
  constructor(
    private readonly url: string,
    private readonly fetch: SafeFetch,
    private readonly clock: () => Date,
  ) {}

  async deliver(batch: AuditBatch, secrets: string[]): Promise<SinkResult> {
    const body = JSON.stringify(batch);
    const start = performance.now();
    try {
      const res = await this.fetch(this.url, {
        method: 'POST',
        redirect: 'error',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Patchwell-Audit-Stream/1',
          [SIGNATURE_HEADER]: signatureHeader(body, secrets, this.clock()),
          [BATCH_HEADER]: batch.batch_id,
        },
        body,
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status >= 200 && res.status < 300)
        return { ok: true, status: res.status, error: null, latency_ms: elapsed(start) };
      return { ok: false, status: res.status, error: `destination answered ${res.status}`, latency_ms: elapsed(start) };
    } catch (err) {
      const code = err instanceof SafeFetchError ? err.code : 'request_failed';
      return { ok: false, status: null, error: `${code}: ${(err as Error).message}`, latency_ms: elapsed(start) };
    }
  }
}

export interface CloudWatchSettings {
  region: string;
  logGroup: string;
  logStream: string;
  accessKeyId: string;
  secretAccessKey: string;
  endpoint: string | null;
  timeoutMs: number;
}

type CloudWatchLogsSdk = typeof import('@aws-sdk/client-cloudwatch-logs');
/** The AWS SDK is imported on the first delivery, not with the plugin (it costs a third of a second). */
const loadCloudWatchLogs = lazyImport((): Promise<CloudWatchLogsSdk> => import('@aws-sdk/client-cloudwatch-logs'));

/**
 * PutLogEvents to a log group the customer owns, one log event per entry (the message is the
 * entry's JSON, the batch id in each). The log stream is created when missing; the log group is
 * the customer's to create (and to grant logs:PutLogEvents, logs:CreateLogStream on).
 */
export class CloudWatchSink implements AuditSink {
  private client: CloudWatchLogsClient | null = null;

  constructor(private readonly s: CloudWatchSettings) {}

  private async connect(): Promise<{ client: CloudWatchLogsClient; sdk: CloudWatchLogsSdk }> {
    const sdk = await loadCloudWatchLogs();
    const s = this.s;
    this.client ??= new sdk.CloudWatchLogsClient({
      region: s.region,
      credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
      maxAttempts: 1,
      requestHandler: { requestTimeout: s.timeoutMs, connectionTimeout: s.timeoutMs },
      ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    });
    return { client: this.client, sdk };
  }

  async deliver(batch: AuditBatch): Promise<SinkResult> {
    const start = performance.now();
    // CloudWatch wants events in time order; the batch is in queue order, which may differ by a hair.
    const logEvents = batch.entries
      .map((e) => ({
        timestamp: Date.parse(e.created_at),
        message: JSON.stringify({ batch_id: batch.batch_id, test: batch.test, ...e }),
      }))
      .sort((a, b) => a.timestamp - b.timestamp);
    try {
      const { client, sdk } = await this.connect();
      const put = () =>
        client.send(
          new sdk.PutLogEventsCommand({ logGroupName: this.s.logGroup, logStreamName: this.s.logStream, logEvents }),
        );
      try {
        await put();
      } catch (err) {
        if ((err as { name?: string }).name !== 'ResourceNotFoundException' || !/stream/i.test((err as Error).message))
          throw err;
        await client.send(
          new sdk.CreateLogStreamCommand({ logGroupName: this.s.logGroup, logStreamName: this.s.logStream }),
        );
        await put();
      }
      return { ok: true, status: 200, error: null, latency_ms: elapsed(start) };
    } catch (err) {
      const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
      return {
        ok: false,
        status: e.$metadata?.httpStatusCode ?? null,
        error: `${e.name ?? 'Error'}: ${e.message ?? ''}`.slice(0, 500),
        latency_ms: elapsed(start),
      };
    }
  }

  destroy(): void {
    this.client?.destroy();
  }
}
