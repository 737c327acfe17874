import type { Knex } from 'knex';
import { httpError } from '../../../core/http/errors.js';
import type { AccountStore } from './account-store.js';
import { hasTable, type BillingDeps } from './deps.js';

export type PlanLimitName =
  'tickets_per_month' | 'repositories_per_workspace' | 'workspaces_included' | 'public_repos_only';

export interface PlanLimitContext {
  /** The workspace the new ticket or repository belongs to (tickets and repositories). */
  workspaceId?: string | null;
  /** How many exist now; when absent billing counts them itself (tickets, repositories, workspaces tables). */
  count?: number;
  /** How many the caller is about to add (default 1). */
  adding?: number;
  /** public_repos_only: whether the repository is public. */
  isPublic?: boolean;
}

export interface PlanLimitResult {
  limit: PlanLimitName;
  plan: string;
  allowed: number | boolean;
  used: number;
  /** workspaces_included: the new workspace is an extra one, billed at extra_price_usd a month. */
  extra: boolean;
  extraPriceUsd: number;
}

/**
 * Plan limits other plugins enforce (container key `planLimits`):
 *
 *   await planLimits.assert(trx, orgId, 'tickets_per_month', { workspaceId })
 *   await planLimits.assert(trx, orgId, 'repositories_per_workspace', { workspaceId })
 *   await planLimits.assert(trx, orgId, 'public_repos_only', { isPublic: repo.private === false })
 *   const { extra } = await planLimits.assert(trx, orgId, 'workspaces_included', {})
 *
 * A refusal is 402 plan_limit_reached with details.reason = the limit's name, plus limit, used
 * and plan. Workspaces beyond the included ones are allowed (and flagged `extra`) on plans that
 * price extra workspaces; refused on plans that do not.
 */
export class PlanLimits {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
  ) {}

  async check(
    trx: Knex,
    orgId: string,
    limit: PlanLimitName,
    context: PlanLimitContext = {},
  ): Promise<PlanLimitResult & { ok: boolean }> {
    const org = await this.store.org(trx, orgId);
    const n = this.d.catalog.numbers(org.plan);
    const adding = context.adding ?? 1;
    const base = { limit, plan: org.plan, extra: false, extraPriceUsd: n.extra_workspace_price_usd };
    switch (limit) {
      case 'public_repos_only': {
        const ok = !n.public_repos_only || context.isPublic !== false;
        return { ...base, allowed: n.public_repos_only, used: 0, ok };
      }
      case 'tickets_per_month': {
        const account = await this.store.account(trx, orgId);
        const period = this.store.period(org, account);
        const used = context.count ?? (await this.countTickets(trx, orgId, context.workspaceId ?? null, period.start));
        return { ...base, allowed: n.tickets_per_month, used, ok: used + adding <= n.tickets_per_month };
      }
      case 'repositories_per_workspace': {
        const used = context.count ?? (await this.countRepositories(trx, orgId, context.workspaceId ?? null));
        return {
          ...base,
          allowed: n.repositories_per_workspace,
          used,
          ok: used + adding <= n.repositories_per_workspace,
        };
      }
      case 'workspaces_included': {
        const used = context.count ?? (await this.countWorkspaces(trx, orgId));
        const over = used + adding > n.workspaces_included;
        return {
          ...base,
          allowed: n.workspaces_included,
          used,
          extra: over,
          ok: !over || n.extra_workspace_price_usd > 0,
        };
      }
    }
  }

  /** Throws 402 plan_limit_reached when the plan does not allow it. */
  async assert(
    trx: Knex,
    orgId: string,
    limit: PlanLimitName,
    context: PlanLimitContext = {},
  ): Promise<PlanLimitResult> {
    const { ok, ...result } = await this.check(trx, orgId, limit, context);
    if (ok) return result;
    throw httpError(402, 'plan_limit_reached', MESSAGES[limit], {
      reason: limit,
      plan: result.plan,
      limit: result.allowed,
      used: result.used,
    });
  }

  async countWorkspaces(trx: Knex, orgId: string): Promise<number> {
    const row = (await trx('workspaces')
      .where({ org_id: orgId })
      .whereNull('archived_at')
      .count({ n: '*' })
      .first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  async countTickets(trx: Knex, orgId: string, workspaceId: string | null, since: Date): Promise<number> {
    if (!(await hasTable(trx, 'tickets'))) return 0;
    const q = trx('tickets').where({ org_id: orgId }).where('created_at', '>=', since);
    if (workspaceId) q.where({ workspace_id: workspaceId });
    const row = (await q.count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  async countRepositories(trx: Knex, orgId: string, workspaceId: string | null): Promise<number> {
    if (!(await hasTable(trx, 'repositories'))) return 0;
    const q = trx('repositories').where({ org_id: orgId });
    if (workspaceId) q.where({ workspace_id: workspaceId });
    if (await trx.schema.hasColumn('repositories', 'deleted_at')) q.whereNull('deleted_at');
    const row = (await q.count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }
}

const MESSAGES: Record<PlanLimitName, string> = {
  tickets_per_month: 'This workspace has reached the tickets of its plan for this month',
  repositories_per_workspace: 'This workspace has reached the repositories of its plan',
  workspaces_included: 'The plan includes no more workspaces',
  public_repos_only: 'The open-source plan covers public repositories only',
};
