import { AdapterError, AdapterNotFoundError } from '../../core/contracts/index.js';

/** Stripe errors become AdapterErrors: not found, retryable (network, rate limit, 5xx) or not. */
export async function stripeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AdapterError) throw err;
    const e = err as { type?: string; statusCode?: number; code?: string; message?: string };
    if (e.statusCode === 404 || e.code === 'resource_missing')
      throw new AdapterNotFoundError(e.message ?? 'not found at Stripe', { cause: err });
    const retryable =
      e.type === 'StripeConnectionError' ||
      e.type === 'StripeRateLimitError' ||
      e.type === 'StripeAPIError' ||
      (e.statusCode ?? 0) >= 500;
    throw new AdapterError(retryable ? 'provider_unavailable' : 'provider_error', e.message ?? 'Stripe call failed', {
      retryable,
      cause: err,
      details: { stripe_type: e.type, stripe_code: e.code },
    });
  }
}
