/** Paying the service: checkout, the customer portal, subscriptions (plan, add-ons, items) and invoices. */
import type { AddonId, PaidPlanId, SubscriptionItemId, TopupPackId } from './payment-catalog.js';
import type { ResaleTransfer } from './payment-resale.js';

/** Subscription status (spec: subscription_status). */
export type SubscriptionStatus = 'none' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'incomplete' | 'lifetime';
export const SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = [
  'none',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'incomplete',
  'lifetime',
];

/** Who pays: an existing provider customer, or the details to create one. */
export interface CustomerRef {
  orgId: string;
  /** Provider customer id once known. */
  customerId?: string | null;
  email: string;
  name?: string;
}

interface CheckoutBase {
  customer: CustomerRef;
  successUrl: string;
  cancelUrl: string;
}

/** A subscription checkout; `trialDays` 0 when no trial applies (first subscription only). */
export interface SubscriptionCheckoutInput extends CheckoutBase {
  mode: 'subscription';
  plan: PaidPlanId;
  trialDays: number;
}

/** A one-time top-up of fix credits. */
export interface TopupCheckoutInput extends CheckoutBase {
  mode: 'topup';
  pack: TopupPackId;
}

export type CheckoutInput = SubscriptionCheckoutInput | TopupCheckoutInput;

export interface CheckoutSession {
  /** Provider's checkout id; `checkout.completed` refers to it. */
  checkoutId: string;
  /** Hosted page the user is sent to. */
  url: string;
  customerId: string | null;
}

export interface SubscriptionState {
  subscriptionId: string;
  customerId: string;
  plan: PaidPlanId;
  status: SubscriptionStatus;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  trialEndsAt: Date | null;
}

export interface InvoiceInfo {
  invoiceId: string;
  number: string | null;
  customerId: string;
  subscriptionId: string | null;
  /** Spec Invoice.purpose. */
  purpose: 'subscription' | 'topup' | 'resale' | 'other';
  status: string;
  amountPaidUsd: number;
  amountDueUsd: number;
  currency: string;
  periodStart: Date | null;
  periodEnd: Date | null;
  hostedInvoiceUrl: string | null;
  /** Resale invoices: the client workspace and the transfer to the agency's payout account. */
  workspaceId?: string | null;
  transfer?: ResaleTransfer | null;
}

export interface PortalInput {
  customerId: string;
  returnUrl: string;
}

export interface ChangePlanInput {
  subscriptionId: string;
  plan: PaidPlanId;
}

export interface SetItemQuantityInput {
  subscriptionId: string;
  item: SubscriptionItemId;
  /** Units after the call (0 removes the item); priced at the subscription's current plan. */
  quantity: number;
}

export interface UpdateAddonsInput {
  subscriptionId: string;
  /** Quantity of each add-on after the call; 0 removes it; an add-on left out keeps its quantity. */
  addons: Partial<Record<AddonId, number>>;
}
