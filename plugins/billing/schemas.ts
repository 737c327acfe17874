import Joi from 'joi';
import { PAID_PLAN_IDS, SUBSCRIPTION_STATUSES, TOPUP_PACK_IDS } from '../../core/contracts/index.js';
import { CREDIT_SOURCES } from './options.js';
import { pageSchema } from '../../core/http/pagination.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

/**
 * Answer shapes of the billing sections. Each `.id()` schema is one OpenAPI component; these very
 * objects are used wherever the shape appears.
 */

const PLAN_IDS = ['none', 'open_source', 'indie', 'startup', 'growth', 'managed', 'agency', 'enterprise'] as const;
const int = () => Joi.number().integer();
const usd = () => Joi.number();

export const planIdSchema = Joi.string().valid(...PLAN_IDS);
export const paidPlanSchema = Joi.string().valid(...PAID_PLAN_IDS);
export const statusSchema = Joi.string().valid(...SUBSCRIPTION_STATUSES);
export const sourceSchema = Joi.string().valid(...CREDIT_SOURCES);

/** Live fixes per credit source with the next expiry (the organization's and the staff's view). */
const creditsBySource = Joi.array().items(
  Joi.object({
    source: sourceSchema.required(),
    fixes_remaining: int().required(),
    next_expiry_at: nullableTime(),
  }),
);

const Summary = Joi.object({
  plan: planIdSchema.required(),
  subscription_status: statusSchema.required(),
  trial_ends_at: nullableTime(),
  current_period_start: nullableTime(),
  current_period_end: nullableTime(),
  cancel_at_period_end: Joi.boolean().required(),
  has_payment_method: Joi.boolean().required(),
  workspaces: Joi.object({
    used: int().required(),
    included: int().required(),
    extra: int().required().description('Workspaces beyond the included ones, billed at extra_price_usd a month each'),
    extra_price_usd: usd().required(),
  }).required(),
  tickets: Joi.object({
    used_this_period: int().required(),
    limit_per_workspace: int().required().description('tickets_per_month of the plan, per workspace'),
  }).required(),
  fixes: Joi.object({
    included_per_month: int().required(),
    used_this_period: int().required(),
    credits_remaining: int().required(),
    overage_enabled: Joi.boolean().required(),
    overage_price_usd: usd().required(),
  }).required(),
  credits_by_source: creditsBySource.required(),
  spend: Joi.object({
    cap_usd: usd().allow(null).required(),
    spent_this_period_usd: usd().required(),
    alert_ratio: usd().required(),
    alert_sent: Joi.boolean().required(),
    blocked: Joi.boolean().required(),
  }).required(),
  addons: Joi.object({ badge_removal: Joi.boolean().required(), managed_workspaces: int().required() }).required(),
}).required();

const PlanOffer = Joi.object({
  id: planIdSchema.required(),
  name: Joi.string().required(),
  price_monthly_usd: usd().allow(null).required().description('null: the provider sells no price for this plan'),
  trial_days: int().required(),
  trial_fixes: int().required(),
  included_fixes_per_month: int().required(),
  tickets_per_month: int().required(),
  repositories_per_workspace: int().required(),
  workspaces_included: int().required(),
  extra_workspace_price_usd: usd().required(),
  overage_fix_price_usd: usd().required(),
  features: Joi.array().items(Joi.string()).required(),
  current: Joi.boolean().required(),
  available: Joi.boolean().required(),
});

const ResaleCollection = Joi.object({
  status: Joi.string()
    .valid('pending', 'trialing', 'active', 'past_due', 'incomplete', 'canceled')
    .required()
    .description('pending: the client has not paid on the checkout page yet'),
  checkout_url: Joi.string()
    .allow(null)
    .required()
    .description('The page the client pays on, while pending (also emailed to the client)'),
  amount_usd: usd().required(),
  platform_fee_percent: usd().required(),
  current_period_end: nullableTime(),
  cancel_at_period_end: Joi.boolean().required(),
  periods_paid: int().required(),
  collected_usd: usd().required().description('Paid by the client so far'),
  transferred_usd: usd().required().description('Of that, sent to the payout account'),
  platform_fees_usd: usd().required(),
})
  .allow(null)
  .description('The resale collected through the payout account (the latest one); null when never started');

const AgencyBilling = Joi.object({
  platform_fee_percent: usd().required().description('Share of each client payment the service keeps'),
  connect: Joi.object({
    account_id: Joi.string().allow(null).required(),
    charges_enabled: Joi.boolean().required(),
    payouts_enabled: Joi.boolean().required(),
    details_submitted: Joi.boolean().required(),
  }).required(),
  managed_addon_price_usd: usd().allow(null).required(),
  workspaces: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().required(),
        name: Joi.string().required(),
        client_name: Joi.string().allow(null).required(),
        managed_addon: Joi.boolean().required(),
        resale_price_usd: usd().allow(null).required(),
        collect_via_connect: Joi.boolean().required(),
        client_email: Joi.string().allow(null).required(),
        collection: ResaleCollection.required(),
      }),
    )
    .required(),
})
  .allow(null)
  .description(
    'Agency billing (organizations on an agency plan): payout account and client workspaces; null otherwise',
  );

export const Billing = Joi.object({
  summary: Summary,
  payments_enabled: Joi.boolean().required(),
  has_subscription: Joi.boolean().required(),
  subscription_status: statusSchema.required(),
  trial: Joi.object({ ends_at: nullableTime(), days_left: int().required(), fixes: int().required() }).required(),
  past_due: Joi.boolean().required(),
  trial_available: Joi.boolean().required(),
  plans: Joi.array().items(PlanOffer).required(),
  topups_available: Joi.boolean().required(),
  topup_packs: Joi.array()
    .items(
      Joi.object({
        id: Joi.string()
          .valid(...TOPUP_PACK_IDS)
          .required(),
        fixes: int().required(),
        price_usd: usd().allow(null).required(),
      }),
    )
    .required(),
  addons: Joi.object({
    badge_removal: Joi.object({
      available: Joi.boolean().required(),
      active: Joi.boolean().required(),
      price_usd: usd().allow(null).required(),
    }).required(),
  }).required(),
  usage: Joi.object({
    period_start: isoTime().required(),
    period_end: isoTime().required(),
    tickets: int().required(),
    answers: int().required(),
    fixes: int().required(),
    overage_fixes: int().required(),
    overage_usd: usd().required(),
    cost_usd: usd().required(),
    cost_per_answer_usd: usd().allow(null).required(),
    cost_per_fix_usd: usd().allow(null).required(),
  }).required(),
  agency: AgencyBilling.required(),
})
  .required()
  .id('Billing')
  .description("The organization's plan, subscription, credits, spend, add-ons, offers and usage for the period");

export const HostedUrl = Joi.object({
  url: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .required(),
})
  .required()
  .id('HostedUrl')
  .description('A hosted page of the payment provider to send the user to');

export const CreditBalanceSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  workspace_id: Joi.string().allow(null).required(),
  source: sourceSchema.required(),
  granted_fixes: int().required(),
  fixes_remaining: int().required(),
  granted_at: isoTime().required(),
  expires_at: nullableTime(),
  reference: Joi.string().required(),
  created_at: isoTime().required(),
}).id('CreditBalance');

export const CreditLedgerEntrySchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  balance_id: Joi.string().required(),
  source: sourceSchema.required(),
  kind: Joi.string().valid('grant', 'consume', 'refund', 'expire', 'adjust').required(),
  fixes: int().required().description('Signed: grant and refund add, consume and expire take away'),
  job_id: Joi.string().allow(null).required(),
  note: Joi.string().allow(null).required(),
  created_at: isoTime().required(),
}).id('CreditLedgerEntry');

export const Credits = Joi.object({
  balances: Joi.array().items(CreditBalanceSchema).required(),
  ledger: Joi.array().items(CreditLedgerEntrySchema).required(),
})
  .required()
  .id('Credits');

export const InvoiceSchema = Joi.object({
  id: Joi.string().required(),
  number: Joi.string().allow(null).required(),
  status: Joi.string().required(),
  purpose: Joi.string().valid('subscription', 'topup', 'resale', 'other').required(),
  amount_paid_usd: usd().required(),
  amount_due_usd: usd().required(),
  currency: Joi.string().required(),
  period_start: nullableTime(),
  period_end: nullableTime(),
  paid_at: nullableTime(),
  hosted_invoice_url: Joi.string().allow(null).required(),
  created_at: isoTime().required(),
}).id('Invoice');

export const InvoiceList = Joi.object({ items: Joi.array().items(InvoiceSchema).required() })
  .required()
  .id('InvoiceList');

export const ClaimSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  kind: Joi.string().valid('review', 'case_study').required(),
  status: Joi.string().valid('pending', 'approved', 'rejected').required(),
  url: Joi.string().required(),
  note: Joi.string().allow(null).required(),
  fixes: int().required().description('Fixes granted on approval'),
  decided_at: nullableTime(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
})
  .id('Claim')
  .description('A request for credits for a published review or case study');

export const ClaimPage = pageSchema(ClaimSchema).required().id('ClaimPage');

export const ReferralsSchema = Joi.object({
  code: Joi.string().required(),
  url: Joi.string().uri().required().description('Signup link carrying the code'),
  referrer_fixes: int().required().description('Fixes earned for each organization that signs up with the code'),
  referred_fixes: int().required().description('Fixes the referred organization gets'),
  referred_count: int().required(),
  earned_fixes: int().required(),
  items: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().required(),
        organization_name: Joi.string().required(),
        signed_up_at: isoTime().required(),
        fixes: int().required(),
        credited_at: nullableTime(),
      }),
    )
    .required(),
})
  .required()
  .id('Referrals');

export const PaymentWebhookReceipt = Joi.object({
  received: Joi.boolean().valid(true).required(),
  duplicate: Joi.boolean().required().description('The event was handled before; nothing changed'),
  event_id: Joi.string().required(),
  type: Joi.string().required(),
})
  .required()
  .id('PaymentWebhookReceipt');

const StaffOrganizationFields = {
  id: Joi.string().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  plan: planIdSchema.required(),
  subscription_status: statusSchema.required(),
  credits_remaining: int().required().description('Live fixes of every source (expired credits excluded)'),
  members: int().required(),
  created_at: isoTime().required(),
};

export const StaffOrganizationSchema = Joi.object(StaffOrganizationFields)
  .id('StaffOrganization')
  .description("An organization as the installation's staff see it");

export const StaffOrganizationPage = pageSchema(StaffOrganizationSchema).required().id('StaffOrganizationPage');

export const StaffOrganizationDetail = Joi.object({
  ...StaffOrganizationFields,
  billing_email: Joi.string().allow(null).required(),
  trial_ends_at: nullableTime(),
  current_period_end: nullableTime(),
  workspaces: int().required().description('Workspaces not archived'),
  credits_by_source: creditsBySource.required(),
})
  .required()
  .id('StaffOrganizationDetail');

export const StaffClaimSchema = ClaimSchema.keys({ organization_name: Joi.string().required() }).id('StaffClaim');
export const StaffClaimPage = pageSchema(StaffClaimSchema).required().id('StaffClaimPage');
