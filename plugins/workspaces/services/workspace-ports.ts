import type { Cradle } from '../../../core/kernel/cradle.js';

/** Optional seam the billing plugin fills: fix credits a workspace can spend. */
export interface FixCreditsProvider {
  available(orgId: string, workspaceId: string): Promise<number>;
}

/**
 * Optional seam the onboarding plugin fills (`executionRules`): the forbidden combinations of
 * execution settings; throws 422 forbidden_combination.
 */
export type ExecutionRulesPort = Pick<Cradle['executionRules'], 'assertAllowed'>;

/**
 * Optional seam the billing plugin fills (`planLimits`): the plan's included workspaces. Throws
 * 402 plan_limit_reached (details.reason `workspaces_included`) when the plan allows no more;
 * `extra` says the new workspace is billed beyond the included ones.
 */
export type WorkspaceLimitsPort = Pick<Cradle['planLimits'], 'assert'>;
