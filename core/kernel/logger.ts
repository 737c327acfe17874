import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/**
 * The service's logger and what it keeps out of every line (docs/security.md). Three layers, each
 * cheap: structured redaction of credential headers (pino `redact`, so it holds for the request
 * log, error lines and every child: bus, scheduler, plugins); request and response serializers
 * that mask tokens in paths and query strings; and a last scrub of the written line for anything
 * shaped like one of our credentials, wherever a plugin put it (a link in a mail log, an error
 * message quoting a URL).
 */

/** Request and response headers that carry credentials or signatures. */
export const SECRET_HEADERS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-widget-key',
  'x-hub-signature',
  'x-hub-signature-256',
  'stripe-signature',
  'x-webhook-signature',
  'x-patchwell-signature',
  'x-signature',
  'x-access-token',
  'x-api-key',
  'x-amz-security-token',
] as const;

/** Query parameters and path parameters whose values are credentials or one-time codes. */
export const SECRET_PARAMS = [
  'token',
  'key',
  'public_key',
  'code',
  'state',
  'secret',
  'client_secret',
  'signature',
  'sig',
  'password',
  'access_token',
  'refresh_token',
  'id_token',
  'samlresponse',
  'samlrequest',
  'relaystate',
  'ticket',
] as const;

const SECRET_PARAM_SET = new Set<string>(SECRET_PARAMS);
const CENSOR = '[redacted]';

const headerPaths = (root: string) => SECRET_HEADERS.map((h) => `${root}["${h}"]`);

/** pino redact paths: request headers (hapi-pino's `req`, raw `headers`) and response headers. */
export const REDACT_PATHS = [
  ...headerPaths('req.headers'),
  ...headerPaths('res.headers'),
  ...headerPaths('headers'),
  ...headerPaths('request.headers'),
  ...headerPaths('response.headers'),
  'password',
  'token',
  '*.password',
  '*.token',
  '*.secret',
  '*.client_secret',
];

// A credential of ours: `<prefix>_` then 30+ base64url characters with at least one upper-case
// letter or digit (ids are 26 lower-case characters; names and keys in snake_case are words).
const TOKEN_SHAPE = /\b([a-z][a-z0-9]{1,7})_(?=[A-Za-z0-9_-]{0,80}[A-Z0-9])[A-Za-z0-9_-]{30,}/g;
const COOKIE_VALUE = /\b(pw_session|pw_device)=[^;,"\s\\]+/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
const QUERY_SECRET = new RegExp(`([?&](?:${SECRET_PARAMS.join('|')})=)[^&#"\\s\\\\]+`, 'gi');

/** `text` with every token-shaped value, session cookie, bearer credential and secret query value masked. */
export function scrubSecrets(text: string): string {
  return text
    .replace(TOKEN_SHAPE, `$1_${CENSOR}`)
    .replace(COOKIE_VALUE, `$1=${CENSOR}`)
    .replace(BEARER, `$1 ${CENSOR}`)
    .replace(QUERY_SECRET, `$1${CENSOR}`);
}

/** A path with the values of secret parameters masked: `/status/pwst_…` → `/status/[redacted]`. */
export function maskPath(path: string, params?: Record<string, unknown> | null): string {
  let out = path;
  if (params) {
    for (const [name, value] of Object.entries(params)) {
      if (typeof value !== 'string' || value.length < 8 || !SECRET_PARAM_SET.has(name.toLowerCase())) continue;
      out = out.split(value).join(CENSOR).split(encodeURIComponent(value)).join(CENSOR);
    }
  }
  return scrubSecrets(out);
}

function maskQuery(query: unknown): Record<string, unknown> | undefined {
  if (!query || typeof query !== 'object') return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query as Record<string, unknown>))
    out[k] = SECRET_PARAM_SET.has(k.toLowerCase()) ? CENSOR : v;
  return out;
}

/** The parts of a hapi request (or a Node request) the request serializer reads. */
interface RequestLike {
  info?: { id?: string; remoteAddress?: string; remotePort?: number | string };
  method?: string;
  path?: string;
  url?: string | URL;
  query?: unknown;
  params?: Record<string, unknown> | null;
  headers?: Record<string, unknown>;
  socket?: { remoteAddress?: string; remotePort?: number };
  raw?: { req?: IncomingMessage };
}

/** The request as logged: id, method, path and query with secrets masked, headers (redacted by path). */
export function serializeRequest(req: RequestLike): Record<string, unknown> {
  if (!req || typeof req !== 'object') return req;
  const hapi = req.info !== undefined && typeof req.path === 'string';
  const rawUrl = hapi ? req.path! : typeof req.url === 'string' ? req.url : String(req.url ?? '');
  const [pathOnly, search] = rawUrl.split('?', 2) as [string, string | undefined];
  return {
    id: req.info?.id,
    method: typeof req.method === 'string' ? req.method.toUpperCase() : req.method,
    url:
      maskPath(pathOnly, req.params) +
      (search
        ? `?${scrubSecrets(search.replace(/(^|&)([^=&]+)=([^&]*)/g, (m, sep: string, k: string) => (SECRET_PARAM_SET.has(k.toLowerCase()) ? `${sep}${k}=${CENSOR}` : m)))}`
        : ''),
    query: maskQuery(req.query),
    headers: req.headers,
    remoteAddress: req.info?.remoteAddress ?? req.socket?.remoteAddress,
    remotePort: req.info?.remotePort ?? req.socket?.remotePort,
  };
}

/** The response as logged: status and headers (Set-Cookie redacted by path). */
export function serializeResponse(
  res: ServerResponse | { statusCode?: number; headers?: Record<string, unknown> },
): Record<string, unknown> {
  if (!res || typeof res !== 'object') return res;
  const headers =
    typeof (res as ServerResponse).getHeaders === 'function'
      ? { ...(res as ServerResponse).getHeaders() }
      : (res as { headers?: Record<string, unknown> }).headers;
  return { statusCode: res.statusCode, headers };
}

const SERIALIZERS = { req: serializeRequest, res: serializeResponse };

/** The options every logger of the service is built with (level and base come from the caller). */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    base: { service: 'patchwell' },
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    serializers: { ...SERIALIZERS, err: pino.stdSerializers.err },
    hooks: { streamWrite: scrubSecrets },
  };
}

/** The root logger of a process (every role, and the api-processes primary). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}

/**
 * A logger handed in from outside (tests, an embedding program) with the same redaction and
 * serializers, as a child: what it writes goes to the caller's destination. (A child cannot add
 * the line scrub; `createLogger` has it.)
 */
export function redacting(log: Logger): Logger {
  return log.child({}, { redact: { paths: REDACT_PATHS, censor: CENSOR }, serializers: SERIALIZERS });
}
