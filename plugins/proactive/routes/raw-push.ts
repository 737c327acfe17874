import type { Request, RouteOptions } from '@hapi/hapi';
import Joi from 'joi';
import { IngestReceiptSchema } from '../schemas.js';

/**
 * The options both connector push routes share (ingest, error-tracker webhook): no session (the
 * connector's token or signature authenticates), the body kept raw because signatures cover its
 * bytes, and a 202 receipt once the events are stored and grouped.
 */
export function rawPushOptions(
  maxBytes: number,
): Pick<RouteOptions, 'auth' | 'payload' | 'validate' | 'response' | 'plugins'> {
  return {
    auth: false,
    payload: { parse: false, output: 'data', maxBytes, allow: ['application/json'] },
    validate: { params: Joi.object({ connectorId: Joi.string().max(100).required() }) },
    response: { status: { 202: IngestReceiptSchema } },
    // Error events are stored with NULs dropped and lone surrogates replaced (group-writer), never refused.
    plugins: { patchwell: { successStatus: 202, rawBody: { contentType: 'application/json' }, cleansText: true } },
  };
}

/** The raw body of a push route, as bytes (an empty body arrives as null). */
export function rawPushBody(request: Request): Buffer {
  return Buffer.isBuffer(request.payload) ? request.payload : Buffer.from((request.payload as string | null) ?? '');
}
