import type { LocalEmitter } from './emitter.js';
import type { LocalLedger } from './ledger.js';
import { addMonths, round2 } from './money.js';
import type { LocalRuntime } from './options.js';
import { LIVE } from './states.js';
import type { AddonId } from '../../core/contracts/index.js';
import type { LocalCheckout, LocalCustomer, LocalSubscription } from './types.js';

/** The simulated time: real time, moved forward (never back) by the clock. */
export class SimulatedTime {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  moveTo(at: Date): void {
    if (at.getTime() > this.now().getTime()) this.offsetMs = at.getTime() - Date.now();
  }
}

/** The provider's clock (scheduler role): what falls due when the simulated time moves. */
export class LocalClock {
  constructor(
    private readonly rt: LocalRuntime,
    private readonly time: SimulatedTime,
    private readonly ledger: LocalLedger,
    private readonly events: LocalEmitter,
  ) {}

  /**
   * Moves the simulated clock to `at` (never back) and does what is due: trials end (first
   * charge), periods renew (or the subscription ends when canceled at period end, or after a
   * past-due period), open checkouts expire. Answers how many subscriptions changed.
   */
  async run(at?: Date): Promise<number> {
    if (at) this.time.moveTo(at);
    const now = this.rt.now();
    let changed = 0;
    for (let round = 0; round < 60; round++) {
      const due = await this.rt.store.list<LocalSubscription>('subscription', {
        in: ['status', LIVE],
        dueField: 'currentPeriodEnd',
        dueBefore: now,
      });
      if (due.length === 0) break;
      for (const sub of due) {
        await this.advance(sub);
        changed++;
      }
    }
    for (const c of await this.rt.store.list<LocalCheckout>('checkout', {
      where: { status: 'open' },
      dueField: 'expiresAt',
      dueBefore: now,
    })) {
      c.status = 'expired';
      await this.rt.store.put('checkout', c);
    }
    return changed;
  }

  /** A period ends: renewed and charged (credit first, past due with a failing card), or ended. */
  private async advance(sub: LocalSubscription): Promise<void> {
    if (sub.resale) return this.advanceResale(sub);
    const at = new Date(sub.currentPeriodEnd);
    if (sub.cancelAtPeriodEnd || sub.status === 'past_due') {
      sub.status = 'canceled';
      await this.rt.store.put('subscription', sub);
      await this.events.subscription(sub, 'subscription.deleted', at);
      return;
    }
    const customer = (await this.rt.store.get<LocalCustomer>('customer', sub.customerId))!;
    const start = at;
    const end = addMonths(start, 1);
    let amount = this.rt.options.prices.plans[sub.plan];
    for (const [addon, qty] of Object.entries(sub.addons) as [AddonId, number][])
      amount += qty * this.rt.options.prices.addons[addon];
    const extra = sub.extraWorkspaces ?? 0;
    amount += extra * this.rt.options.prices.extraWorkspace[sub.plan];
    const credit = Math.min(customer.balanceUsd, amount);
    customer.balanceUsd = round2(customer.balanceUsd - credit);
    await this.rt.store.put('customer', customer);
    const failing = customer.card?.failing ?? false;
    sub.currentPeriodStart = start.toISOString();
    sub.currentPeriodEnd = end.toISOString();
    sub.status = failing ? 'past_due' : 'active';
    await this.rt.store.put('subscription', sub);
    const line =
      extra > 0
        ? `${sub.plan} plan + ${extra} extra workspace${extra === 1 ? '' : 's'} × ${this.rt.options.prices.extraWorkspace[sub.plan].toFixed(2)} USD`
        : `${sub.plan} plan`;
    const invoice = await this.ledger.invoice({
      customer,
      subscriptionId: sub.id,
      purpose: 'subscription',
      amount: round2(amount - credit),
      status: failing ? 'open' : 'paid',
      periodStart: start,
      periodEnd: end,
      line,
    });
    await this.events.subscription(sub, 'subscription.updated', at);
    await this.events.invoice(invoice, at);
  }

  /** A resale period ends: renewed and charged (past due with a failing card), or ended. */
  private async advanceResale(sub: LocalSubscription): Promise<void> {
    const at = new Date(sub.currentPeriodEnd);
    if (sub.cancelAtPeriodEnd || sub.status === 'past_due') {
      sub.status = 'canceled';
      await this.rt.store.put('subscription', sub);
      await this.events.resale(sub, at);
      return;
    }
    const customer = (await this.rt.store.get<LocalCustomer>('customer', sub.customerId))!;
    const end = addMonths(at, 1);
    sub.currentPeriodStart = at.toISOString();
    sub.currentPeriodEnd = end.toISOString();
    sub.status = customer.card?.failing ? 'past_due' : 'active';
    await this.rt.store.put('subscription', sub);
    const invoice = await this.ledger.chargeResale(sub, customer, at, end);
    await this.events.resale(sub, at);
    await this.events.invoice(invoice, at);
  }
}
