import { tenantModel } from '../../core/data/model.js';
import type { CreditSource } from './options.js';

/** The organization at the payment provider and the subscription state billing keeps. */
export class BillingAccount extends tenantModel({ table: 'billing_accounts', idPrefix: 'bac' }) {
  declare provider: string | null;
  declare customer_id: string | null;
  declare subscription_id: string | null;
  declare current_period_start: Date | null;
  declare cancel_at_period_end: boolean;
  declare has_payment_method: boolean;
  declare trial_used: boolean;
  declare first_subscribed_at: Date | null;
  declare subscription_event_at: Date | null;
  declare subscription_event_rank: number;
  declare connect_event_at: Date | null;
  declare connect_country: string | null;
  declare connect_payouts_enabled: boolean;
  declare connect_details_submitted: boolean;
  declare spend_alert_period_start: Date | null;
  declare spend_block_period_start: Date | null;
  declare badge_removal_quantity: number;
  declare managed_workspace_quantity: number;
  declare extra_workspace_quantity: number;
  declare extra_workspace_sync_seq: number;
  declare updated_at: Date;
}

export class CreditBalance extends tenantModel({ table: 'credit_balances', idPrefix: 'cbal' }) {
  declare workspace_id: string | null;
  declare source: CreditSource;
  declare granted_fixes: number;
  declare fixes_remaining: number;
  declare granted_at: Date;
  declare expires_at: Date | null;
  declare reference: string;
  declare updated_at: Date;
}

export type LedgerKind = 'grant' | 'consume' | 'refund' | 'expire' | 'adjust';

export class CreditLedgerEntry extends tenantModel({ table: 'credit_ledger', idPrefix: 'cled', updatedAt: false }) {
  declare balance_id: string;
  declare source: CreditSource;
  declare kind: LedgerKind;
  declare fixes: number;
  declare job_id: string | null;
  declare note: string | null;
}

export class JobCost extends tenantModel({ table: 'billing_job_costs', idPrefix: 'bjc' }) {
  declare workspace_id: string | null;
  declare job_id: string;
  declare kind: 'fix' | 'diagnosis';
  declare status: 'reserved' | 'recorded';
  declare funding: 'credit' | 'overage' | 'included' | 'none';
  declare balance_id: string | null;
  declare estimated_cost_usd: number | string | null;
  declare cost_usd: number | string;
  declare consumed_fix: boolean;
  declare charged_usd: number | string;
  declare period_start: Date;
  declare recorded_at: Date | null;
  declare updated_at: Date;
}

export class Invoice extends tenantModel({ table: 'billing_invoices', idPrefix: 'binv' }) {
  declare provider: string;
  declare provider_invoice_id: string;
  declare number: string | null;
  declare status: string;
  declare status_rank: number;
  declare purpose: 'subscription' | 'topup' | 'resale' | 'other';
  declare amount_paid_usd: number | string;
  declare amount_due_usd: number | string;
  declare currency: string;
  declare period_start: Date | null;
  declare period_end: Date | null;
  declare paid_at: Date | null;
  declare hosted_invoice_url: string | null;
  declare updated_at: Date;
}

export class Checkout extends tenantModel({ table: 'billing_checkouts', idPrefix: 'bchk' }) {
  declare provider: string;
  declare provider_checkout_id: string;
  declare mode: 'subscription' | 'topup';
  declare plan: string | null;
  declare pack: string | null;
  declare trial_days: number;
  declare status: 'open' | 'completed';
  declare created_by_user_id: string | null;
  declare completed_at: Date | null;
  declare updated_at: Date;
}

export class Claim extends tenantModel({ table: 'billing_claims', idPrefix: 'clm' }) {
  declare kind: 'review' | 'case_study';
  declare status: 'pending' | 'approved' | 'rejected';
  declare url: string;
  declare note: string | null;
  declare fixes: number;
  declare balance_id: string | null;
  declare requested_by_user_id: string | null;
  declare decided_by: string | null;
  declare decided_at: Date | null;
  declare decision_note: string | null;
  declare updated_at: Date;
}

export class Referral extends tenantModel({ table: 'referrals', idPrefix: 'rfl' }) {
  declare referred_org_id: string;
  declare code: string;
  declare fixes: number;
  declare balance_id: string | null;
  declare credited_at: Date | null;
  declare updated_at: Date;
}

/** A client workspace's resale collected through the agency's payout account. */
export interface ResaleRow {
  id: string;
  org_id: string;
  workspace_id: string;
  provider: string;
  destination_account_id: string;
  client_email: string;
  checkout_id: string | null;
  checkout_url: string | null;
  customer_id: string | null;
  subscription_id: string | null;
  status: string;
  amount_usd: number | string;
  platform_fee_percent: number | string;
  cancel_at_period_end: boolean;
  current_period_start: Date | null;
  current_period_end: Date | null;
  event_at: Date | null;
  sync_seq: number;
  created_at: Date;
  updated_at: Date;
}

/** Rows of `organizations` billing reads and writes (accounts owns the table). */
export interface OrgRow {
  id: string;
  name: string;
  slug: string;
  type: string;
  plan: string;
  subscription_status: string;
  trial_ends_at: Date | null;
  current_period_end: Date | null;
  plan_activated_at: Date | null;
  billing_email: string | null;
  spend_cap_usd: number | string | null;
  badge_removal_addon: boolean;
  overage_enabled: boolean;
  referral_code: string | null;
  referred_by_code: string | null;
  locale: string;
  payment_connect_account_id: string | null;
  connect_charges_enabled: boolean;
  created_at: Date;
}

/** numeric columns come back as strings on some drivers. */
export const num = (v: number | string | null | undefined): number => (v === null || v === undefined ? 0 : Number(v));
export const money = (v: number): number => Math.round(v * 100) / 100;
