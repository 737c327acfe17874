import type { AddonId, PaidPlanId, SubscriptionStatus, TopupPackId } from '../../core/contracts/index.js';

/** Documents of the simulated provider (dates as ISO strings). */
export interface LocalCustomer {
  id: string;
  orgId: string;
  email: string;
  name: string | null;
  card: { last4: string; failing: boolean } | null;
  /** Credit from downgrades, taken off the next invoices. */
  balanceUsd: number;
}

export interface LocalCheckout {
  id: string;
  mode: 'subscription' | 'topup';
  plan: PaidPlanId | null;
  pack: TopupPackId | null;
  trialDays: number;
  orgId: string;
  customerId: string | null;
  email: string;
  name: string | null;
  successUrl: string;
  cancelUrl: string;
  status: 'open' | 'complete' | 'expired';
  subscriptionId: string | null;
  expiresAt: string;
  createdAt: string;
}

export interface LocalSubscription {
  id: string;
  customerId: string;
  orgId: string;
  plan: PaidPlanId;
  status: SubscriptionStatus;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  trialEndsAt: string | null;
  cancelAtPeriodEnd: boolean;
  addons: Partial<Record<AddonId, number>>;
}

export interface LocalInvoice {
  id: string;
  number: string;
  customerId: string;
  orgId: string;
  subscriptionId: string | null;
  purpose: 'subscription' | 'topup';
  status: 'paid' | 'open';
  amountDueUsd: number;
  amountPaidUsd: number;
  currency: string;
  periodStart: string | null;
  periodEnd: string | null;
  line: string;
  createdAt: string;
}

export interface LocalPortal {
  id: string;
  customerId: string;
  returnUrl: string;
  expiresAt: string;
}

export interface LocalAccount {
  id: string;
  orgId: string;
  country: string;
  email: string;
  businessName: string | null;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  detailsSubmitted: boolean;
}

export interface LocalAccountLink {
  id: string;
  accountId: string;
  returnUrl: string;
  refreshUrl: string;
  used: boolean;
  expiresAt: string;
}
