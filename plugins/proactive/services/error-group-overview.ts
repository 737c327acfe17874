import type { Principal } from '../../../core/http/auth.js';
import type { ErrorGroupDeps } from './error-groups.js';

/** Start of the current calendar month (UTC): the period of proactive_monthly_fix_cap. */
export const monthStart = (now = new Date()) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

/** A workspace's proactive settings, as the overview sums them. */
interface WorkspaceSettings {
  id: string;
  proactive_enabled: boolean;
  proactive_threshold_users: number;
  proactive_monthly_fix_cap: number;
  critical_paths: string[] | string;
  notify_affected_users: boolean;
}

/** The ProactiveOverview of one workspace, or summed over the caller's workspaces (workspace_id null). */
export async function proactiveOverview(
  d: Pick<ErrorGroupDeps, 'db' | 'planAllows'>,
  principal: Principal,
  workspaceId: string | null,
): Promise<Record<string, unknown>> {
  const db = d.db;
  const wsq = db('workspaces').where({ org_id: principal.orgId }).whereNull('archived_at');
  if (workspaceId) wsq.where({ id: workspaceId });
  else if (principal.workspaceIds !== null) wsq.whereIn('id', principal.workspaceIds);
  const workspaces = await wsq.select<WorkspaceSettings[]>(
    'id',
    'proactive_enabled',
    'proactive_threshold_users',
    'proactive_monthly_fix_cap',
    'critical_paths',
    'notify_affected_users',
  );
  const ids = workspaces.map((w) => w.id);
  const counts = { watching: 0, ticketed: 0, resolved: 0, ignored: 0, held: 0 };
  let fixes = 0;
  let pending = 0;
  const perWs = new Map<string, number>();
  if (ids.length) {
    const rows = await db('error_groups')
      .where({ org_id: principal.orgId })
      .whereIn('workspace_id', ids)
      .groupBy('status')
      .select('status')
      .count<Array<{ status: keyof typeof counts; n: number | string }>>({ n: '*' });
    for (const r of rows) counts[r.status] = Number(r.n);
    const held = (await db('error_groups')
      .where({ org_id: principal.orgId })
      .whereIn('workspace_id', ids)
      .whereNotNull('held_reason')
      .count({ n: '*' })
      .first()) as { n: number | string } | undefined;
    counts.held = Number(held?.n ?? 0);
    const month = await db('tickets')
      .where({ org_id: principal.orgId, origin: 'proactive' })
      .whereIn('workspace_id', ids)
      .where('created_at', '>=', monthStart())
      .groupBy('workspace_id')
      .select('workspace_id')
      .count<Array<{ workspace_id: string; n: number | string }>>({ n: '*' });
    for (const m of month) perWs.set(m.workspace_id, Number(m.n));
    fixes = [...perWs.values()].reduce((s, n) => s + n, 0);
    const open = (await db('tickets')
      .where({ org_id: principal.orgId, origin: 'proactive' })
      .whereIn('workspace_id', ids)
      .whereNot('state', 'closed')
      .count({ n: '*' })
      .first()) as { n: number | string } | undefined;
    pending = Number(open?.n ?? 0);
  }
  const paths = new Set<string>();
  for (const w of workspaces)
    for (const p of Array.isArray(w.critical_paths)
      ? w.critical_paths
      : (JSON.parse(w.critical_paths || '[]') as string[]))
      paths.add(p);
  const cap = workspaces.reduce((s, w) => s + w.proactive_monthly_fix_cap, 0);
  return {
    workspace_id: workspaceId,
    enabled: workspaces.some((w) => w.proactive_enabled),
    plan_allows: await d.planAllows(db, principal.orgId),
    threshold_users: workspaces.length ? Math.min(...workspaces.map((w) => w.proactive_threshold_users)) : 0,
    critical_paths: [...paths],
    notify_affected_users: workspaces.some((w) => w.notify_affected_users),
    monthly_fix_cap: cap,
    fixes_this_month: fixes,
    pending_tickets: pending,
    cap_reached:
      workspaces.length > 0 && workspaces.every((w) => (perWs.get(w.id) ?? 0) >= w.proactive_monthly_fix_cap),
    counts,
  };
}
