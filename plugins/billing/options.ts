import Joi from 'joi';
import { DEFAULT_PLAN_LIMITS, type PlanLimits } from '../../core/contracts/index.js';

/** A plan's numbers: the spec's Plan.limits plus what billing adds (trial fixes). */
export interface PlanNumbers extends PlanLimits {
  /** Fixes granted for the trial (expire when it ends); 0 for plans without a trial. */
  trial_fixes: number;
}

export type CreditSource = 'plan' | 'referral' | 'review' | 'case_study' | 'sponsored' | 'topup';
export const CREDIT_SOURCES: readonly CreditSource[] = [
  'plan',
  'referral',
  'review',
  'case_study',
  'sponsored',
  'topup',
];

/** `config.plugins.billing.options`, documented in docs/billing.md. */
export interface BillingOptions {
  /** Trial of the first subscription (card on file). */
  trialDays: number;
  /** The numbers of each plan id (each key overrides the default); they replace the accounts catalogue's limits. */
  plans: Record<string, Partial<PlanNumbers>>;
  /** Days until credits of each source expire (plan credits expire with their period). */
  creditExpiryDays: Record<Exclude<CreditSource, 'plan'>, number>;
  referral: {
    /** Fixes the referrer gets for each organization that signs up with its code. */
    referrerFixes: number;
    /** Fixes the referred organization gets. */
    referredFixes: number;
  };
  claims: {
    reviewFixes: number;
    caseStudyFixes: number;
    /** Approve claims on request (no staff review), e.g. for demos. */
    autoApprove: boolean;
  };
  spendCap: {
    /** Share of the cap at which the alert email goes out. */
    alertRatio: number;
  };
  addons: {
    /** Plans on which the badge removal add-on can be bought. */
    badgeRemovalPlans: string[];
    /** Plans on which client workspaces can take the managed add-on and be resold. */
    agencyPlans: string[];
  };
  resale: {
    /** Share of each client payment the platform keeps when a resale is collected through the payout account. */
    platformFeePercent: number;
    /** Where the client's checkout page returns to (a full URL; default the service's public base URL). */
    clientReturnUrl?: string;
  };
  /** Dashboard path the hosted pages return to (on the public base URL). */
  returnPath: string;
}

const n = (min: number) => Joi.number().min(min);
const int = (min: number) => Joi.number().integer().min(min);

const planNumbers = Joi.object<PlanNumbers>({
  tickets_per_month: int(0),
  repositories_per_workspace: int(0),
  public_repos_only: Joi.boolean(),
  workspaces_included: int(0),
  extra_workspace_price_usd: n(0),
  included_fixes_per_month: int(0),
  overage_fix_price_usd: n(0),
  trial_fixes: int(0),
});

/**
 * Default numbers per plan. Extra workspaces cost extra_workspace_price_usd a month each (0: no
 * extra workspaces beyond the included ones); overage fixes cost overage_fix_price_usd each
 * (0: no overage on that plan).
 */
export const DEFAULT_PLAN_NUMBERS: Record<string, PlanNumbers> = {
  none: { ...DEFAULT_PLAN_LIMITS.none, trial_fixes: 0 },
  open_source: { ...DEFAULT_PLAN_LIMITS.open_source, trial_fixes: 0 },
  indie: { ...DEFAULT_PLAN_LIMITS.indie, trial_fixes: 5 },
  startup: { ...DEFAULT_PLAN_LIMITS.startup, trial_fixes: 10 },
  growth: { ...DEFAULT_PLAN_LIMITS.growth, trial_fixes: 20 },
  managed: { ...DEFAULT_PLAN_LIMITS.managed, trial_fixes: 20 },
  agency: { ...DEFAULT_PLAN_LIMITS.agency, trial_fixes: 20 },
  enterprise: { ...DEFAULT_PLAN_LIMITS.enterprise, trial_fixes: 0 },
};

export const billingOptionsSchema = Joi.object<BillingOptions>({
  trialDays: int(0).max(90).default(14),
  plans: Joi.object()
    .pattern(Joi.string().valid(...Object.keys(DEFAULT_PLAN_NUMBERS)), planNumbers)
    .default({}),
  creditExpiryDays: Joi.object({
    referral: int(1).default(365),
    review: int(1).default(365),
    case_study: int(1).default(365),
    sponsored: int(1).default(365),
    topup: int(1).default(365),
  }).default(),
  referral: Joi.object({ referrerFixes: int(0).default(10), referredFixes: int(0).default(5) }).default(),
  claims: Joi.object({
    reviewFixes: int(0).default(10),
    caseStudyFixes: int(0).default(30),
    autoApprove: Joi.boolean().default(false),
  }).default(),
  spendCap: Joi.object({ alertRatio: n(0.01).max(1).default(0.8) }).default(),
  addons: Joi.object({
    badgeRemovalPlans: Joi.array().items(Joi.string()).default(['managed']),
    agencyPlans: Joi.array().items(Joi.string()).default(['agency']),
  }).default(),
  resale: Joi.object({
    platformFeePercent: Joi.number().min(0).max(100).precision(2).default(5),
    clientReturnUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
  }).default(),
  returnPath: Joi.string().pattern(/^\//).default('/billing'),
});

/** The numbers of a plan, with every plan id present (missing ones fall back to the defaults). */
export function planNumbersOf(options: BillingOptions, planId: string): PlanNumbers {
  const base = DEFAULT_PLAN_NUMBERS[planId] ?? DEFAULT_PLAN_NUMBERS.none;
  return { ...base, ...(options.plans[planId] ?? {}) };
}
