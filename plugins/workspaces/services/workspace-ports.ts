import type { Knex } from 'knex';

/** Optional seam the billing plugin fills: fix credits a workspace can spend. */
export interface FixCreditsProvider {
  available(orgId: string, workspaceId: string): Promise<number>;
}

/**
 * Optional seam the onboarding plugin fills (`executionRules`): the forbidden combinations of
 * execution settings; throws 422 forbidden_combination.
 */
export interface ExecutionRulesPort {
  assertAllowed(
    choice: { mode: string; agent: string; auth: string | null; transport: string | null },
    locale: string | null | undefined,
    opts?: { patch?: boolean },
  ): void;
}

/**
 * Optional seam the billing plugin fills (`planLimits`): the plan's included workspaces. Throws
 * 402 plan_limit_reached (details.reason `workspaces_included`) when the plan allows no more;
 * `extra` says the new workspace is billed beyond the included ones.
 */
export interface WorkspaceLimitsPort {
  assert(
    trx: Knex,
    orgId: string,
    limit: 'workspaces_included',
    context: Record<string, never>,
  ): Promise<{ extra: boolean; extraPriceUsd: number; allowed: number | boolean; used: number; plan: string }>;
}
