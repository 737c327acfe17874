import type { Cradle } from '../../../core/kernel/cradle.js';
import type { BillingOptions, PlanNumbers } from '../options.js';
import { planNumbersOf } from '../options.js';

/** What the accounts plugin registers as `planCatalog` (the port is declared once, in its cradle.ts). */
export type PlanCatalogLike = Cradle['planCatalog'];

/** The spec's Plan shape (as the accounts catalogue gives it). */
export type PlanShape = ReturnType<PlanCatalogLike['get']>;

/**
 * The plan catalogue with billing's numbers: features, autonomy and execution modes come from
 * the accounts catalogue; limits (and trial fixes) from `config.plugins.billing.options.plans`.
 * Billing registers it as `planCatalog` over the accounts one, so every plugin (AuthContext's
 * plan included) sees the configured numbers.
 */
export class BillingPlanCatalog implements PlanCatalogLike {
  private readonly plans: PlanShape[];
  private readonly byId: Map<string, PlanShape>;

  constructor(
    base: PlanCatalogLike,
    private readonly options: BillingOptions,
  ) {
    this.plans = base.list().map((p) => ({ ...p, limits: limitsOf(planNumbersOf(options, p.id)) }));
    this.byId = new Map(this.plans.map((p) => [p.id, p]));
  }

  list(): readonly PlanShape[] {
    return this.plans;
  }

  get(id: string | null | undefined): PlanShape {
    return this.byId.get(id ?? 'none') ?? this.byId.get('none') ?? this.plans[0];
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  hasFeature(planId: string | null | undefined, feature: string): boolean {
    return this.get(planId).features.includes(feature);
  }

  /** Limits plus trial fixes. */
  numbers(planId: string | null | undefined): PlanNumbers {
    return planNumbersOf(this.options, planId ?? 'none');
  }
}

function limitsOf(n: PlanNumbers): PlanShape['limits'] {
  return {
    tickets_per_month: n.tickets_per_month,
    repositories_per_workspace: n.repositories_per_workspace,
    public_repos_only: n.public_repos_only,
    workspaces_included: n.workspaces_included,
    extra_workspace_price_usd: n.extra_workspace_price_usd,
    included_fixes_per_month: n.included_fixes_per_month,
    overage_fix_price_usd: n.overage_fix_price_usd,
  };
}
