/**
 * The Stripe prices of plans, top-up packs, add-ons and extra workspaces, found by lookup key
 * (`<prefix>plan_<id>` …) and cached for a few minutes.
 */
import type Stripe from 'stripe';
import {
  AdapterError,
  PAID_PLAN_IDS,
  TOPUP_FIXES,
  TOPUP_PACK_IDS,
  type AddonId,
  type PaidPlanId,
  type PriceList,
  type TopupPackId,
} from '../../core/contracts/index.js';
import { stripeCall } from './stripe-call.js';

const PRICE_TTL_MS = 5 * 60_000;

export type PriceKind =
  | { kind: 'plan'; plan: PaidPlanId }
  | { kind: 'topup'; pack: TopupPackId }
  | { kind: 'addon'; addon: AddonId }
  | { kind: 'extra_workspace'; plan: PaidPlanId };

/** The price list, and each price id's kind (to read a subscription's items back). */
export interface PriceIndex {
  at: number;
  list: PriceList;
  byId: Map<string, PriceKind>;
}

export class StripePrices {
  private cache: PriceIndex | null = null;

  constructor(
    private readonly stripe: Stripe,
    private readonly lookupKeyPrefix: string,
  ) {}

  private lookupKey(k: PriceKind): string {
    const p = this.lookupKeyPrefix;
    if (k.kind === 'extra_workspace') return `${p}extra_workspace_${k.plan}`;
    return k.kind === 'plan'
      ? `${p}plan_${k.plan}`
      : k.kind === 'topup'
        ? `${p}topup_${k.pack}`
        : `${p}addon_${k.addon}`;
  }

  private allKinds(): PriceKind[] {
    return [
      ...PAID_PLAN_IDS.map((plan) => ({ kind: 'plan' as const, plan })),
      ...TOPUP_PACK_IDS.map((pack) => ({ kind: 'topup' as const, pack })),
      ...(['badge_removal', 'managed_workspace'] as const).map((addon) => ({ kind: 'addon' as const, addon })),
      ...PAID_PLAN_IDS.map((plan) => ({ kind: 'extra_workspace' as const, plan })),
    ];
  }

  async index(): Promise<PriceIndex> {
    if (this.cache && Date.now() - this.cache.at < PRICE_TTL_MS) return this.cache;
    const kinds = this.allKinds();
    const byKey = new Map(kinds.map((k) => [this.lookupKey(k), k]));
    const found = await stripeCall(() =>
      this.stripe.prices.list({ lookup_keys: [...byKey.keys()], active: true, limit: 100 }),
    );
    const list: PriceList = { plans: [], topups: [], addons: [], items: [] };
    const byId = new Map<string, PriceKind>();
    for (const price of found.data) {
      const kind = price.lookup_key ? byKey.get(price.lookup_key) : undefined;
      if (!kind || price.unit_amount === null) continue;
      const amountUsd = price.unit_amount / 100;
      byId.set(price.id, kind);
      if (kind.kind === 'plan')
        list.plans.push({
          plan: kind.plan,
          priceId: price.id,
          amountUsd,
          interval: price.recurring?.interval === 'year' ? 'year' : 'month',
        });
      else if (kind.kind === 'topup')
        list.topups.push({
          pack: kind.pack,
          priceId: price.id,
          amountUsd,
          fixes: Number(price.metadata?.fixes ?? TOPUP_FIXES[kind.pack]),
        });
      else if (kind.kind === 'addon') list.addons!.push({ addon: kind.addon, priceId: price.id, amountUsd });
      else list.items!.push({ item: 'extra_workspace', plan: kind.plan, priceId: price.id, amountUsd });
    }
    this.cache = { at: Date.now(), list, byId };
    return this.cache;
  }

  /** The index, or null when Stripe cannot be read (a webhook or an answer is still read, with no price kinds). */
  async indexOrNull(): Promise<PriceIndex | null> {
    try {
      return await this.index();
    } catch {
      return null;
    }
  }

  /** The active price of a kind; price_missing when none has its lookup key. */
  async priceId(kind: PriceKind): Promise<string> {
    const { list } = await this.index();
    const id =
      kind.kind === 'plan'
        ? list.plans.find((p) => p.plan === kind.plan && p.interval === 'month')?.priceId
        : kind.kind === 'topup'
          ? list.topups.find((p) => p.pack === kind.pack)?.priceId
          : kind.kind === 'addon'
            ? list.addons?.find((p) => p.addon === kind.addon)?.priceId
            : list.items?.find((p) => p.plan === kind.plan)?.priceId;
    if (!id) throw new AdapterError('price_missing', `no active Stripe price with lookup key ${this.lookupKey(kind)}`);
    return id;
  }
}
