/**
 * The plan catalogue: what each plan id allows. Registered in the container as `planCatalog`;
 * the billing plugin takes it over later (prices and trials live there, not here).
 * Numbers are documented in docs/accounts.md.
 */
import { DEFAULT_PLAN_LIMITS, type PlanLimits } from '../../core/contracts/index.js';

export type { PlanLimits };

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
    limits: DEFAULT_PLAN_LIMITS.none,
  },
  {
    id: 'open_source',
    name: 'Open Source',
    features: BASE,
    autonomy: ['copilot', 'approve'],
    execution_modes: ['runner', 'mcp'],
    limits: DEFAULT_PLAN_LIMITS.open_source,
  },
  {
    id: 'indie',
    name: 'Indie',
    features: BASE,
    autonomy: ['copilot', 'approve'],
    execution_modes: ALL_MODES,
    limits: DEFAULT_PLAN_LIMITS.indie,
  },
  {
    id: 'startup',
    name: 'Startup',
    features: [...BASE, 'custom_sending_domain', 'badge_removal'],
    autonomy: ALL_AUTONOMY,
    execution_modes: ALL_MODES,
    limits: DEFAULT_PLAN_LIMITS.startup,
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
    limits: DEFAULT_PLAN_LIMITS.growth,
  },
  {
    id: 'managed',
    name: 'Managed',
    features: [...BASE, 'custom_sending_domain', 'brand_profiles', 'managed_fixes', 'approval_governance', 'sla'],
    autonomy: ALL_AUTONOMY,
    execution_modes: ['managed'],
    limits: DEFAULT_PLAN_LIMITS.managed,
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
    limits: DEFAULT_PLAN_LIMITS.agency,
  },
  {
    id: 'enterprise',
    name: 'Enterprise',
    features: [...PLAN_FEATURES],
    autonomy: ALL_AUTONOMY,
    execution_modes: ALL_MODES,
    limits: DEFAULT_PLAN_LIMITS.enterprise,
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
