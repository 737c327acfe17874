import Boom from '@hapi/boom';
import type { Request, ResponseToolkit, Lifecycle, Server } from '@hapi/hapi';
import type { ValidationError } from 'joi';
import { isDatabaseUnavailable } from '../data/unavailable.js';

/** The body of every failure. `code` is stable snake_case; clients branch on it. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code: string;
  details?: Record<string, unknown>;
}

const DEFAULT_CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

/** The error code an answer of this status carries when the thrower named none. */
export function defaultErrorCode(status: number): string {
  return DEFAULT_CODES[status] ?? (status >= 500 ? 'internal_error' : 'error');
}

interface ErrorData {
  code?: string;
  details?: Record<string, unknown>;
  retryAfterSeconds?: number;
}

/**
 * A Boom error carrying the envelope's `code` and optional `details`.
 *
 * @example throw httpError(409, 'group_has_open_ticket', 'An open ticket follows this group', { ticket_id })
 */
export function httpError(
  status: number,
  code: string,
  message: string,
  details?: Record<string, unknown>,
): Boom.Boom<ErrorData> {
  return new Boom.Boom<ErrorData>(message, { statusCode: status, data: { code, details } });
}

export const notFound = (what = 'resource'): Boom.Boom => httpError(404, 'not_found', `${what} not found`);
export const forbidden = (message = 'You do not have permission to do this'): Boom.Boom =>
  httpError(403, 'forbidden', message);
export const unauthenticated = (message = 'Sign in first'): Boom.Boom => httpError(401, 'unauthenticated', message);
export const conflict = (code: string, message: string, details?: Record<string, unknown>): Boom.Boom =>
  httpError(409, code, message, details);

/**
 * A code host's failure (an AdapterError) met while serving a job: 503 codehost_unavailable when the
 * host may answer later, 502 codehost_error otherwise; details.code is the adapter's own code.
 */
export function codeHostFailure(err: { retryable: boolean; code: string }, message: string): Boom.Boom {
  return httpError(err.retryable ? 503 : 502, err.retryable ? 'codehost_unavailable' : 'codehost_error', message, {
    code: err.code,
  });
}

export function rateLimited(retryAfterSeconds: number, message = 'Too many requests, retry later'): Boom.Boom {
  const err = new Boom.Boom<ErrorData>(message, { statusCode: 429, data: { code: 'rate_limited', retryAfterSeconds } });
  err.output.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  return err;
}

/** 400 invalid_request from a joi validation error; details.errors = [{path, message}]. */
export function invalidRequest(err: ValidationError | Error, source?: string): Boom.Boom {
  const joiDetails = (err as ValidationError).details;
  const errors = Array.isArray(joiDetails)
    ? joiDetails.map((d) => ({
        path: [source, ...d.path].filter((p) => p !== undefined).join('.'),
        message: d.message,
      }))
    : [{ path: source ?? '', message: err.message }];
  const message = errors.length === 1 ? errors[0].message : `${errors.length} fields are invalid`;
  return httpError(400, 'invalid_request', message, { errors });
}

/** Route-level validate.failAction: every validation failure becomes invalid_request. */
export const validationFailAction: Lifecycle.FailAction = (request: Request, _h: ResponseToolkit, err?: Error) => {
  const source = (err as Boom.Boom & { output?: { payload?: { validation?: { source?: string } } } })?.output?.payload
    ?.validation?.source;
  throw invalidRequest(err ?? new Error('invalid request'), source);
};

/** Shapes every Boom answer into the envelope, maps hapi's own errors to codes, hides 5xx internals. */
export function registerErrorEnvelope(server: Server, report: (err: Error, request: Request) => void): void {
  server.ext('onPreResponse', (request, h) => {
    const res = request.response;
    if (!Boom.isBoom(res)) return h.continue;
    const err = res as Boom.Boom<ErrorData | null>;
    if (err.output.statusCode === 500 && isDatabaseUnavailable(err)) {
      err.output.statusCode = 503;
      err.output.payload.error = 'Service Unavailable';
      err.output.payload.message = 'The database is unavailable for a moment; retry shortly (Retry-After)';
      err.output.headers['Retry-After'] = '2';
    }
    const status = err.output.statusCode;
    const data = err.data ?? {};
    let code = data.code ?? defaultErrorCode(status);
    let message = err.output.payload.message;
    let details = data.details;

    if (status >= 500) {
      if (!err.isServer || status === 500) report(err, request);
      code = data.code ?? DEFAULT_CODES[status] ?? 'internal_error';
      message = status === 500 ? 'An internal error occurred; it has been reported' : message;
      details = status === 500 ? { request_id: request.info.id } : details;
    } else if (status === 400 && !data.code) {
      // hapi's own 400s: malformed JSON, bad cookie, etc.
      details = { errors: [{ path: '', message }] };
    } else if (status === 404 && !data.code && message === 'Not Found') {
      message = `No route for ${request.method.toUpperCase()} ${request.path}`;
    }
    const body: ErrorBody = { statusCode: status, error: err.output.payload.error, message, code };
    if (details) body.details = details;
    err.output.payload = body as unknown as Boom.Payload;
    return h.continue;
  });
}
