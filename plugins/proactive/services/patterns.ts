import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import { diffFields } from '../../../core/audit/audit-writer.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import {
  Pattern,
  serializePattern,
  type CreatePatternInput,
  type ListPatternsQuery,
  type PatternMatch,
  type UpdatePatternInput,
} from './pattern-model.js';
import { safeText, scorePattern } from './pattern-signature.js';
import {
  firstParagraph,
  patternTicket,
  problemOfTicket,
  scrubOfTicket,
  type PatternTicket,
} from './pattern-tickets.js';
import { orgOptedIn, visiblePatterns, workspaceOptedIn } from './pattern-visibility.js';

const WORKERS = new Set(['owner', 'admin', 'reviewer']);
const ADMINS = new Set(['owner', 'admin']);

/**
 * Patterns (section patterns; docs/proactive.md "Patterns"). A pattern is made from a resolved
 * ticket of the caller's organization: the problem's signature (error type, normalised message,
 * in-app frames of its error group, keywords) and the fix (summary, diff stats), with every text
 * scrubbed of the tenant's names and masked. It is shared when its organization and workspace
 * opted in (patterns_opt_in) and `shared` is on; an organization that opted in sees the shared
 * patterns of the others, without their ids, workspace or ticket. Matching ranks the patterns a
 * ticket may reuse.
 */
export class PatternService {
  constructor(private readonly d: { db: Knex; audit: AuditWriter }) {}

  private requireRole(principal: Principal, roles: Set<string>): void {
    if (!roles.has(principal.role))
      throw forbidden(
        roles === ADMINS
          ? 'Only owners and admins delete patterns'
          : 'Only owners, admins and reviewers work with patterns',
      );
  }

  async list(principal: Principal, query: ListPatternsQuery): Promise<Page<Record<string, unknown>>> {
    this.requireRole(principal, WORKERS);
    // A workspace filter is checked as a path id: 404 unknown or another organization's, 403 outside the caller's.
    if (query.workspace_id) {
      const ws: { id: string } | undefined = await this.d
        .db('workspaces')
        .where({ id: query.workspace_id, org_id: principal.orgId })
        .first('id');
      if (!ws) throw notFound('workspace');
      if (!canOpenWorkspace(principal, query.workspace_id)) throw forbidden('You cannot open this workspace');
    }
    const takes = await orgOptedIn(this.d.db, principal.orgId);
    const q = visiblePatterns(this.d.db, principal.orgId, principal.workspaceIds, takes, query.scope ?? 'all');
    if (query.workspace_id)
      q.where('patterns.workspace_id', query.workspace_id).where('patterns.org_id', principal.orgId);
    if (query.category) q.where('patterns.category', query.category);
    if (query.q) {
      const like = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q.where((b) =>
        b
          .whereILike('patterns.title', like)
          .orWhereILike('patterns.normalized_message', like)
          .orWhereILike('patterns.fix_summary', like),
      );
    }
    const page = await paginate<Record<string, unknown>>(
      q,
      [
        { column: 'patterns.created_at', direction: 'desc', type: 'date' },
        { column: 'patterns.id', direction: 'desc', type: 'string' },
      ],
      { cursor: query.cursor, limit: query.limit },
    );
    return {
      items: (page.items as unknown as Pattern[]).map((p) => serializePattern(p, principal.orgId)),
      next_cursor: page.next_cursor,
    };
  }

  /** One pattern the caller may read: 404 for unknown ids, other organizations' private ones, and shared ones when the caller did not opt in. */
  async get(principal: Principal, id: string): Promise<Record<string, unknown>> {
    this.requireRole(principal, WORKERS);
    const takes = await orgOptedIn(this.d.db, principal.orgId);
    const p = await visiblePatterns(this.d.db, principal.orgId, principal.workspaceIds, takes)
      .where('patterns.id', id)
      .limit(1)
      .first();
    if (!p) throw notFound('pattern');
    return serializePattern(p, principal.orgId);
  }

  private async loadOwn(trx: Knex, principal: Principal, id: string, forUpdate = false): Promise<Pattern> {
    const q = Pattern.query(trx).forOrg(principal.orgId).findById(id);
    if (forUpdate) q.forUpdate();
    const p = await q;
    if (!p) throw notFound('pattern');
    if (!canOpenWorkspace(principal, p.workspace_id)) throw forbidden('You cannot open this workspace');
    return p;
  }

  private async ticketOf(trx: Knex, principal: Principal, ticketId: string): Promise<PatternTicket> {
    const t = await patternTicket(trx, principal.orgId, ticketId);
    if (!t) throw notFound('ticket');
    if (!canOpenWorkspace(principal, t.workspace_id)) throw forbidden('You cannot open this workspace');
    return t;
  }

  async create(a: SignedInActor, input: CreatePatternInput): Promise<Record<string, unknown>> {
    this.requireRole(a.principal, WORKERS);
    return this.d.db.transaction(async (trx) => {
      const t = await this.ticketOf(trx, a.principal, input.ticket_id);
      const resolved =
        t.state === 'customer_notified' ||
        (t.state === 'closed' && (t.close_reason === 'resolved' || t.close_reason === 'answered'));
      if (!resolved)
        throw conflict(
          'ticket_not_resolved',
          'A pattern is made from a resolved ticket (released and notified, or closed as resolved or answered)',
          { state: t.state, close_reason: t.close_reason },
        );
      const existing = await Pattern.query(trx)
        .forOrg(a.principal.orgId)
        .where({ source_ticket_id: t.id })
        .limit(1)
        .first();
      if (existing) throw conflict('pattern_exists', 'This ticket already has a pattern', { pattern_id: existing.id });
      const optedIn = (await orgOptedIn(trx, t.org_id)) && (await workspaceOptedIn(trx, t.org_id, t.workspace_id));
      if (input.shared && !optedIn)
        throw conflict(
          'patterns_opt_in_required',
          'Sharing needs patterns_opt_in on the organization and on the workspace',
        );
      const { problem, scrub, diagnosis, groupTitle } = await problemOfTicket(trx, t);
      const summary =
        input.fix_summary ??
        diagnosis?.public_summary ??
        t.public_summary ??
        firstParagraph(diagnosis?.root_cause_md) ??
        '';
      const now = new Date();
      const row = await Pattern.query(trx)
        .insert({
          id: newId(Pattern.idPrefix),
          org_id: t.org_id,
          workspace_id: t.workspace_id,
          source_ticket_id: t.id,
          title:
            safeText(
              input.title ??
                (groupTitle && problem.error_type ? `${problem.error_type}: ${problem.normalized_message}` : t.subject),
              scrub,
              200,
            ) || 'Untitled pattern',
          category: problem.category,
          error_type: problem.error_type,
          normalized_message: problem.normalized_message,
          frames: problem.frames,
          keywords: problem.keywords,
          signature: problem.signature,
          group_fingerprint: problem.group_fingerprint,
          fix_summary: safeText(summary, scrub, 2000),
          files_changed: input.diff_stats?.files_changed ?? null,
          additions: input.diff_stats?.additions ?? null,
          deletions: input.diff_stats?.deletions ?? null,
          shared: input.shared ?? optedIn,
          created_by_user_id: a.principal.userId ?? null,
          created_at: now,
          updated_at: now,
        })
        .returning('*');
      await this.d.audit.record(trx, {
        actor: a,
        action: 'pattern.created',
        target: { type: 'pattern', id: row.id },
        workspaceId: t.workspace_id,
        metadata: { ticket_id: t.id, shared: row.shared },
      });
      return serializePattern(row, a.principal.orgId);
    });
  }

  async update(a: SignedInActor, id: string, patch: UpdatePatternInput): Promise<Record<string, unknown>> {
    this.requireRole(a.principal, WORKERS);
    return this.d.db.transaction(async (trx) => {
      const before = await this.loadOwn(trx, a.principal, id, true);
      if (patch.shared === true && !before.shared) {
        const optedIn =
          (await orgOptedIn(trx, before.org_id)) && (await workspaceOptedIn(trx, before.org_id, before.workspace_id));
        if (!optedIn)
          throw conflict(
            'patterns_opt_in_required',
            'Sharing needs patterns_opt_in on the organization and on the workspace',
          );
      }
      const scrub = before.source_ticket_id
        ? await scrubOfTicket(trx, before.org_id, before.source_ticket_id, before.workspace_id)
        : (s: string) => s;
      const changes: Partial<Pattern> = { updated_at: new Date() };
      if (patch.title !== undefined) changes.title = safeText(patch.title, scrub, 200) || before.title;
      if (patch.fix_summary !== undefined) changes.fix_summary = safeText(patch.fix_summary, scrub, 2000);
      if (patch.shared !== undefined) changes.shared = patch.shared;
      if (patch.keywords !== undefined)
        changes.keywords = [
          ...new Set(patch.keywords.map((k) => safeText(k, scrub, 40).toLowerCase()).filter(Boolean)),
        ].slice(0, 20);
      const after = await Pattern.query(trx).forOrg(a.principal.orgId).patchAndFetchById(id, changes);
      await this.d.audit.record(trx, {
        actor: a,
        action: 'pattern.updated',
        target: { type: 'pattern', id },
        workspaceId: before.workspace_id,
        changes: diffFields(
          { title: before.title, fix_summary: before.fix_summary, shared: before.shared, keywords: before.keywords },
          { title: after.title, fix_summary: after.fix_summary, shared: after.shared, keywords: after.keywords },
        ),
      });
      return serializePattern(after, a.principal.orgId);
    });
  }

  async remove(a: SignedInActor, id: string): Promise<void> {
    this.requireRole(a.principal, ADMINS);
    await this.d.db.transaction(async (trx) => {
      const p = await this.loadOwn(trx, a.principal, id, true);
      await Pattern.query(trx).forOrg(a.principal.orgId).deleteById(id);
      await this.d.audit.record(trx, {
        actor: a,
        action: 'pattern.deleted',
        target: { type: 'pattern', id },
        workspaceId: p.workspace_id,
        metadata: { title: p.title, shared: p.shared },
      });
    });
  }

  /** Ranked patterns for a ticket the caller may open. */
  async match(
    principal: Principal,
    input: { ticket_id: string; limit?: number },
  ): Promise<{ ticket_id: string; items: PatternMatch[] }> {
    this.requireRole(principal, WORKERS);
    const t = await this.ticketOf(this.d.db, principal, input.ticket_id);
    return { ticket_id: t.id, items: await this.rank(principal.orgId, principal.workspaceIds, t, input.limit ?? 5) };
  }

  /**
   * The hook for diagnosis (container key `patternMatcher`): ranked patterns for a ticket of an
   * organization, without a signed-in caller. Unknown tickets give [].
   */
  async matchTicket(orgId: string, ticketId: string, limit = 3): Promise<PatternMatch[]> {
    const t = await patternTicket(this.d.db, orgId, ticketId);
    return t ? this.rank(orgId, null, t, limit) : [];
  }

  private async rank(
    orgId: string,
    workspaceIds: string[] | null,
    t: PatternTicket,
    limit: number,
  ): Promise<PatternMatch[]> {
    const { problem } = await problemOfTicket(this.d.db, t);
    // Shared patterns serve a ticket when its organization and its workspace both opted in.
    const takes = (await orgOptedIn(this.d.db, orgId)) && (await workspaceOptedIn(this.d.db, orgId, t.workspace_id));
    const q = visiblePatterns(this.d.db, orgId, workspaceIds, takes)
      .where((b) => b.whereNull('patterns.source_ticket_id').orWhereNot('patterns.source_ticket_id', t.id))
      .orderBy('patterns.created_at', 'desc')
      .limit(1000);
    q.where((b) => {
      b.where('patterns.signature', problem.signature);
      if (problem.group_fingerprint) b.orWhere('patterns.group_fingerprint', problem.group_fingerprint);
      if (problem.error_type) b.orWhere('patterns.error_type', problem.error_type);
      if (problem.keywords.length) b.orWhereRaw('jsonb_exists_any(patterns.keywords, ?::text[])', [problem.keywords]);
    });
    const candidates = await q;
    return candidates
      .map((p) => ({ p, s: scorePattern(problem, t.workspace_id, p) }))
      .filter((x) => x.s.score >= 0.2)
      .sort((a, b) => b.s.score - a.s.score || (a.p.id < b.p.id ? 1 : -1))
      .slice(0, Math.max(1, Math.min(limit, 20)))
      .map((x) => ({ score: x.s.score, reasons: x.s.reasons, pattern: serializePattern(x.p, orgId) }));
  }
}
