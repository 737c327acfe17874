import { Readable } from 'node:stream';
import type { AuditEntry } from '../../../core/audit/audit-writer.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { auditActor, requireFeature, type Actor, type AuditDeps } from './deps.js';
import { csvHeader, csvLine, entryOut, filtered, type AuditEntryOut, type AuditFilters } from './entries.js';

const NEWEST_FIRST = [
  { column: 'created_at', direction: 'desc' as const, type: 'date' as const },
  { column: 'id', direction: 'desc' as const, type: 'string' as const },
];
const EXPORT_PAGE = 500;

export type ExportFormat = 'csv' | 'jsonl';

/** Reading the organization's audit log: the list and the streamed export. */
export class AuditLogService {
  constructor(private readonly d: AuditDeps) {}

  async list(orgId: string, filters: AuditFilters, page: { cursor?: string; limit?: number }): Promise<Page<AuditEntryOut>> {
    const res = await paginate<AuditEntry & Record<string, unknown>>(filtered(this.d.db, orgId, filters).select('*'), NEWEST_FIRST, page);
    return { items: res.items.map(entryOut), next_cursor: res.next_cursor };
  }

  /**
   * Checks the plan and the rate, records the export (the export itself is audited), and answers
   * a stream that reads the matching entries page by page, newest first, so memory stays flat.
   */
  async export(actor: Actor, filters: AuditFilters, format: ExportFormat): Promise<Readable> {
    const { db } = this.d;
    await requireFeature(this.d, db, actor.orgId, 'audit_export');
    await this.d.rateLimiter.consume(`audit-export:${actor.orgId}`, this.d.options.exportsPerMinute, 60_000);
    await this.d.audit.record(db, {
      orgId: actor.orgId,
      ...auditActor(actor),
      action: 'audit.exported',
      target: { type: 'organization', id: actor.orgId },
      metadata: { format, filters: { ...filters, from: filters.from?.toISOString(), to: filters.to?.toISOString() } },
    });
    const self = this;
    async function* rows(): AsyncGenerator<string> {
      if (format === 'csv') yield csvHeader();
      let cursor: string | undefined;
      do {
        const page = await self.list(actor.orgId, filters, { cursor, limit: EXPORT_PAGE });
        for (const e of page.items) yield format === 'csv' ? csvLine(e) : `${JSON.stringify(e)}\n`;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    }
    return Readable.from(rows(), { objectMode: false });
  }
}
