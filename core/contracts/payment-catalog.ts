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

/** The spec's Plan.limits. */
export interface PlanLimits {
  tickets_per_month: number;
  repositories_per_workspace: number;
  public_repos_only: boolean;
  workspaces_included: number;
  extra_workspace_price_usd: number;
  included_fixes_per_month: number;
  overage_fix_price_usd: number;
}

/**
 * Each plan's limits as shipped: the accounts catalogue answers them, billing starts its
 * configurable plan numbers from them (one table, so the two cannot drift apart).
 */
export const DEFAULT_PLAN_LIMITS: Readonly<Record<PlanId, Readonly<PlanLimits>>> = {
  none: {
    tickets_per_month: 50,
    repositories_per_workspace: 1,
    public_repos_only: false,
    workspaces_included: 1,
    extra_workspace_price_usd: 0,
    included_fixes_per_month: 0,
    overage_fix_price_usd: 0,
  },
  open_source: {
    tickets_per_month: 500,
    repositories_per_workspace: 3,
    public_repos_only: true,
    workspaces_included: 3,
    extra_workspace_price_usd: 0,
    included_fixes_per_month: 20,
    overage_fix_price_usd: 0,
  },
  indie: {
    tickets_per_month: 300,
    repositories_per_workspace: 2,
    public_repos_only: false,
    workspaces_included: 1,
    extra_workspace_price_usd: 15,
    included_fixes_per_month: 15,
    overage_fix_price_usd: 4,
  },
  startup: {
    tickets_per_month: 1500,
    repositories_per_workspace: 5,
    public_repos_only: false,
    workspaces_included: 3,
    extra_workspace_price_usd: 15,
    included_fixes_per_month: 60,
    overage_fix_price_usd: 3.5,
  },
  growth: {
    tickets_per_month: 5000,
    repositories_per_workspace: 15,
    public_repos_only: false,
    workspaces_included: 10,
    extra_workspace_price_usd: 12,
    included_fixes_per_month: 200,
    overage_fix_price_usd: 3,
  },
  managed: {
    tickets_per_month: 5000,
    repositories_per_workspace: 15,
    public_repos_only: false,
    workspaces_included: 5,
    extra_workspace_price_usd: 25,
    included_fixes_per_month: 300,
    overage_fix_price_usd: 2.5,
  },
  agency: {
    tickets_per_month: 10000,
    repositories_per_workspace: 50,
    public_repos_only: false,
    workspaces_included: 10,
    extra_workspace_price_usd: 9,
    included_fixes_per_month: 400,
    overage_fix_price_usd: 2.5,
  },
  enterprise: {
    tickets_per_month: 100000,
    repositories_per_workspace: 500,
    public_repos_only: false,
    workspaces_included: 100,
    extra_workspace_price_usd: 0,
    included_fixes_per_month: 2000,
    overage_fix_price_usd: 2,
  },
};

/** Fixes in each top-up pack. */
export const TOPUP_FIXES: Readonly<Record<TopupPackId, number>> = { topup_10: 10, topup_50: 50, topup_100: 100 };
