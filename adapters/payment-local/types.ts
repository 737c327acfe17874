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
  /** An agency's client paying a resale price for this workspace (not the organization itself). */
  workspaceId?: string;
}

/** What a resale checkout and subscription collect for an agency's client workspace. */
export interface LocalResale {
  workspaceId: string;
  /** The agency's payout account. */
  accountId: string;
  amountUsd: number;
  feePercent: number;
  description: string;
}

export interface LocalCheckout {
  id: string;
  mode: 'subscription' | 'topup' | 'resale';
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
  resale?: LocalResale;
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
  /** Workspaces beyond the plan's included ones, billed at the plan's extra workspace price. */
  extraWorkspaces?: number;
  /** A client's subscription to an agency's resale price (`plan` is then unused). */
  resale?: LocalResale;
}

export interface LocalInvoice {
  id: string;
  number: string;
  customerId: string;
  orgId: string;
  subscriptionId: string | null;
  purpose: 'subscription' | 'topup' | 'resale';
  status: 'paid' | 'open';
  amountDueUsd: number;
  amountPaidUsd: number;
  currency: string;
  periodStart: string | null;
  periodEnd: string | null;
  line: string;
  createdAt: string;
  /** Resale: the client workspace and what went to the payout account (once paid). */
  workspaceId?: string;
  transfer?: { accountId: string; amountUsd: number; feeUsd: number; transferId: string } | null;
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
  /** What resale payments transferred to it, not yet paid out. */
  balanceUsd?: number;
}

/** Money moved to a payout account from a paid resale invoice (a destination charge's transfer). */
export interface LocalTransfer {
  id: string;
  accountId: string;
  invoiceId: string;
  workspaceId: string;
  amountUsd: number;
  feeUsd: number;
  createdAt: string;
}

export interface LocalAccountLink {
  id: string;
  accountId: string;
  returnUrl: string;
  refreshUrl: string;
  used: boolean;
  expiresAt: string;
}
