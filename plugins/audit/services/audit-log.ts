import { Readable } from 'node:stream';
import type { AuditEntry } from '../../../core/audit/audit-writer.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { forbidden, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { requireFeature, type AuditDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { csvHeader, csvLine, entryOut, filtered, type AuditEntryOut, type AuditFilters } from './entries.js';

const NEWEST_FIRST = [
  { column: 'created_at', direction: 'desc' as const, type: 'date' as const },
  { column: 'id', direction: 'desc' as const, type: 'string' as const },
];
const EXPORT_PAGE = 500;

/** The filters the caller asked for (the caller's workspace scope is not one). */
function asked(f: AuditFilters): Omit<AuditFilters, 'workspaceIds'> {
  const { workspaceIds: _scope, ...rest } = f;
  return rest;
}

export type ExportFormat = 'csv' | 'jsonl';

/** Reading the organization's audit log: the list and the streamed export. */
export class AuditLogService {
  constructor(private readonly d: AuditDeps) {}

  /**
   * The filters as the caller may use them: a workspace_id the caller cannot open answers as a
   * path id would (404 for an unknown or another organization's workspace, 403 outside the
   * caller's workspaces), and a caller limited to some workspaces reads only their entries.
   */
  async scoped(principal: Principal, filters: AuditFilters): Promise<AuditFilters> {
    if (filters.workspace_id) {
      const ws: { id: string } | undefined = await this.d
        .db('workspaces')
        .where({ org_id: principal.orgId, id: filters.workspace_id })
        .first('id');
      if (!ws) throw notFound('workspace');
      if (!canOpenWorkspace(principal, filters.workspace_id)) throw forbidden('You cannot open this workspace');
    }
    return { ...filters, workspaceIds: principal.workspaceIds };
  }

  async list(
    orgId: string,
    filters: AuditFilters,
    page: { cursor?: string; limit?: number },
  ): Promise<Page<AuditEntryOut>> {
    const res = await paginate<AuditEntry & Record<string, unknown>>(
      filtered(this.d.db, orgId, filters).select('*'),
      NEWEST_FIRST,
      page,
    );
    return { items: res.items.map(entryOut), next_cursor: res.next_cursor };
  }

  /**
   * Checks the plan and the rate, records the export (the export itself is audited), and answers
   * a stream that reads the matching entries page by page, newest first, so memory stays flat.
   */
  async export(actor: SignedInActor, filters: AuditFilters, format: ExportFormat): Promise<Readable> {
    const { db } = this.d;
    await requireFeature(this.d, db, actor.orgId, 'audit_export');
    await this.d.rateLimiter.consume(`audit-export:${actor.orgId}`, this.d.options.exportsPerMinute, 60_000);
    await this.d.audit.record(db, {
      actor,
      action: 'audit.exported',
      target: { type: 'organization', id: actor.orgId },
      metadata: {
        format,
        filters: { ...asked(filters), from: filters.from?.toISOString(), to: filters.to?.toISOString() },
      },
    });
    const page = (cursor: string | undefined) => this.list(actor.orgId, filters, { cursor, limit: EXPORT_PAGE });
    async function* rows(): AsyncGenerator<string> {
      if (format === 'csv') yield csvHeader();
      let cursor: string | undefined;
      do {
        const { items, next_cursor } = await page(cursor);
        for (const e of items) yield format === 'csv' ? csvLine(e) : `${JSON.stringify(e)}\n`;
        cursor = next_cursor ?? undefined;
      } while (cursor);
    }
    return Readable.from(rows(), { objectMode: false });
  }
}
