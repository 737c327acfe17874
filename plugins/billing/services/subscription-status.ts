import type { SubscriptionStatus } from '../../../core/contracts/index.js';

/**
 * Subscription status transitions, driven by provider events (docs/billing.md has the table).
 *
 * - `none` → `incomplete` (first payment pending), `trialing` (checkout with a trial), `active`.
 * - `incomplete` → `trialing`, `active` (payment completed), `canceled` (it expired).
 * - `trialing` → `active` (trial converted), `past_due` (first charge failed), `canceled`.
 * - `active` → `past_due` (a renewal failed), `canceled` (period ended after cancel, or deleted).
 * - `past_due` → `active` (paid after all), `canceled` (retries exhausted).
 * - `canceled` → `incomplete`, `trialing`, `active`: only with a new subscription (a new checkout).
 * - `lifetime` is set by staff and never changed by provider events.
 *
 * `none` and `lifetime` are never reached from provider events; the open-source plan keeps its
 * status `none` (it has no subscription).
 */
export const SUBSCRIPTION_TRANSITIONS: Readonly<Record<SubscriptionStatus, readonly SubscriptionStatus[]>> = {
  none: ['incomplete', 'trialing', 'active'],
  incomplete: ['trialing', 'active', 'canceled'],
  trialing: ['active', 'past_due', 'canceled'],
  active: ['past_due', 'canceled'],
  past_due: ['active', 'canceled'],
  canceled: ['incomplete', 'trialing', 'active'],
  lifetime: [],
};

/** Statuses with a running subscription (plan features on, plan switch and cancel possible). */
export const LIVE_STATUSES: readonly SubscriptionStatus[] = ['trialing', 'active', 'past_due'];

/**
 * Precedence of two states of the same subscription at the same provider time: the later stage
 * wins, so two events with one timestamp give the same result in any order.
 */
const RANK: Readonly<Record<SubscriptionStatus, number>> = {
  none: 0,
  incomplete: 1,
  trialing: 2,
  active: 3,
  past_due: 4,
  canceled: 5,
  lifetime: 6,
};

export function statusRank(status: SubscriptionStatus): number {
  return RANK[status];
}

export type TransitionVerdict =
  { apply: true } | { apply: false; reason: 'stale' | 'not_allowed' | 'lifetime' | 'other_subscription' };

export interface CurrentSubscription {
  status: SubscriptionStatus;
  subscriptionId: string | null;
  /** Provider time and rank of the state applied last. */
  eventAt: Date | null;
  eventRank: number;
}

export interface IncomingState {
  status: SubscriptionStatus;
  subscriptionId: string;
  occurredAt: Date;
}

/**
 * Whether a provider's subscription state replaces the stored one.
 *
 * - lifetime never changes;
 * - a state of another subscription than the current live one is an old subscription's echo;
 * - for the same subscription, an older event than the last applied one is stale, and at the
 *   same time the higher rank wins;
 * - a new subscription (none/canceled before) starts a new history;
 * - otherwise the status must be allowed by the table (a same-status update always is).
 */
export function judgeTransition(current: CurrentSubscription, next: IncomingState): TransitionVerdict {
  if (current.status === 'lifetime') return { apply: false, reason: 'lifetime' };
  const sameSubscription = current.subscriptionId === next.subscriptionId;
  if (!sameSubscription) {
    if (current.subscriptionId && LIVE_STATUSES.includes(current.status))
      return { apply: false, reason: 'other_subscription' };
    if (
      current.subscriptionId &&
      current.status === 'incomplete' &&
      current.eventAt &&
      next.occurredAt < current.eventAt
    ) {
      return { apply: false, reason: 'stale' };
    }
    return SUBSCRIPTION_TRANSITIONS[current.status].includes(next.status) || current.status === next.status
      ? { apply: true }
      : { apply: false, reason: 'not_allowed' };
  }
  if (current.eventAt) {
    const t0 = current.eventAt.getTime();
    const t1 = next.occurredAt.getTime();
    if (t1 < t0) return { apply: false, reason: 'stale' };
    if (t1 === t0 && statusRank(next.status) < current.eventRank) return { apply: false, reason: 'stale' };
  }
  if (current.status === next.status) return { apply: true };
  // A canceled subscription stays canceled: only a new one moves the organization on.
  if (current.status === 'canceled') return { apply: false, reason: 'not_allowed' };
  return SUBSCRIPTION_TRANSITIONS[current.status].includes(next.status)
    ? { apply: true }
    : { apply: false, reason: 'not_allowed' };
}
