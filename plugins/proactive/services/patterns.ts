import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import { diffFields } from '../../../core/audit/audit-writer.js';
import type { SignedInActor, StackFrame } from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { TenantModel } from '../../../core/data/model.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { problemOf, safeText, scorePattern, scrubber, type ProblemSignature } from './pattern-signature.js';

/** A learned problem → fix pattern (table `patterns`). */
export class Pattern extends TenantModel {
  static override tableName = 'patterns';
  static override idPrefix = 'pat';
  static override jsonAttributes = ['frames', 'keywords'];

  declare workspace_id: string;
  declare source_ticket_id: string | null;
  declare title: string;
  declare category: string;
  declare error_type: string | null;
  declare normalized_message: string;
  declare frames: Array<{ file: string; function: string }>;
  declare keywords: string[];
  declare signature: string;
  declare group_fingerprint: string | null;
  declare fix_summary: string;
  declare files_changed: number | null;
  declare additions: number | null;
  declare deletions: number | null;
  declare shared: boolean;
  declare created_by_user_id: string | null;
  declare updated_at: Date;
}

export interface CreatePatternInput {
  ticket_id: string;
  title?: string;
  fix_summary?: string;
  shared?: boolean;
  diff_stats?: { files_changed?: number; additions?: number; deletions?: number };
}

export interface UpdatePatternInput {
  title?: string;
  fix_summary?: string;
  shared?: boolean;
  keywords?: string[];
}

export interface ListPatternsQuery {
  cursor?: string;
  limit?: number;
  scope?: 'all' | 'own' | 'shared';
  workspace_id?: string;
  category?: string;
  q?: string;
}

export interface PatternMatch {
  score: number;
  reasons: string[];
  pattern: Record<string, unknown>;
}

interface TicketRow {
  id: string;
  org_id: string;
  workspace_id: string;
  subject: string;
  state: string;
  close_reason: string | null;
  category: string;
  customer_email: string | null;
  customer_name: string | null;
  error_group_id: string | null;
  public_summary: string | null;
}

const WORKERS = new Set(['owner', 'admin', 'reviewer']);
const ADMINS = new Set(['owner', 'admin']);
const iso = (d: Date | string) => new Date(d).toISOString();
const SHARED_REASON = 'patterns: the own organization plus patterns shared by organizations that opted in';

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

  private async orgOptedIn(trx: Knex, orgId: string): Promise<boolean> {
    const row = (await trx('organizations').where({ id: orgId }).first('patterns_opt_in')) as
      { patterns_opt_in: boolean } | undefined;
    return !!row?.patterns_opt_in;
  }

  private async workspaceOptedIn(trx: Knex, orgId: string, workspaceId: string): Promise<boolean> {
    const row = (await trx('workspaces').where({ id: workspaceId, org_id: orgId }).first('patterns_opt_in')) as
      { patterns_opt_in: boolean } | undefined;
    return !!row?.patterns_opt_in;
  }

  /** Patterns the organization may read: its own (within `workspaceIds` when limited), plus shared ones of opted-in others when it opted in. */
  private visible(
    trx: Knex,
    orgId: string,
    workspaceIds: string[] | null,
    takesShared: boolean,
    scope: 'all' | 'own' | 'shared' = 'all',
  ) {
    const q = Pattern.query(trx).acrossOrgs(SHARED_REASON);
    q.where((b) => {
      if (scope !== 'shared') {
        b.where((own) => {
          own.where('patterns.org_id', orgId);
          if (workspaceIds) own.whereIn('patterns.workspace_id', workspaceIds);
        });
      }
      if (takesShared && scope !== 'own') {
        b.orWhere((shared) =>
          shared
            .where('patterns.shared', true)
            .whereNot('patterns.org_id', orgId)
            .whereExists(
              trx('organizations')
                .whereRaw('organizations.id = patterns.org_id')
                .where('organizations.patterns_opt_in', true),
            )
            .whereExists(
              trx('workspaces')
                .whereRaw('workspaces.id = patterns.workspace_id')
                .where('workspaces.patterns_opt_in', true)
                .whereNull('workspaces.archived_at'),
            ),
        );
      }
      if (scope === 'shared' && !takesShared) b.whereRaw('false');
    });
    return q;
  }

  serialize(p: Pattern, viewerOrgId: string): Record<string, unknown> {
    const owned = p.org_id === viewerOrgId;
    return {
      id: p.id,
      owned,
      shared: p.shared,
      workspace_id: owned ? p.workspace_id : null,
      source_ticket_id: owned ? p.source_ticket_id : null,
      title: p.title,
      category: p.category,
      problem: {
        error_type: p.error_type,
        normalized_message: p.normalized_message,
        frames: p.frames ?? [],
        keywords: p.keywords ?? [],
        signature: p.signature,
      },
      fix: { summary: p.fix_summary, files_changed: p.files_changed, additions: p.additions, deletions: p.deletions },
      created_at: iso(p.created_at),
      updated_at: iso(p.updated_at),
    };
  }

  async list(principal: Principal, query: ListPatternsQuery): Promise<Page<Record<string, unknown>>> {
    this.requireRole(principal, WORKERS);
    // A workspace filter is checked as a path id: 404 unknown or another organization's, 403 outside the caller's.
    if (query.workspace_id) {
      const ws = await this.d.db('workspaces').where({ id: query.workspace_id, org_id: principal.orgId }).first('id');
      if (!ws) throw notFound('workspace');
      if (!canOpenWorkspace(principal, query.workspace_id)) throw forbidden('You cannot open this workspace');
    }
    const takes = await this.orgOptedIn(this.d.db, principal.orgId);
    const q = this.visible(this.d.db, principal.orgId, principal.workspaceIds, takes, query.scope ?? 'all');
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
      items: (page.items as unknown as Pattern[]).map((p) => this.serialize(p, principal.orgId)),
      next_cursor: page.next_cursor,
    };
  }

  /** One pattern the caller may read: 404 for unknown ids, other organizations' private ones, and shared ones when the caller did not opt in. */
  async get(principal: Principal, id: string): Promise<Record<string, unknown>> {
    this.requireRole(principal, WORKERS);
    const takes = await this.orgOptedIn(this.d.db, principal.orgId);
    const p = await this.visible(this.d.db, principal.orgId, principal.workspaceIds, takes)
      .where('patterns.id', id)
      .limit(1)
      .first();
    if (!p) throw notFound('pattern');
    return this.serialize(p, principal.orgId);
  }

  private async loadOwn(trx: Knex, principal: Principal, id: string, forUpdate = false): Promise<Pattern> {
    const q = Pattern.query(trx).forOrg(principal.orgId).findById(id);
    if (forUpdate) q.forUpdate();
    const p = await q;
    if (!p) throw notFound('pattern');
    if (!canOpenWorkspace(principal, p.workspace_id)) throw forbidden('You cannot open this workspace');
    return p;
  }

  private async ticketOf(trx: Knex, principal: Principal, ticketId: string): Promise<TicketRow> {
    const t = (await trx('tickets')
      .where({ org_id: principal.orgId, id: ticketId })
      .first(
        'id',
        'org_id',
        'workspace_id',
        'subject',
        'state',
        'close_reason',
        'category',
        'customer_email',
        'customer_name',
        'error_group_id',
        'public_summary',
      )) as TicketRow | undefined;
    if (!t) throw notFound('ticket');
    if (!canOpenWorkspace(principal, t.workspace_id)) throw forbidden('You cannot open this workspace');
    return t;
  }

  /** The ticket's problem, from its error group and latest diagnosis, scrubbed and masked; and the scrubber used. */
  private async problemOfTicket(
    trx: Knex,
    t: TicketRow,
  ): Promise<{
    problem: ProblemSignature;
    scrub: (s: string) => string;
    diagnosis: { root_cause_md: string; public_summary: string | null } | null;
    groupTitle: string | null;
  }> {
    // One query after the other: inside a transaction PGlite has one connection.
    const org = (await trx('organizations').where({ id: t.org_id }).first('name', 'slug')) as
      { name: string; slug: string } | undefined;
    const ws = (await trx('workspaces')
      .where({ id: t.workspace_id, org_id: t.org_id })
      .first('name', 'slug', 'client_name')) as { name: string; slug: string; client_name: string | null } | undefined;
    const repos = (await trx('repositories')
      .where({ org_id: t.org_id, workspace_id: t.workspace_id })
      .pluck('full_name')) as string[];
    const group = t.error_group_id
      ? ((await trx('error_groups')
          .where({ org_id: t.org_id, id: t.error_group_id })
          .first('type', 'title', 'normalized_message', 'frames', 'fingerprint')) as
          | {
              type: string;
              title: string;
              normalized_message: string;
              frames: StackFrame[] | string;
              fingerprint: string;
            }
          | undefined)
      : undefined;
    const diagnosis = (await trx('fix_diagnoses')
      .where({ org_id: t.org_id, ticket_id: t.id })
      .orderBy('created_at', 'desc')
      .first('root_cause_md', 'public_summary', 'category')) as
      { root_cause_md: string; public_summary: string | null; category: string } | undefined;
    const scrub = scrubber([
      { value: t.customer_email, as: '<customer>' },
      { value: t.customer_name, as: '<customer>' },
      { value: org?.name, as: '<org>' },
      { value: org?.slug, as: '<org>' },
      { value: ws?.name, as: '<workspace>' },
      { value: ws?.slug, as: '<workspace>' },
      { value: ws?.client_name, as: '<workspace>' },
      ...repos.flatMap((r) => [
        { value: r, as: '<repository>' },
        { value: r.split('/')[0], as: '<org>' },
        { value: r.split('/')[1], as: '<repository>' },
      ]),
    ]);
    const frames = group
      ? Array.isArray(group.frames)
        ? group.frames
        : (JSON.parse(group.frames || '[]') as StackFrame[])
      : [];
    const problem = problemOf({
      category: diagnosis?.category ?? t.category ?? 'unknown',
      subject: t.subject,
      rootCause: diagnosis?.root_cause_md ?? null,
      group: group
        ? { type: group.type, normalized_message: group.normalized_message, frames, fingerprint: group.fingerprint }
        : null,
      scrub,
    });
    return { problem, scrub, diagnosis: diagnosis ?? null, groupTitle: group?.title ?? null };
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
      const optedIn =
        (await this.orgOptedIn(trx, t.org_id)) && (await this.workspaceOptedIn(trx, t.org_id, t.workspace_id));
      if (input.shared && !optedIn)
        throw conflict(
          'patterns_opt_in_required',
          'Sharing needs patterns_opt_in on the organization and on the workspace',
        );
      const { problem, scrub, diagnosis, groupTitle } = await this.problemOfTicket(trx, t);
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
        orgId: t.org_id,
        actor: a,
        action: 'pattern.created',
        target: { type: 'pattern', id: row.id },
        workspaceId: t.workspace_id,
        metadata: { ticket_id: t.id, shared: row.shared },
      });
      return this.serialize(row, a.principal.orgId);
    });
  }

  async update(a: SignedInActor, id: string, patch: UpdatePatternInput): Promise<Record<string, unknown>> {
    this.requireRole(a.principal, WORKERS);
    return this.d.db.transaction(async (trx) => {
      const before = await this.loadOwn(trx, a.principal, id, true);
      if (patch.shared === true && !before.shared) {
        const optedIn =
          (await this.orgOptedIn(trx, before.org_id)) &&
          (await this.workspaceOptedIn(trx, before.org_id, before.workspace_id));
        if (!optedIn)
          throw conflict(
            'patterns_opt_in_required',
            'Sharing needs patterns_opt_in on the organization and on the workspace',
          );
      }
      const scrub = before.source_ticket_id
        ? await this.scrubOfTicket(trx, before.org_id, before.source_ticket_id, before.workspace_id)
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
        orgId: before.org_id,
        actor: a,
        action: 'pattern.updated',
        target: { type: 'pattern', id },
        workspaceId: before.workspace_id,
        changes: diffFields(
          { title: before.title, fix_summary: before.fix_summary, shared: before.shared, keywords: before.keywords },
          { title: after.title, fix_summary: after.fix_summary, shared: after.shared, keywords: after.keywords },
        ),
      });
      return this.serialize(after, a.principal.orgId);
    });
  }

  async remove(a: SignedInActor, id: string): Promise<void> {
    this.requireRole(a.principal, ADMINS);
    await this.d.db.transaction(async (trx) => {
      const p = await this.loadOwn(trx, a.principal, id, true);
      await Pattern.query(trx).forOrg(a.principal.orgId).deleteById(id);
      await this.d.audit.record(trx, {
        orgId: p.org_id,
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
    const t = (await this.d
      .db('tickets')
      .where({ org_id: orgId, id: ticketId })
      .first(
        'id',
        'org_id',
        'workspace_id',
        'subject',
        'state',
        'close_reason',
        'category',
        'customer_email',
        'customer_name',
        'error_group_id',
        'public_summary',
      )) as TicketRow | undefined;
    return t ? this.rank(orgId, null, t, limit) : [];
  }

  private async rank(
    orgId: string,
    workspaceIds: string[] | null,
    t: TicketRow,
    limit: number,
  ): Promise<PatternMatch[]> {
    const { problem } = await this.problemOfTicket(this.d.db, t);
    // Shared patterns serve a ticket when its organization and its workspace both opted in.
    const takes =
      (await this.orgOptedIn(this.d.db, orgId)) && (await this.workspaceOptedIn(this.d.db, orgId, t.workspace_id));
    const q = this.visible(this.d.db, orgId, workspaceIds, takes)
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
      .map((x) => ({ score: x.s.score, reasons: x.s.reasons, pattern: this.serialize(x.p, orgId) }));
  }

  private async scrubOfTicket(
    trx: Knex,
    orgId: string,
    ticketId: string,
    workspaceId: string,
  ): Promise<(s: string) => string> {
    const t = (await trx('tickets')
      .where({ org_id: orgId, id: ticketId })
      .first(
        'id',
        'org_id',
        'workspace_id',
        'subject',
        'state',
        'close_reason',
        'category',
        'customer_email',
        'customer_name',
        'error_group_id',
        'public_summary',
      )) as TicketRow | undefined;
    if (!t) {
      return (
        await this.problemOfTicket(trx, {
          id: ticketId,
          org_id: orgId,
          workspace_id: workspaceId,
          subject: '',
          state: 'closed',
          close_reason: null,
          category: 'unknown',
          customer_email: null,
          customer_name: null,
          error_group_id: null,
          public_summary: null,
        })
      ).scrub;
    }
    return (await this.problemOfTicket(trx, t)).scrub;
  }
}

function firstParagraph(md: string | null | undefined): string | null {
  if (!md) return null;
  const p = md
    .split(/\n\s*\n/)
    .map((s) => s.trim())
    .find(Boolean);
  return p ?? null;
}
