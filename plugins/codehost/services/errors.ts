import Boom from '@hapi/boom';
import { isAdapterError } from '../../../core/contracts/index.js';
import { httpError } from '../../../core/http/errors.js';

/**
 * A code-host failure as an API answer: 503 codehost_unavailable when the host may answer later
 * (outage, rate limit), 502 codehost_error otherwise (details.code is the adapter's code).
 * Boom errors pass through.
 */
export function hostFailure(err: unknown): Boom.Boom {
  if (Boom.isBoom(err)) return err;
  if (isAdapterError(err)) {
    const details = { code: err.code };
    if (err.retryable)
      return httpError(503, 'codehost_unavailable', 'The code host is not answering; retry later', details);
    return httpError(502, 'codehost_error', `The code host refused: ${err.message}`, details);
  }
  throw err;
}

/** Runs a code-host call, turning adapter failures into API answers. */
export async function viaHost<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw hostFailure(err);
  }
}
