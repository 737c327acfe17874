/**
 * The plan catalogue: what each plan id allows. Registered in the container as `planCatalog`;
 * the billing plugin takes it over later (prices and trials live there, not here).
 * Numbers are documented in docs/accounts.md.
 */

export const PLAN_IDS = [
  'none',
  'open_source',
  'indie',
  'startup',
  'growth',
  'managed',
  'agency',
  'enterprise',
] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const AUTONOMY_LEVELS = ['copilot', 'approve', 'autopilot'] as const;
export type Autonomy = (typeof AUTONOMY_LEVELS)[number];

export const EXECUTION_MODES = ['managed', 'runner', 'mcp'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/** Plan features (the spec leaves the values open; these are ours). */
export const PLAN_FEATURES = [
  'email_channel',
  'widget',
  'codehost',
  'proactive',
  'custom_sending_domain',
  'brand_profiles',
  'white_label',
  'badge_removal',
  'managed_fixes',
  'agency',
  'resale',
  'sso',
  'approval_governance',
  'audit_export',
  'audit_stream',
  'sla',
] as const;
export type PlanFeature = (typeof PLAN_FEATURES)[number];

export interface PlanLimits {
  tickets_per_month: number;
  repositories_per_workspace: number;
  public_repos_only: boolean;
  workspaces_included: number;
  extra_workspace_price_usd: number;
  included_fixes_per_month: number;
  overage_fix_price_usd: number;
}

/** The spec's Plan shape. */
export interface Plan {
  id: PlanId;
  name: string;
  features: PlanFeature[];
  autonomy: Autonomy[];
  execution_modes: ExecutionMode[];
  limits: PlanLimits;
}

const BASE: PlanFeature[] = ['email_channel', 'widget', 'codehost', 'proactive'];
const ALL_AUTONOMY: Autonomy[] = ['copilot', 'approve', 'autopilot'];
const ALL_MODES: ExecutionMode[] = ['managed', 'runner', 'mcp'];

export const PLANS: readonly Plan[] = [
  {
    id: 'none',
    name: 'No plan',
    features: ['email_channel', 'widget'],
    autonomy: ['copilot'],
    execution_modes: ['mcp'],
    limits: {
      tickets_per_month: 50,
      repositories_per_workspace: 1,
      public_repos_only: false,
      workspaces_included: 1,
      extra_workspace_price_usd: 0,
      included_fixes_per_month: 0,
      overage_fix_price_usd: 0,
    },
  },
  {
    id: 'open_source',
    name: 'Open Source',
    features: BASE,
    autonomy: ['copilot', 'approve'],
    execution_modes: ['runner', 'mcp'],
    limits: {
      tickets_per_month: 500,
      repositories_per_workspace: 3,
      public_repos_only: true,
      workspaces_included: 3,
      extra_workspace_price_usd: 0,
      included_fixes_per_month: 20,
      overage_fix_price_usd: 0,
    },
  },
  {
    id: 'indie',
    name: 'Indie',
    features: BASE,
    autonomy: ['copilot', 'approve'],
    execution_modes: ALL_MODES,
    limits: {
      tickets_per_month: 300,
      repositories_per_workspace: 2,
      public_repos_only: false,
      workspaces_included: 1,
      extra_workspace_price_usd: 15,
      included_fixes_per_month: 15,
      overage_fix_price_usd: 4,
    },
  },
  {
    id: 'startup',
    name: 'Startup',
    features: [...BASE, 'custom_sending_domain', 'badge_removal'],
    autonomy: ALL_AUTONOMY,
    execution_modes: ALL_MODES,
    limits: {
      tickets_per_month: 1500,
      repositories_per_workspace: 5,
      public_repos_only: false,
      workspaces_included: 3,
      extra_workspace_price_usd: 15,
      included_fixes_per_month: 60,
      overage_fix_price_usd: 3.5,
    },
  },
  {
    id: 'growth',
    name: 'Growth',
    features: [
      ...BASE,
      'custom_sending_domain',
      'badge_removal',
      'brand_profiles',
      'approval_governance',
      'audit_export',
      'sla',
    ],
    autonomy: ALL_AUTONOMY,
    execution_modes: ALL_MODES,
    limits: {
      tickets_per_month: 5000,
      repositories_per_workspace: 15,
      public_repos_only: false,
      workspaces_included: 10,
      extra_workspace_price_usd: 12,
      included_fixes_per_month: 200,
      overage_fix_price_usd: 3,
    },
  },
  {
    id: 'managed',
    name: 'Managed',
    features: [...BASE, 'custom_sending_domain', 'brand_profiles', 'managed_fixes', 'approval_governance', 'sla'],
    autonomy: ALL_AUTONOMY,
    execution_modes: ['managed'],
    limits: {
      tickets_per_month: 5000,
      repositories_per_workspace: 15,
      public_repos_only: false,
      workspaces_included: 5,
      extra_workspace_price_usd: 25,
      included_fixes_per_month: 300,
      overage_fix_price_usd: 2.5,
    },
  },
  {
    id: 'agency',
    name: 'Agency',
    features: [
      ...BASE,
      'custom_sending_domain',
      'badge_removal',
      'brand_profiles',
      'white_label',
      'managed_fixes',
      'agency',
      'resale',
      'approval_governance',
      'audit_export',
      'sla',
    ],
    autonomy: ALL_AUTONOMY,
    execution_modes: ALL_MODES,
    limits: {
      tickets_per_month: 10000,
      repositories_per_workspace: 50,
      public_repos_only: false,
      workspaces_included: 10,
      extra_workspace_price_usd: 9,
      included_fixes_per_month: 400,
      overage_fix_price_usd: 2.5,
    },
  },
  {
    id: 'enterprise',
    name: 'Enterprise',
    features: [...PLAN_FEATURES],
    autonomy: ALL_AUTONOMY,
    execution_modes: ALL_MODES,
    limits: {
      tickets_per_month: 100000,
      repositories_per_workspace: 500,
      public_repos_only: false,
      workspaces_included: 100,
      extra_workspace_price_usd: 0,
      included_fixes_per_month: 2000,
      overage_fix_price_usd: 2,
    },
  },
];

/** Read access to the plans; `get` of an unknown id answers the `none` plan. */
/** A plan as other plugins read it: billing's catalogue (over this one) types its ids as strings. */
export interface PlanView {
  id: string;
  name: string;
  features: string[];
  autonomy: string[];
  execution_modes: string[];
  limits: PlanLimits;
}

/** What every plugin reads as `planCatalog`: the accounts catalogue, or billing's over it. */
export interface PlanCatalogPort {
  list(): readonly PlanView[];
  get(id: string | null | undefined): PlanView;
  has(id: string): boolean;
  hasFeature(planId: string | null | undefined, feature: string): boolean;
}

export class PlanCatalog {
  private readonly byId = new Map<string, Plan>(PLANS.map((p) => [p.id, p]));

  list(): readonly Plan[] {
    return PLANS;
  }

  get(id: string | null | undefined): Plan {
    return this.byId.get(id ?? 'none') ?? this.byId.get('none')!;
  }

  has(id: string): id is PlanId {
    return this.byId.has(id);
  }

  hasFeature(planId: string | null | undefined, feature: PlanFeature): boolean {
    return this.get(planId).features.includes(feature);
  }
}
