import { isAdapterError, type PaymentProvider } from '../../../core/contracts/index.js';
import { conflict, httpError } from '../../../core/http/errors.js';
import type { BillingDeps } from './deps.js';

/**
 * Runs a payment provider call; its failures become 502 payment_provider_error (retryable), or
 * 409 with the adapter's code for what retrying cannot fix.
 */
export async function providerCall<T>(d: Pick<BillingDeps, 'log'>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isAdapterError(err)) {
      if (err.code === 'not_found') throw conflict('payment_provider_not_found', err.message);
      if (err.code === 'not_supported') throw conflict('not_supported', err.message);
      if (err.code === 'account_not_ready') throw conflict('connect_not_ready', err.message);
      d.log.warn({ err }, 'payment provider call failed');
      throw httpError(502, 'payment_provider_error', 'The payment provider did not answer; try again', {
        retryable: err.retryable,
      });
    }
    d.log.error({ err }, 'payment provider call failed');
    throw httpError(502, 'payment_provider_error', 'The payment provider did not answer; try again');
  }
}

/** The payment provider, or 409 payments_disabled when payments are off on this service. */
export function requireProvider(d: Pick<BillingDeps, 'provider'>): PaymentProvider {
  if (!d.provider) throw conflict('payments_disabled', 'Payments are not enabled on this service');
  return d.provider;
}
