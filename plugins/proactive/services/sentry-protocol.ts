import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions } from 'node:zlib';
import type Boom from '@hapi/boom';
import type { RawHeaders } from '../../../core/contracts/index.js';
import { headerValue } from '../../../core/contracts/index.js';
import { httpError } from '../../../core/http/errors.js';

/**
 * The wire details of the Sentry protocol that every SDK speaks (docs/proactive.md, "Sentry SDKs"):
 * where the DSN's public key comes from, compressed bodies, and the rate-limit header SDKs obey.
 */

/**
 * The public key a request names: `X-Sentry-Auth: Sentry sentry_key=…` (server SDKs) or the
 * `sentry_key` query parameter (browser SDKs, which avoid a CORS preflight). Null when neither does.
 */
export function sentryKeyOf(headers: RawHeaders, query: Record<string, unknown>): string | null {
  for (const name of ['x-sentry-auth', 'authorization']) {
    const value = (headerValue(headers, name) ?? '').trim();
    const m = /^sentry\s/i.test(value) ? /sentry_key\s*=\s*([^,\s]+)/i.exec(value) : null;
    if (m) return m[1];
  }
  return typeof query.sentry_key === 'string' && query.sentry_key ? query.sentry_key : null;
}

/** The public key of the `dsn` in an envelope's header (SDKs sending through a tunnel); null without one. */
export function envelopeDsnKey(envelope: Buffer): string | null {
  const end = envelope.indexOf(10);
  try {
    const header = JSON.parse(envelope.subarray(0, end < 0 ? envelope.length : end).toString('utf8')) as {
      dsn?: unknown;
    };
    return typeof header.dsn === 'string' ? new URL(header.dsn).username || null : null;
  } catch {
    return null;
  }
}

const DECODERS: Record<string, (buf: Buffer, opts: ZlibOptions) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/**
 * The body as the SDK wrote it: gzip, deflate and br are decoded (the Node SDK gzips large
 * envelopes), at most `maxBytes` once decoded (413 payload_too_large beyond, so a small bomb
 * never fills the memory); 400 invalid_payload for another encoding or a corrupt stream.
 */
export function decodedBody(headers: RawHeaders, raw: Buffer, maxBytes: number): Buffer {
  const encoding = (headerValue(headers, 'content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return raw;
  const decode = DECODERS[encoding];
  if (!decode)
    throw httpError(400, 'invalid_payload', `Content-Encoding ${encoding} is not supported (gzip, deflate, br)`);
  try {
    return decode(raw, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw httpError(413, 'payload_too_large', `The decoded body is larger than ${maxBytes} bytes`);
    throw httpError(400, 'invalid_payload', `The body is not valid ${encoding}`);
  }
}

/**
 * A 429 as the SDKs read it: besides Retry-After, `X-Sentry-Rate-Limits` (`<seconds>::organization`,
 * every category) so that an SDK holds back all its sends for that long instead of retrying.
 */
export function withSentryRateLimits(err: unknown): unknown {
  const boom = err as Boom.Boom;
  if (boom?.isBoom && boom.output.statusCode === 429) {
    const seconds = boom.output.headers['Retry-After'] ?? '60';
    boom.output.headers['X-Sentry-Rate-Limits'] = `${String(seconds)}::organization`;
  }
  return err;
}
