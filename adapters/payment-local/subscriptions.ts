import {
  AdapterError,
  AdapterNotFoundError,
  type AddonId,
  type ChangePlanInput,
  type ResaleState,
  type SetItemQuantityInput,
  type SubscriptionState,
  type UpdateAddonsInput,
  type UpdateResaleInput,
} from '../../core/contracts/index.js';
import type { LocalEmitter } from './emitter.js';
import type { LocalLedger } from './ledger.js';
import { prorate, round2 } from './money.js';
import type { LocalRuntime } from './options.js';
import { LIVE, toResaleState, toState } from './states.js';
import type { LocalSubscription } from './types.js';

/** Changes to a live subscription asked through the contract (the provider wraps each in its idempotency). */
export class LocalSubscriptions {
  constructor(
    private readonly rt: LocalRuntime,
    private readonly ledger: LocalLedger,
    private readonly events: LocalEmitter,
  ) {}

  /** Moves a subscription to another plan; the difference is prorated for the rest of the period. */
  async changePlan(input: ChangePlanInput): Promise<SubscriptionState> {
    const sub = await this.live(input.subscriptionId);
    if (sub.plan === input.plan) return toState(sub);
    const prices = this.rt.options.prices.plans;
    const extra =
      (sub.extraWorkspaces ?? 0) *
      (this.rt.options.prices.extraWorkspace[input.plan] - this.rt.options.prices.extraWorkspace[sub.plan]);
    const charge =
      sub.status === 'trialing' ? 0 : prorate(prices[input.plan] - prices[sub.plan] + extra, sub, this.rt.now());
    const before = sub.plan;
    sub.plan = input.plan;
    await this.rt.store.put('subscription', sub);
    await this.events.subscription(sub, 'subscription.updated');
    await this.ledger.settleProration(sub, charge, `plan ${before} → ${input.plan}`);
    return toState(sub);
  }

  /** Ends the subscription at the end of its period. */
  async cancelAtPeriodEnd(subscriptionId: string): Promise<SubscriptionState> {
    const sub = await this.live(subscriptionId);
    if (!sub.cancelAtPeriodEnd) {
      sub.cancelAtPeriodEnd = true;
      await this.rt.store.put('subscription', sub);
      await this.events.subscription(sub, 'subscription.updated');
    }
    return toState(sub);
  }

  /** Sets the add-on quantities, prorated. */
  async updateAddons(input: UpdateAddonsInput): Promise<SubscriptionState> {
    const sub = await this.live(input.subscriptionId);
    let delta = 0;
    for (const [addon, qty] of Object.entries(input.addons) as [AddonId, number][]) {
      delta += (qty - (sub.addons[addon] ?? 0)) * this.rt.options.prices.addons[addon];
      sub.addons[addon] = qty;
    }
    await this.rt.store.put('subscription', sub);
    await this.events.subscription(sub, 'subscription.updated');
    await this.ledger.settleProration(
      sub,
      sub.status === 'trialing' ? 0 : prorate(delta, sub, this.rt.now()),
      'add-ons',
    );
    return toState(sub);
  }

  /** Sets the number of extra workspaces, prorated. */
  async setSubscriptionItemQuantity(input: SetItemQuantityInput): Promise<SubscriptionState> {
    const sub = await this.live(input.subscriptionId);
    if (sub.resale) throw new AdapterError('not_supported', `subscription ${sub.id} is a resale subscription`);
    const before = sub.extraWorkspaces ?? 0;
    if (before === input.quantity) return toState(sub);
    sub.extraWorkspaces = input.quantity;
    await this.rt.store.put('subscription', sub);
    await this.events.subscription(sub, 'subscription.updated');
    const delta = (input.quantity - before) * this.rt.options.prices.extraWorkspace[sub.plan];
    await this.ledger.settleProration(
      sub,
      sub.status === 'trialing' ? 0 : prorate(delta, sub, this.rt.now()),
      `extra workspaces ${before} → ${input.quantity}`,
    );
    return toState(sub);
  }

  /** A new monthly price or platform fee for a resale subscription. */
  async updateResaleCollection(input: UpdateResaleInput): Promise<ResaleState> {
    const sub = await this.live(input.subscriptionId);
    if (!sub.resale) throw new AdapterError('not_supported', `subscription ${sub.id} is not a resale subscription`);
    sub.resale.amountUsd = round2(input.amountUsd);
    sub.resale.feePercent = input.platformFeePercent;
    await this.rt.store.put('subscription', sub);
    await this.events.resale(sub);
    return toResaleState(sub);
  }

  /** Ends a resale subscription at the end of its period. */
  async stopResaleCollection(subscriptionId: string): Promise<ResaleState> {
    const sub = await this.live(subscriptionId);
    if (!sub.resale) throw new AdapterError('not_supported', `subscription ${sub.id} is not a resale subscription`);
    if (!sub.cancelAtPeriodEnd) {
      sub.cancelAtPeriodEnd = true;
      await this.rt.store.put('subscription', sub);
      await this.events.resale(sub);
    }
    return toResaleState(sub);
  }

  /** A subscription that still bills; 404 unknown, `subscription_canceled` when it ended. */
  async live(id: string): Promise<LocalSubscription> {
    const sub = await this.rt.store.get<LocalSubscription>('subscription', id);
    if (!sub) throw new AdapterNotFoundError(`subscription ${id} does not exist`);
    if (!LIVE.includes(sub.status))
      throw new AdapterError('subscription_canceled', `subscription ${id} is ${sub.status}`);
    return sub;
  }
}
