import type { Request, ServerRoute } from '@hapi/hapi';
import type { Knex } from 'knex';
import { requirePrincipal } from '../../../core/http/auth.js';
import { httpError } from '../../../core/http/errors.js';
import type { Cradle } from '../../../core/kernel/cradle.js';

/** The accounts plugin's plan catalog, as far as the gate uses it. */
export type AgencyPlanPort = Pick<Cradle['planCatalog'], 'hasFeature'>;

/**
 * Agency features belong to agency organizations on a plan with the `agency` feature (plans in
 * plugins/accounts/plans.ts: agency, enterprise). Every `/v1/agency/*` route runs this first:
 * 403 `not_an_agency` for a direct organization, 402 `plan_limit_reached` (details.reason
 * `agency_in_plan`) for an agency whose plan lacks the feature (no plan yet, or another plan).
 * A staff certification decision (`PUT /v1/agency/partner` naming `organization_id` or
 * `certification`) is about another organization and is not gated on the staff member's own.
 */
const GATE_ERRORS = [
  { status: 403, code: 'not_an_agency' },
  { status: 402, code: 'plan_limit_reached' },
];

export function gateAgencyRoutes(
  routes: ServerRoute[],
  deps: { db: () => Knex; plans: () => AgencyPlanPort },
): ServerRoute[] {
  const check = async (request: Request) => {
    const body = request.payload as Record<string, unknown> | null;
    if (
      request.method === 'put' &&
      body &&
      typeof body === 'object' &&
      ('organization_id' in body || 'certification' in body)
    )
      return true;
    const p = requirePrincipal(request);
    const org = (await deps.db()('organizations').select('type', 'plan').where({ id: p.orgId }).first()) as
      { type: string; plan: string | null } | undefined;
    if (org?.type !== 'agency') throw httpError(403, 'not_an_agency', 'Agency features are for agency organizations');
    if (!deps.plans().hasFeature(org.plan, 'agency')) {
      throw httpError(
        402,
        'plan_limit_reached',
        'Agency features need a plan that includes them (Agency or Enterprise)',
        {
          reason: 'agency_in_plan',
          plan: org.plan ?? 'none',
          message_it: 'Le funzioni per agenzie richiedono un piano che le includa (Agency o Enterprise)',
        },
      );
    }
    return true;
  };
  return routes.map((route) => {
    if (!route.path.startsWith('/v1/agency/')) return route;
    const options = (route.options ?? {}) as Exclude<
      ServerRoute['options'],
      ((...args: never[]) => unknown) | undefined
    >;
    const pre = [{ method: check, assign: 'agencyPlan' }, ...((options.pre as unknown[] | undefined) ?? [])];
    // The error walk (bin/route-errors.ts) follows handlers, not a `pre` added here: the gate declares its answers.
    const plugins = options.plugins ?? {};
    const patchwell = { ...plugins.patchwell, errors: [...(plugins.patchwell?.errors ?? []), ...GATE_ERRORS] };
    return { ...route, options: { ...options, pre, plugins: { ...plugins, patchwell } } } as ServerRoute;
  });
}
