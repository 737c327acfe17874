import type { Knex } from 'knex';
import { PAID_PLAN_IDS, TOPUP_FIXES, TOPUP_PACK_IDS, type SubscriptionStatus } from '../../../core/contracts/index.js';
import { money, num, type OrgRow } from '../models.js';
import { CREDIT_SOURCES } from '../options.js';
import type { AccountStore } from './account-store.js';
import type { BillingDeps } from './deps.js';
import type { PlanLimits } from './limits.js';
import { daysLeft } from './periods.js';
import type { PriceCache } from './prices.js';
import type { Resales } from './resale.js';
import { LIVE_STATUSES } from './subscription-status.js';
import { iso } from '../../../core/http/times.js';

/** Plans offered in the Billing answer: the paid ones and open source (enterprise only when current). */
const OFFERED = ['open_source', ...PAID_PLAN_IDS];

/** Live balances summed by source, with the nearest expiry of each (the Billing answer's credits_by_source). */
export function creditsBySource(
  balances: readonly { source: string; fixes_remaining: number; expires_at: Date | null }[],
) {
  return CREDIT_SOURCES.flatMap((source) => {
    const own = balances.filter((b) => b.source === source);
    if (own.length === 0) return [];
    const expiries = own
      .map((b) => b.expires_at)
      .filter((d): d is Date => d !== null)
      .map((d) => new Date(d).getTime());
    return [
      {
        source,
        fixes_remaining: own.reduce((s, b) => s + b.fixes_remaining, 0),
        next_expiry_at: expiries.length ? new Date(Math.min(...expiries)).toISOString() : null,
      },
    ];
  });
}

/** Builds the Billing shape of one organization. */
export class BillingView {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
    private readonly prices: PriceCache,
    private readonly limits: PlanLimits,
    private readonly resales: Resales,
  ) {}

  /** Whether the organization may start a trial with its next checkout: the first subscription only. */
  trialAvailable(account: { trial_used: boolean; first_subscribed_at: Date | null }): boolean {
    return this.d.options.trialDays > 0 && !account.trial_used && !account.first_subscribed_at;
  }

  async build(trx: Knex, orgId: string): Promise<Record<string, unknown>> {
    await this.store.ensurePlanCredits(trx, orgId);
    const org = await this.store.org(trx, orgId);
    const account = await this.store.account(trx, orgId);
    const now = this.d.clock();
    const period = this.store.period(org, account, now);
    const numbers = this.d.catalog.numbers(org.plan);
    const status = org.subscription_status as SubscriptionStatus;
    const live = LIVE_STATUSES.includes(status);
    const paymentsEnabled = this.d.provider !== null;
    const priceList = await this.prices.list();
    // An extra workspace costs what the provider bills for it on this plan (billing's number when it lists none).
    const extraPrice = (plan: string, fallback: number) =>
      priceList?.items?.find((i) => i.item === 'extra_workspace' && i.plan === plan)?.amountUsd ?? fallback;

    const balances = await this.d.ledger.liveBalances(trx, orgId, now);
    const creditsRemaining = balances.reduce((s, b) => s + b.fixes_remaining, 0);
    const bySource = creditsBySource(balances);

    const usage = await this.usage(trx, orgId, period.start);
    const workspacesUsed = await this.limits.countWorkspaces(trx, orgId);
    const ticketsUsed = await this.limits.countTickets(trx, orgId, null, period.start);
    const managedCount = Number(
      (
        (await trx('workspaces')
          .where({ org_id: orgId, managed_addon: true })
          .whereNull('archived_at')
          .count({ n: '*' })
          .first()) as { n: string | number } | undefined
      )?.n ?? 0,
    );
    const cap = org.spend_cap_usd === null ? null : num(org.spend_cap_usd);
    const samePeriod = (d: Date | null) => d !== null && new Date(d).getTime() === period.start.getTime();
    const trialFixes = status === 'trialing' ? numbers.trial_fixes : 0;

    const plans = OFFERED.filter((id) => this.d.catalog.has(id))
      .concat(OFFERED.includes(org.plan) || org.plan === 'none' ? [] : [org.plan])
      .map((id) => {
        const plan = this.d.catalog.get(id);
        const n = this.d.catalog.numbers(id);
        const price =
          id === 'open_source'
            ? 0
            : (priceList?.plans.find((p) => p.plan === id && p.interval === 'month')?.amountUsd ?? null);
        const paid = (PAID_PLAN_IDS as readonly string[]).includes(id);
        const current = org.plan === id;
        const available = current
          ? false
          : id === 'open_source'
            ? org.plan === 'none' && !live && status !== 'lifetime'
            : paid && paymentsEnabled && price !== null && status !== 'lifetime';
        return {
          id,
          name: plan.name,
          price_monthly_usd: price,
          trial_days: paid ? this.d.options.trialDays : 0,
          trial_fixes: paid ? n.trial_fixes : 0,
          included_fixes_per_month: n.included_fixes_per_month,
          tickets_per_month: n.tickets_per_month,
          repositories_per_workspace: n.repositories_per_workspace,
          workspaces_included: n.workspaces_included,
          extra_workspace_price_usd: n.extra_workspace_price_usd > 0 ? extraPrice(id, n.extra_workspace_price_usd) : 0,
          overage_fix_price_usd: n.overage_fix_price_usd,
          features: [...plan.features],
          current,
          available,
        };
      });

    const badgeAvailable =
      this.d.options.addons.badgeRemovalPlans.includes(org.plan) && (live || status === 'lifetime');
    return {
      summary: {
        plan: org.plan,
        subscription_status: status,
        trial_ends_at: iso(org.trial_ends_at),
        current_period_start: live ? iso(account.current_period_start) : null,
        current_period_end: live ? iso(org.current_period_end) : null,
        cancel_at_period_end: account.cancel_at_period_end,
        has_payment_method: account.has_payment_method,
        workspaces: {
          used: workspacesUsed,
          included: numbers.workspaces_included,
          extra: Math.max(0, workspacesUsed - numbers.workspaces_included),
          extra_price_usd:
            numbers.extra_workspace_price_usd > 0 ? extraPrice(org.plan, numbers.extra_workspace_price_usd) : 0,
        },
        tickets: { used_this_period: ticketsUsed, limit_per_workspace: numbers.tickets_per_month },
        fixes: {
          included_per_month: numbers.included_fixes_per_month,
          used_this_period: usage.fixes,
          credits_remaining: creditsRemaining,
          overage_enabled: org.overage_enabled,
          overage_price_usd: numbers.overage_fix_price_usd,
        },
        credits_by_source: bySource,
        spend: {
          cap_usd: cap,
          spent_this_period_usd: usage.overage_usd,
          alert_ratio: this.d.options.spendCap.alertRatio,
          alert_sent: samePeriod(account.spend_alert_period_start),
          blocked: cap !== null && usage.overage_usd >= cap,
        },
        addons: { badge_removal: org.badge_removal_addon, managed_workspaces: managedCount },
      },
      payments_enabled: paymentsEnabled,
      has_subscription: live,
      subscription_status: status,
      trial: {
        ends_at: status === 'trialing' ? iso(org.trial_ends_at) : null,
        days_left: status === 'trialing' ? daysLeft(org.trial_ends_at, now) : 0,
        fixes: trialFixes,
      },
      past_due: status === 'past_due',
      trial_available: this.trialAvailable(account),
      plans,
      topups_available: paymentsEnabled && org.plan !== 'none',
      topup_packs: TOPUP_PACK_IDS.map((id) => ({
        id,
        fixes: priceList?.topups.find((p) => p.pack === id)?.fixes ?? TOPUP_FIXES[id],
        price_usd: priceList?.topups.find((p) => p.pack === id)?.amountUsd ?? null,
      })),
      addons: {
        badge_removal: {
          available: badgeAvailable,
          active: org.badge_removal_addon,
          price_usd: priceList?.addons?.find((a) => a.addon === 'badge_removal')?.amountUsd ?? null,
        },
      },
      usage: {
        period_start: period.start.toISOString(),
        period_end: period.end.toISOString(),
        tickets: ticketsUsed,
        ...usage,
      },
      agency: await this.agency(
        trx,
        org,
        priceList?.addons?.find((a) => a.addon === 'managed_workspace')?.amountUsd ?? null,
      ),
    };
  }

  private async usage(trx: Knex, orgId: string, periodStart: Date) {
    const rows: Array<{
      kind: string;
      funding: string;
      consumed_fix: boolean;
      cost_usd: string | number;
      charged_usd: string | number;
    }> = await trx('billing_job_costs')
      .where({ org_id: orgId, period_start: periodStart, status: 'recorded' })
      .select('kind', 'funding', 'consumed_fix', 'cost_usd', 'charged_usd');
    const answers = rows.filter((r) => r.kind === 'diagnosis');
    const fixes = rows.filter((r) => r.kind === 'fix' && r.consumed_fix);
    const fixJobs = rows.filter((r) => r.kind === 'fix');
    const sum = (xs: typeof rows, f: (r: (typeof rows)[number]) => number) => xs.reduce((s, r) => s + f(r), 0);
    const cost = sum(rows, (r) => num(r.cost_usd));
    return {
      answers: answers.length,
      fixes: fixes.length,
      overage_fixes: fixes.filter((r) => r.funding === 'overage').length,
      overage_usd: money(sum(rows, (r) => num(r.charged_usd))),
      cost_usd: money(cost),
      cost_per_answer_usd: answers.length ? money(sum(answers, (r) => num(r.cost_usd)) / answers.length) : null,
      cost_per_fix_usd: fixes.length ? money(sum(fixJobs, (r) => num(r.cost_usd)) / fixes.length) : null,
    };
  }

  private async agency(trx: Knex, org: OrgRow, managedPrice: number | null) {
    if (!this.d.options.addons.agencyPlans.includes(org.plan) && org.type !== 'agency') return null;
    const account = await this.store.account(trx, org.id);
    const workspaces: Array<{
      id: string;
      name: string;
      client_name: string | null;
      managed_addon: boolean;
      resale_price: string | number | null;
      collect_via_connect: boolean;
      resale_client_email: string | null;
    }> = await trx('workspaces')
      .where({ org_id: org.id })
      .whereNull('archived_at')
      .orderBy([{ column: 'name' }, { column: 'id' }])
      .select(
        'id',
        'name',
        'client_name',
        'managed_addon',
        'resale_price',
        'collect_via_connect',
        'resale_client_email',
      );
    const collections = await this.resales.summary(trx, org.id);
    return {
      platform_fee_percent: this.d.options.resale.platformFeePercent,
      connect: {
        account_id: org.payment_connect_account_id,
        charges_enabled: org.connect_charges_enabled,
        payouts_enabled: account.connect_payouts_enabled,
        details_submitted: account.connect_details_submitted,
      },
      managed_addon_price_usd: managedPrice,
      workspaces: workspaces.map((w) => ({
        id: w.id,
        name: w.name,
        client_name: w.client_name,
        managed_addon: w.managed_addon,
        resale_price_usd: w.resale_price === null ? null : num(w.resale_price),
        collect_via_connect: w.collect_via_connect,
        client_email: w.resale_client_email,
        collection: collections.get(w.id) ?? null,
      })),
    };
  }
}
