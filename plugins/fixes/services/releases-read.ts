import type { Knex } from 'knex';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { forbidden, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { FixApproval, FixRelease } from '../models/index.js';
import type { FixesDeps } from './deps.js';
import { iso } from '../../../core/http/times.js';

/** A release of the caller's organization in a workspace they open: 404 (unknown, another organization), 403. */
export async function loadRelease(db: Knex, p: Principal, id: string, forUpdate = false): Promise<FixRelease> {
  const q = FixRelease.query(db).forOrg(p.orgId).findById(id);
  if (forUpdate) q.forUpdate();
  const rel = await q;
  if (!rel) throw notFound('release');
  if (!canOpenWorkspace(p, rel.workspace_id)) throw forbidden("You cannot open this release's workspace");
  return rel;
}

/** The tickets a release covers: its own, or those whose merges joined the batch. */
export async function ticketIdsOf(db: Knex, rel: FixRelease): Promise<string[]> {
  if (rel.kind !== 'batched') return rel.ticket_id ? [rel.ticket_id] : [];
  const rows = await FixRelease.query(db)
    .forOrg(rel.org_id)
    .where({ batch_id: rel.id })
    .orderBy('created_at')
    .select('ticket_id');
  return [...new Set(rows.map((r) => r.ticket_id).filter((x): x is string => !!x))];
}

/**
 * The read side of the releases section: the history, one release, and how a release is
 * presented. Reads answer what is stored; nothing here calls the code host (the CI state is
 * written by the release's `releasing` step and by the `codehost.ci_updated` consumer).
 */
export class ReleaseReads {
  constructor(private readonly d: FixesDeps) {}

  /** GET /v1/releases: newest first (open proposals included); a ticket's merge that joined a batch is listed as part of the batch. */
  async list(
    p: Principal,
    q: { workspace_id?: string; status?: string; cursor?: string; limit?: number },
  ): Promise<Page<Record<string, unknown>>> {
    // A workspace filter is checked as a path id: 404 unknown or another organization's, 403 outside the caller's.
    if (q.workspace_id) {
      await this.d.workspaces.get(p.orgId, q.workspace_id);
      if (!canOpenWorkspace(p, q.workspace_id)) throw forbidden('You cannot open this workspace');
    }
    const query = FixRelease.query(this.d.db).forOrg(p.orgId).whereNull('batch_id');
    if (q.workspace_id) query.where('workspace_id', q.workspace_id);
    if (q.status) query.where('status', q.status);
    if (p.workspaceIds) query.whereIn('workspace_id', p.workspaceIds);
    const page = await paginate<FixRelease & Record<string, unknown>>(
      query,
      [
        { column: 'created_at', direction: 'desc', type: 'date' },
        { column: 'id', direction: 'desc', type: 'string' },
      ],
      q,
    );
    return { items: await this.serialize(page.items), next_cursor: page.next_cursor };
  }

  /** GET /v1/releases/{id}: the stored release, CI state as last reported (no code-host call). */
  async get(p: Principal, id: string): Promise<Record<string, unknown>> {
    const rel = await loadRelease(this.d.db, p, id);
    return (await this.serialize([rel]))[0];
  }

  private async serialize(rows: FixRelease[]): Promise<Record<string, unknown>[]> {
    if (rows.length === 0) return [];
    const orgId = rows[0].org_id;
    const batchIds = rows.filter((r) => r.kind === 'batched').map((r) => r.id);
    const merges = batchIds.length
      ? await FixRelease.query(this.d.db).forOrg(orgId).whereIn('batch_id', batchIds).orderBy('created_at')
      : [];
    const ticketIds = [
      ...new Set([...rows.map((r) => r.ticket_id), ...merges.map((m) => m.ticket_id)].filter((x): x is string => !!x)),
    ];
    const ticketRows: Array<{ id: string; subject: string; state: string }> = ticketIds.length
      ? await this.d.db('tickets').where('org_id', orgId).whereIn('id', ticketIds).select('id', 'subject', 'state')
      : [];
    const tickets = new Map(ticketRows.map((t) => [t.id, t]));
    const policy = this.d.governance ? await this.d.governance.policy(orgId) : { minApprovers: 1, roles: [] };
    // A batched release's live approvals count at its proposal's head (open) or its approved commit: one grouped read for the page.
    const shaOf = (r: FixRelease) => (r.status === 'proposed' ? r.head_sha : r.approved_sha);
    const counted = batchIds.length
      ? ((await FixApproval.query(this.d.db)
          .forOrg(orgId)
          .whereIn('release_id', batchIds)
          .whereNull('voided_at')
          .groupBy('release_id', 'sha')
          .select('release_id', 'sha')
          .count('* as n')) as unknown as Array<{ release_id: string; sha: string; n: string | number }>)
      : [];
    const approvals = new Map(counted.map((c) => [`${c.release_id}:${c.sha}`, Number(c.n)]));
    const out: Record<string, unknown>[] = [];
    for (const r of rows) {
      const parts = r.kind === 'batched' ? merges.filter((m) => m.batch_id === r.id) : [r];
      const items = parts
        .filter((m) => m.ticket_id)
        .map((m) => ({
          ticket_id: m.ticket_id!,
          subject: tickets.get(m.ticket_id!)?.subject ?? '',
          state: tickets.get(m.ticket_id!)?.state ?? null,
          fix_attempt_id: m.fix_attempt_id,
          merge_sha: m.merge_sha,
        }));
      out.push({
        id: r.id,
        org_id: r.org_id,
        workspace_id: r.workspace_id,
        repository_id: r.repository_id,
        kind: r.kind,
        status: r.status,
        strategy: r.strategy,
        version: r.version,
        tag: r.tag,
        head_sha: r.head_sha,
        approved_sha: r.approved_sha,
        merge_sha: r.merge_sha,
        ci_state: r.ci_state,
        release_url: r.release_url,
        changelog: r.changelog,
        batch_id: r.batch_id,
        tickets: items,
        approvals: r.kind === 'batched' && shaOf(r) ? (approvals.get(`${r.id}:${shaOf(r)}`) ?? 0) : 0,
        min_approvers: policy.minApprovers,
        error_code: r.error_code,
        error_detail: r.error_detail,
        failed_step: r.failed_step,
        released_at: iso(r.released_at),
        created_at: iso(r.created_at),
        updated_at: iso(r.updated_at),
      });
    }
    return out;
  }
}
