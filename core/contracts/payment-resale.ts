/** Agencies reselling the service: payout accounts (Connect onboarding) and their clients' resale subscriptions. */
import type { SubscriptionStatus } from './payment-subscriptions.js';

/** A client of an agency paying the agency's resale price, through the agency's payout account. */
export interface ResaleCollectionInput {
  /** The agency. */
  orgId: string;
  /** The client workspace the price is for. */
  workspaceId: string;
  /** The agency's connected payout account: where the money goes. */
  destinationAccountId: string;
  client: { email: string; name?: string | null };
  /** Monthly price in US dollars. */
  amountUsd: number;
  /** Share of each payment the platform keeps (0–100, two decimals). */
  platformFeePercent: number;
  /** What the client sees on the page and the invoices. */
  description: string;
  successUrl: string;
  cancelUrl: string;
}

export interface ResaleCollection {
  /** The hosted page where the client enters a card; `checkout.completed` (mode `resale`) refers to it. */
  checkoutId: string;
  url: string;
  customerId: string | null;
}

export interface UpdateResaleInput {
  subscriptionId: string;
  amountUsd: number;
  platformFeePercent: number;
}

/** Money of a resale payment: what went to the payout account and what the platform kept. */
export interface ResaleTransfer {
  destinationAccountId: string;
  /** Paid by the client minus the platform fee. */
  amountUsd: number;
  platformFeeUsd: number;
}

/** The state of a client's resale subscription at the provider. */
export interface ResaleState {
  subscriptionId: string;
  customerId: string;
  workspaceId: string;
  status: SubscriptionStatus;
  amountUsd: number;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
}

export interface ConnectOnboardingInput {
  orgId: string;
  /** The payout account once created; null creates it. */
  accountId: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string;
  email: string;
  returnUrl: string;
  refreshUrl: string;
}

/** Connected payout account of an agency. */
export interface ConnectOnboarding {
  accountId: string;
  /** Onboarding link (single use, short lived). */
  url: string;
}
