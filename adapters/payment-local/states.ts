import type { ResaleState, SubscriptionState } from '../../core/contracts/index.js';
import type { LocalSubscription } from './types.js';

// How stored subscriptions are answered through the PaymentProvider contract.

/** Subscription statuses that still bill (renewals, changes). */
export const LIVE = ['trialing', 'active', 'past_due'];

/** Card numbers with a scripted outcome (as Stripe's test cards). */
export const TEST_CARDS = {
  ok: '4242424242424242',
  declined: '4000000000000002',
  failsLater: '4000000000000341',
} as const;

/** Dates of a stored answer (SubscriptionState) come back as Dates. */
export function reviveDates<T>(value: T): T {
  if (!value || typeof value !== 'object') return value;
  const out = { ...(value as Record<string, unknown>) };
  for (const k of ['currentPeriodStart', 'currentPeriodEnd', 'trialEndsAt'])
    if (typeof out[k] === 'string') out[k] = new Date(out[k]);
  return out as T;
}

export function toResaleState(sub: LocalSubscription): ResaleState {
  return {
    subscriptionId: sub.id,
    customerId: sub.customerId,
    workspaceId: sub.resale!.workspaceId,
    status: sub.status,
    amountUsd: sub.resale!.amountUsd,
    currentPeriodStart: new Date(sub.currentPeriodStart),
    currentPeriodEnd: new Date(sub.currentPeriodEnd),
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
  };
}

export function toState(sub: LocalSubscription): SubscriptionState {
  return {
    subscriptionId: sub.id,
    customerId: sub.customerId,
    plan: sub.plan,
    status: sub.status,
    currentPeriodStart: new Date(sub.currentPeriodStart),
    currentPeriodEnd: new Date(sub.currentPeriodEnd),
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
    trialEndsAt: sub.trialEndsAt ? new Date(sub.trialEndsAt) : null,
  };
}
