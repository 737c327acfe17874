/** What a payment provider sells: plans, top-up packs, add-ons and subscription items, and their prices. */

/** Plan ids (spec: plan id). */
export type PlanId = 'none' | 'open_source' | 'indie' | 'startup' | 'growth' | 'managed' | 'agency' | 'enterprise';
/** Plans sold through checkout (`POST /v1/billing/checkout`, `POST /v1/billing/plan`). */
export type PaidPlanId = 'indie' | 'startup' | 'growth' | 'managed' | 'agency';
export const PAID_PLAN_IDS: readonly PaidPlanId[] = ['indie', 'startup', 'growth', 'managed', 'agency'];

export type TopupPackId = 'topup_10' | 'topup_50' | 'topup_100';
export const TOPUP_PACK_IDS: readonly TopupPackId[] = ['topup_10', 'topup_50', 'topup_100'];

/** A price the provider sells. Amounts are in US dollars. */
export interface PlanPrice {
  plan: PaidPlanId;
  /** Provider's price id. */
  priceId: string;
  amountUsd: number;
  interval: 'month' | 'year';
}

export interface TopupPrice {
  pack: TopupPackId;
  priceId: string;
  amountUsd: number;
  fixes: number;
}

/** A monthly add-on price (per unit: per organization for badge removal, per workspace for managed). */
export interface AddonPrice {
  addon: 'badge_removal' | 'managed_workspace';
  priceId: string;
  amountUsd: number;
}

export interface PriceList {
  plans: PlanPrice[];
  topups: TopupPrice[];
  /** Optional: add-on prices, for providers that bill add-ons (`updateAddons`). */
  addons?: AddonPrice[];
  /** Optional: monthly price of a subscription item per unit, by plan (`setSubscriptionItemQuantity`). */
  items?: SubscriptionItemPrice[];
}

/** Items a subscription carries by quantity, priced per plan: each workspace beyond the plan's included ones. */
export type SubscriptionItemId = 'extra_workspace';
export const SUBSCRIPTION_ITEM_IDS: readonly SubscriptionItemId[] = ['extra_workspace'];

export interface SubscriptionItemPrice {
  item: SubscriptionItemId;
  plan: PaidPlanId;
  priceId: string;
  amountUsd: number;
}

/** Paid add-ons a subscription can carry, by quantity. */
export type AddonId = AddonPrice['addon'];
export const ADDON_IDS: readonly AddonId[] = ['badge_removal', 'managed_workspace'];

/** Fixes in each top-up pack. */
export const TOPUP_FIXES: Readonly<Record<TopupPackId, number>> = { topup_10: 10, topup_50: 50, topup_100: 100 };
