import type { AddonId, PriceList } from '../../../core/contracts/index.js';
import type { BillingDeps } from './deps.js';

const TTL_MS = 5 * 60_000;

/** The provider's prices, cached for five minutes (a failed refresh keeps the last list). */
export class PriceCache {
  private cached: { at: number; list: PriceList } | null = null;

  constructor(private readonly d: BillingDeps) {}

  async list(): Promise<PriceList | null> {
    const provider = this.d.provider;
    if (!provider) return null;
    if (this.cached && Date.now() - this.cached.at < TTL_MS) return this.cached.list;
    try {
      const list = await provider.prices();
      this.cached = { at: Date.now(), list };
      return list;
    } catch (err) {
      this.d.log.warn({ err }, 'payment provider prices unavailable');
      return this.cached?.list ?? null;
    }
  }

  async plan(plan: string): Promise<number | null> {
    const list = await this.list();
    return list?.plans.find((p) => p.plan === plan && p.interval === 'month')?.amountUsd ?? null;
  }

  async topup(pack: string): Promise<number | null> {
    return (await this.list())?.topups.find((p) => p.pack === pack)?.amountUsd ?? null;
  }

  async addon(addon: AddonId): Promise<number | null> {
    return (await this.list())?.addons?.find((p) => p.addon === addon)?.amountUsd ?? null;
  }
}
