/** payment-stripe's options, checked at start, and the Stripe SDK client built from them. */
import Joi from 'joi';
import Stripe from 'stripe';
import { paymentProviderOptionKeys, type PaymentProviderOptions } from '../../core/contracts/index.js';

export interface StripePaymentOptions extends PaymentProviderOptions {
  /** Secret API key (`sk_live_…` / `sk_test_…`). */
  secretKey: string;
  /** Signing secret of the account webhook endpoint (`whsec_…`). */
  webhookSecret: string;
  /** Signing secret of the Connect webhook endpoint (events of connected payout accounts). */
  connectWebhookSecret?: string;
  /** API host, port and protocol (a local peer in tests); `baseUrl` sets all three at once. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  /** Prices are found by lookup key: `<prefix>plan_<id>`, `<prefix>topup_<pack>`, `<prefix>addon_<addon>`. */
  lookupKeyPrefix: string;
  /** How plan and add-on changes are prorated. */
  prorationBehavior: 'always_invoice' | 'create_prorations';
  timeoutMs: number;
  maxNetworkRetries: number;
  /**
   * Resale payments settle on the agency's payout account (`on_behalf_of`): the agency is the
   * merchant of record and its country's rules apply (needed when it is in another region than
   * the platform). Off: destination charges settle on the platform and transfer.
   */
  resaleOnBehalfOf: boolean;
}

export const stripeOptionsSchema = Joi.object<StripePaymentOptions>({
  ...paymentProviderOptionKeys,
  secretKey: Joi.string()
    .pattern(/^(sk|rk)_/)
    .required(),
  webhookSecret: Joi.string().min(16).required(),
  connectWebhookSecret: Joi.string().min(16),
  host: Joi.string().hostname(),
  port: Joi.number().integer().min(1).max(65535),
  protocol: Joi.string().valid('http', 'https'),
  lookupKeyPrefix: Joi.string()
    .pattern(/^[a-z0-9_]*$/)
    .default('patchwell_'),
  prorationBehavior: Joi.string().valid('always_invoice', 'create_prorations').default('always_invoice'),
  timeoutMs: Joi.number().integer().min(1000).default(20_000),
  maxNetworkRetries: Joi.number().integer().min(0).max(5).default(2),
  resaleOnBehalfOf: Joi.boolean().default(false),
});

/** The SDK client: a `baseUrl` (a local peer in tests) gives host, port and protocol unless they are set one by one. */
export function createStripeClient(options: StripePaymentOptions): Stripe {
  const base = options.baseUrl ? new URL(options.baseUrl) : null;
  const protocol = options.protocol ?? (base ? (base.protocol.replace(':', '') as 'http' | 'https') : undefined);
  const host = options.host ?? base?.hostname;
  const port = options.port ?? (base?.port ? Number(base.port) : undefined);
  return new Stripe(options.secretKey, {
    ...(host ? { host } : {}),
    ...(port ? { port } : {}),
    ...(protocol ? { protocol } : {}),
    timeout: options.timeoutMs,
    maxNetworkRetries: options.maxNetworkRetries,
    appInfo: { name: 'Patchwell' },
    telemetry: false,
  });
}
