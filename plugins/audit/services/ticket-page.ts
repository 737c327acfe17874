import type { Knex } from 'knex';

/** What the tickets plugin hands a section that runs `after` the others (its TicketPageInput, structurally). */
interface SectionInput {
  db: Knex;
  ticket: { id: string; org_id: string };
  /** The ticket's records the other sections hold (drafts, fix attempts, releases, jobs). */
  related: ReadonlyArray<{ type: string; id: string }>;
}

/** Entries the page carries; the whole log is GET /v1/audit (owners, admins). */
const PAGE_LIMIT = 50;

const parse = <T>(v: unknown): T | null => (v == null ? null : typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/**
 * `ticketPageSection:audit`: the newest entries whose target is the ticket or one of its records,
 * in one query after the other sections (they report the records). Everyone who opens the
 * ticket reads them, so the personal fields of the log (IP address, user agent) stay out.
 */
export const auditTicketPageSection = {
  keys: ['audit'] as const,
  after: true,
  async load({ db, ticket, related }: SectionInput): Promise<{ fields: { audit: Record<string, unknown>[] } }> {
    const targets = [...new Set([ticket.id, ...related.map((r) => r.id)])];
    const rows: Array<Record<string, unknown>> = await db('audit_entries')
      .where('org_id', ticket.org_id)
      .whereIn('target_id', targets)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(PAGE_LIMIT)
      .select(
        'id',
        'action',
        'actor_type',
        'actor_id',
        'actor_email',
        'target_type',
        'target_id',
        'changes',
        'metadata',
        'request_id',
        'created_at',
      );
    return {
      fields: {
        audit: rows.map((r) => ({
          id: r.id,
          action: r.action,
          actor: { type: r.actor_type, id: r.actor_id ?? null, email: r.actor_email ?? null },
          target: r.target_type ? { type: r.target_type, id: r.target_id ?? null } : null,
          changes: parse(r.changes),
          metadata: parse(r.metadata),
          request_id: r.request_id ?? null,
          created_at: new Date(r.created_at as string | Date).toISOString(),
        })),
      },
    };
  },
};
