import Joi from 'joi';
import {
  PAID_PLAN_IDS,
  TOPUP_PACK_IDS,
  paymentProviderOptionKeys,
  type AddonId,
  type PaidPlanId,
  type PaymentProviderOptions,
  type TopupPackId,
} from '../../core/contracts/index.js';
import type { LocalStore } from './store.js';

export interface LocalPaymentOptions extends PaymentProviderOptions {
  /** Where the hosted pages live on the service. */
  basePath: string;
  /** Base of page links; default the service's server.publicBaseUrl. */
  publicBaseUrl?: string;
  prices: {
    plans: Record<PaidPlanId, number>;
    topups: Record<TopupPackId, number>;
    addons: Record<AddonId, number>;
    extraWorkspace: Record<PaidPlanId, number>;
  };
  checkoutTtlMinutes: number;
  /** How often the simulated clock ends trials and renews or ends periods (scheduler role). */
  clockEveryMs: number;
}

const DEFAULT_PRICES: LocalPaymentOptions['prices'] = {
  plans: { indie: 29, startup: 99, growth: 249, managed: 499, agency: 399 },
  topups: { topup_10: 30, topup_50: 125, topup_100: 200 },
  addons: { badge_removal: 19, managed_workspace: 149 },
  // The same numbers as billing's plan table (extra_workspace_price_usd).
  extraWorkspace: { indie: 15, startup: 15, growth: 12, managed: 25, agency: 9 },
};

const usdAmount = Joi.number().min(0).precision(2);

export const localOptionsSchema = Joi.object<LocalPaymentOptions>({
  ...paymentProviderOptionKeys,
  basePath: Joi.string()
    .pattern(/^\/[a-z0-9/_-]*[a-z0-9]$/)
    .default('/pay/local'),
  publicBaseUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
  prices: Joi.object({
    plans: Joi.object(
      Object.fromEntries(PAID_PLAN_IDS.map((p) => [p, usdAmount.default(DEFAULT_PRICES.plans[p])])),
    ).default(),
    topups: Joi.object(
      Object.fromEntries(TOPUP_PACK_IDS.map((p) => [p, usdAmount.default(DEFAULT_PRICES.topups[p])])),
    ).default(),
    addons: Joi.object({ badge_removal: usdAmount.default(19), managed_workspace: usdAmount.default(149) }).default(),
    extraWorkspace: Joi.object(
      Object.fromEntries(PAID_PLAN_IDS.map((p) => [p, usdAmount.default(DEFAULT_PRICES.extraWorkspace[p])])),
    ).default(),
  }).default(),
  checkoutTtlMinutes: Joi.number()
    .integer()
    .min(1)
    .max(7 * 24 * 60)
    .default(24 * 60),
  clockEveryMs: Joi.number().integer().min(1000).default(60_000),
});

/** What the parts of the provider share: its options, its state, the simulated time and page links. */
export interface LocalRuntime {
  readonly options: LocalPaymentOptions;
  readonly store: LocalStore;
  now(): Date;
  /** A link to one of the hosted pages (`/checkout/…`, `/invoices/…`). */
  url(path: string): string;
}
