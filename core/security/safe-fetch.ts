/**
 * An SSRF-guarded `fetch` for URLs that customers type in (OIDC issuers, webhooks, metadata
 * addresses). Before connecting it resolves the host with node:dns and refuses private, loopback,
 * link-local, CGNAT, multicast, reserved and cloud metadata addresses; it then connects to the
 * very address it checked (no second lookup an attacker's DNS could answer differently), checks
 * every redirect hop the same way, and caps the answer's size and the whole exchange's time.
 *
 * @example
 * const fetch = createSafeFetch({ timeoutMs: 5000 });
 * const res = await fetch('https://idp.example.com/.well-known/openid-configuration');
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';

export type SafeFetchErrorCode =
  | 'blocked_address'
  | 'insecure_url'
  | 'invalid_url'
  | 'dns_error'
  | 'too_large'
  | 'timeout'
  | 'too_many_redirects'
  | 'request_failed';

/** A request the guard refused or that failed; `code` is stable. */
export class SafeFetchError extends Error {
  override name = 'SafeFetchError';
  constructor(
    readonly code: SafeFetchErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface SafeFetchOptions {
  /** Allow 127.0.0.0/8 and ::1 (tests against a local peer; config `security.allowLoopbackFetch`). */
  allowLoopback?: boolean;
  /** Refuse plain http URLs, including redirect targets, with `insecure_url`. Default false. */
  requireHttps?: boolean;
  /** Whole exchange, redirects included. Default 10 s. */
  timeoutMs?: number;
  /** Largest answer body. Default 1 MiB. */
  maxBytes?: number;
  /** Redirects followed when `redirect` is `follow`. Default 3. */
  maxRedirects?: number;
  /** Host resolution (tests); default node:dns lookup of every address. */
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: number }>>;
  /** Extra trusted CA certificates (PEM) for https, added to Node's defaults (a private CA, a test peer). */
  ca?: string | string[];
}

export type SafeFetch = (input: string | URL, init?: SafeRequestInit) => Promise<Response>;

export interface SafeRequestInit {
  method?: string;
  headers?: Record<string, string> | Headers | Array<[string, string]>;
  body?: string | Uint8Array | URLSearchParams | null;
  redirect?: 'follow' | 'manual' | 'error';
  signal?: AbortSignal | null;
}

const ALWAYS_BLOCKED = new BlockList();
const LOOPBACK = new BlockList();
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '169.254.170.2', '100.100.100.200']);

for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  ALWAYS_BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2001::', 32], // Teredo
  ['fc00::', 7], // unique local (includes fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  ALWAYS_BLOCKED.addSubnet(net, prefix, 'ipv6');
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** The IPv4 address inside an IPv4-mapped, NAT64 or 6to4 IPv6 address, or null. */
function embeddedIpv4(ip: string): string | null {
  const lower = ip.toLowerCase();
  const dotted = /^(?:::ffff:(?:0:)?|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:(?:0:)?|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower);
  if (sixToFour) {
    const hi = parseInt(sixToFour[1], 16);
    const lo = parseInt(sixToFour[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/**
 * Why an address may not be fetched (`loopback`, `metadata`, `private`), or null when it may.
 * Loopback is allowed only with `allowLoopback`; metadata addresses never.
 */
export function blockedReason(
  ip: string,
  opts: { allowLoopback?: boolean } = {},
): 'loopback' | 'metadata' | 'private' | null {
  const family = isIP(ip);
  if (family === 0) return 'private';
  const v4 = family === 6 ? embeddedIpv4(ip) : null;
  if (v4) return blockedReason(v4, opts);
  if (METADATA.has(ip.toLowerCase())) return 'metadata';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(ip, type)) return opts.allowLoopback ? null : 'loopback';
  return ALWAYS_BLOCKED.check(ip, type) ? 'private' : null;
}

const defaultResolve = async (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/** Resolves a URL's host and checks every address; answers the one to connect to. */
async function vet(url: URL, opts: SafeFetchOptions): Promise<{ address: string; family: number }> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new SafeFetchError('invalid_url', `unsupported scheme ${url.protocol}`, { url: url.href });
  if (url.protocol === 'http:' && opts.requireHttps)
    throw new SafeFetchError('insecure_url', 'only https addresses are fetched', { url: url.href });
  if (url.username || url.password)
    throw new SafeFetchError('invalid_url', 'credentials in URLs are not allowed', { host: url.hostname });
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (opts.resolve ?? defaultResolve)(host);
    } catch (err) {
      throw new SafeFetchError('dns_error', `cannot resolve ${host}`, { host }, { cause: err });
    }
  }
  if (addresses.length === 0) throw new SafeFetchError('dns_error', `${host} has no address`, { host });
  // Every address must be allowed: a name that also points inside could be pinned there next time.
  for (const a of addresses) {
    const reason = blockedReason(a.address, opts);
    if (reason)
      throw new SafeFetchError('blocked_address', `${host} resolves to a ${reason} address`, {
        host,
        address: a.address,
        reason,
      });
  }
  return addresses[0];
}

function headerRecord(h: SafeRequestInit['headers']): Record<string, string> {
  if (!h) return {};
  if (h instanceof Headers) {
    const out: Record<string, string> = {};
    h.forEach((value, key) => (out[key] = value));
    return out;
  }
  if (Array.isArray(h)) return Object.fromEntries(h);
  return { ...h };
}

function bodyBuffer(body: SafeRequestInit['body']): Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  return Buffer.from(body);
}

interface RawAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  body: Buffer;
}

function requestOnce(
  url: URL,
  pinned: { address: string; family: number },
  init: { method: string; headers: Record<string, string>; body: Buffer | null },
  maxBytes: number,
  signal: AbortSignal,
  ca?: string | string[],
): Promise<RawAnswer> {
  // Connect to the vetted address only, whatever the resolver would say now.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const headers: Record<string, string> = { 'accept-encoding': 'identity', 'user-agent': 'Patchwell', ...init.headers };
  if (init.body) headers['content-length'] = String(init.body.length);
  const mod = url.protocol === 'https:' ? https : http;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = mod.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: init.method,
        headers,
        lookup,
        signal,
        ...(url.protocol === 'https:' && !isIP(host) ? { servername: host } : {}),
        ...(url.protocol === 'https:' && ca
          ? { ca: [...tls.rootCertificates, ...(Array.isArray(ca) ? ca : [ca])] }
          : {}),
        agent: false,
      },
      (res) => {
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > maxBytes) {
          res.destroy();
          reject(
            new SafeFetchError('too_large', `the answer is larger than ${maxBytes} bytes`, { host, bytes: declared }),
          );
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(new SafeFetchError('too_large', `the answer is larger than ${maxBytes} bytes`, { host }));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) for (const x of v) h.append(k, x);
            else if (v !== undefined) h.set(k, v);
          }
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: h,
            body: Buffer.concat(chunks),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (err) => reject(err));
    if (init.body) req.write(init.body);
    req.end();
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NO_BODY = new Set([101, 204, 205, 304]);

function toResponse(raw: RawAnswer, url: URL): Response {
  const res = new Response(NO_BODY.has(raw.status) ? null : new Uint8Array(raw.body), {
    status: raw.status,
    statusText: raw.statusText,
    headers: raw.headers,
  });
  Object.defineProperty(res, 'url', { value: url.href });
  return res;
}

/** Builds the guarded fetch. Its errors are SafeFetchError with a stable `code`. */
export function createSafeFetch(opts: SafeFetchOptions = {}): SafeFetch {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  const maxRedirects = opts.maxRedirects ?? 3;

  return async (input, init = {}) => {
    let url: URL;
    try {
      url = new URL(typeof input === 'string' ? input : input.href);
    } catch {
      throw new SafeFetchError('invalid_url', 'not a URL');
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let method = (init.method ?? 'GET').toUpperCase();
    let headers = headerRecord(init.headers);
    let body = bodyBuffer(init.body);
    for (let hop = 0; ; hop++) {
      const pinned = await vet(url, opts);
      let raw: RawAnswer;
      try {
        raw = await requestOnce(url, pinned, { method, headers, body }, maxBytes, signal, opts.ca);
      } catch (err) {
        if (err instanceof SafeFetchError) throw err;
        if (timeout.aborted)
          throw new SafeFetchError(
            'timeout',
            `no answer within ${timeoutMs} ms`,
            { host: url.hostname },
            { cause: err },
          );
        if (init.signal?.aborted) throw err;
        throw new SafeFetchError(
          'request_failed',
          `request to ${url.hostname} failed: ${(err as Error).message}`,
          { host: url.hostname },
          { cause: err },
        );
      }
      const location = raw.headers.get('location');
      if (!REDIRECTS.has(raw.status) || !location || init.redirect === 'manual') return toResponse(raw, url);
      if (init.redirect === 'error')
        throw new SafeFetchError('request_failed', 'the answer is a redirect', {
          host: url.hostname,
          status: raw.status,
        });
      if (hop >= maxRedirects)
        throw new SafeFetchError('too_many_redirects', `more than ${maxRedirects} redirects`, { host: url.hostname });
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        headers = Object.fromEntries(
          Object.entries(headers).filter(([k]) => !['authorization', 'cookie'].includes(k.toLowerCase())),
        );
      }
      if (raw.status === 303 || ((raw.status === 301 || raw.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
        headers = Object.fromEntries(
          Object.entries(headers).filter(([k]) => !['content-type', 'content-length'].includes(k.toLowerCase())),
        );
      }
      url = next;
    }
  };
}
