import type { Knex } from 'knex';
import type { AuditedActor } from '../../../core/audit/audit-writer.js';
import { systemActor, type SignedInActor } from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { httpError, notFound } from '../../../core/http/errors.js';
import { paginate } from '../../../core/http/pagination.js';
import { assertAgency } from './partner.js';
import { deliverReport } from './report-delivery.js';
import {
  json,
  monthRange,
  previousMonth,
  recipientList,
  reportJson,
  type AgencyReportsDeps,
  type ReportRow,
  type WorkspaceRow,
} from './report-model.js';
import type { ReportFigures } from './report-texts.js';

/**
 * Monthly client reports of an agency: generated once per client workspace and month (a second
 * request answers the stored report), kept with the month's figures, rendered as a branded HTML
 * email with a PDF of charts and sent to the workspace's report recipients.
 */
export class AgencyReports {
  constructor(private readonly d: AgencyReportsDeps) {}

  private now(): Date {
    return this.d.clock?.() ?? new Date();
  }

  private async agency(
    db: Knex,
    principal: Principal,
  ): Promise<{ id: string; name: string; badge_removal_addon: boolean }> {
    const org = (await db('organizations')
      .select('id', 'name', 'type', 'badge_removal_addon')
      .where({ id: principal.orgId })
      .first()) as { id: string; name: string; type: string; badge_removal_addon: boolean } | undefined;
    if (!org) throw notFound('organization');
    assertAgency(org);
    return org;
  }

  private async clientWorkspace(
    db: Knex,
    principal: Principal,
    id: string,
  ): Promise<WorkspaceRow & { client_name: string }> {
    const ws = (await db('workspaces').where({ org_id: principal.orgId, id }).first()) as WorkspaceRow | undefined;
    if (!ws || !ws.client_name?.trim() || !canOpenWorkspace(principal, ws.id)) throw notFound('client workspace');
    return ws as WorkspaceRow & { client_name: string };
  }

  private async row(db: Knex, principal: Principal, id: string): Promise<ReportRow> {
    const row = (await db('agency_reports').where({ org_id: principal.orgId, id }).first()) as ReportRow | undefined;
    if (!row || !canOpenWorkspace(principal, row.workspace_id)) throw notFound('report');
    return row;
  }

  async list(
    principal: Principal,
    q: { cursor?: string; limit?: number; workspace_id?: string; month?: string },
  ): Promise<{ items: Record<string, unknown>[]; next_cursor: string | null }> {
    const db = this.d.db();
    await this.agency(db, principal);
    const b = db('agency_reports').where({ org_id: principal.orgId });
    if (principal.workspaceIds) b.whereIn('workspace_id', principal.workspaceIds);
    if (q.workspace_id) {
      // A workspace filter is checked as a path id (docs/security.md): 404, not an empty page.
      const ws: { id: string } | undefined = await db('workspaces')
        .where({ org_id: principal.orgId, id: q.workspace_id })
        .first('id');
      if (!ws || !canOpenWorkspace(principal, ws.id)) throw notFound('workspace');
      b.where({ workspace_id: q.workspace_id });
    }
    if (q.month) b.where({ month: q.month });
    const page = await paginate<ReportRow & Record<string, unknown>>(
      b,
      [
        { column: 'month', direction: 'desc', type: 'string' },
        { column: 'id', direction: 'desc', type: 'string' },
      ],
      q,
    );
    return { items: page.items.map((r) => reportJson(r)), next_cursor: page.next_cursor };
  }

  async get(principal: Principal, id: string): Promise<Record<string, unknown>> {
    const db = this.d.db();
    await this.agency(db, principal);
    return reportJson(await this.row(db, principal, id));
  }

  /** Generates the report of a client and month, or answers the one already generated (created: false). */
  async generate(
    actor: SignedInActor,
    input: { workspace_id: string; month?: string },
  ): Promise<{ created: boolean; report: Record<string, unknown> }> {
    const principal = actor.principal;
    const db = this.d.db();
    const org = await this.agency(db, principal);
    const ws = await this.clientWorkspace(db, principal, input.workspace_id);
    const now = this.now();
    const month = input.month ?? previousMonth(now);
    const { start } = monthRange(month);
    if (start > now) throw httpError(422, 'month_not_started', `${month} has not started yet`);
    const { created, row } = await this.create(db, org.id, ws, month, { actor, generatedBy: principal.userId });
    return { created, report: reportJson(row) };
  }

  // One report per client and month: the stored one, or a new one (a concurrent duplicate loses on the unique index).
  private async create(
    db: Knex,
    orgId: string,
    ws: WorkspaceRow & { client_name: string; locale: string | null },
    month: string,
    by: { actor: AuditedActor; generatedBy: string | null; auto?: boolean },
  ): Promise<{ created: boolean; row: ReportRow }> {
    const existing = (await db('agency_reports').where({ org_id: orgId, workspace_id: ws.id, month }).first()) as
      ReportRow | undefined;
    if (existing) return { created: false, row: existing };
    const { start, end } = monthRange(month);
    // Computed outside the transaction: PGlite has one connection, and the metrics run their own queries.
    const figures = await this.figures(orgId, ws.id, start, end);
    const id = newId('rpt');
    const now = this.now();
    const created = await db.transaction(async (trx) => {
      const inserted: { id: string }[] = await trx('agency_reports')
        .insert({
          id,
          org_id: orgId,
          workspace_id: ws.id,
          month,
          client_name: ws.client_name,
          locale: ws.locale === 'it' ? 'it' : 'en',
          figures: JSON.stringify(figures),
          status: 'generated',
          recipients: JSON.stringify([]),
          generated_by: by.generatedBy,
          generated_at: now,
        })
        .onConflict(['org_id', 'workspace_id', 'month'])
        .ignore()
        .returning('id');
      if (inserted.length === 0) return false;
      await this.d.audit().record(trx, {
        orgId,
        actor: by.actor,
        action: 'agency.report_generated',
        target: { type: 'agency_report', id },
        changes: { month: { before: null, after: month }, workspace_id: { before: null, after: ws.id } },
        ...(by.auto ? { metadata: { auto_send: true } } : {}),
      });
      await this.d
        .outbox()
        .add(trx, 'agency.report_generated', { report_id: id, workspace_id: ws.id, month }, { orgId });
      return true;
    });
    const row = (await db('agency_reports').where({ org_id: orgId, workspace_id: ws.id, month }).first()) as ReportRow;
    return { created, row };
  }

  private async figures(orgId: string, workspaceId: string, from: Date, to: Date): Promise<ReportFigures> {
    const m = (await this.d.metrics().compute({ orgId, workspaceIds: [workspaceId], from, to, interval: 'week' })) as {
      volume: { total: number };
      first_response: ReportFigures['first_response'] & { p95_minutes?: unknown };
      resolution: ReportFigures['resolution'] & { p95_minutes?: unknown };
      deflection: { answered_without_fix: number; fixed: number; escalated: number; resolved: number };
      fixes: { attempted: number; succeeded: number } | null;
      series: ReportFigures['weekly'];
    };
    const d = (x: ReportFigures['first_response']) => ({
      count: x.count,
      avg_minutes: x.avg_minutes,
      median_minutes: x.median_minutes,
      p90_minutes: x.p90_minutes,
    });
    return {
      tickets: {
        opened: m.volume.total,
        resolved: m.deflection.resolved,
        fixed: m.deflection.fixed,
        escalated: m.deflection.escalated,
        answered_without_fix: m.deflection.answered_without_fix,
      },
      first_response: d(m.first_response),
      resolution: d(m.resolution),
      fixes: m.fixes ? { attempted: m.fixes.attempted, succeeded: m.fixes.succeeded } : null,
      weekly: m.series,
    };
  }

  /** Emails the report with the agency's brand to the given recipients or the workspace's report recipients. */
  async send(actor: SignedInActor, id: string, input: { recipients?: string[] }): Promise<Record<string, unknown>> {
    const principal = actor.principal;
    const db = this.d.db();
    const org = await this.agency(db, principal);
    const row = await this.row(db, principal, id);
    const ws = (await db('workspaces')
      .select('report_recipients', 'report_intro')
      .where({ org_id: org.id, id: row.workspace_id })
      .first()) as Pick<WorkspaceRow, 'report_recipients' | 'report_intro'> | undefined;
    const recipients = recipientList(input.recipients ?? json(ws?.report_recipients ?? []) ?? []);
    if (recipients.length === 0)
      throw httpError(
        422,
        'no_recipients',
        "The report has no recipients: give recipients or set the workspace's report recipients",
      );
    await deliverReport(this.d, db, org, row, recipients, ws?.report_intro ?? null, { actor });
    return reportJson(await this.row(db, principal, id));
  }

  /**
   * The monthly auto-send (scheduled): on the first `days` days of a UTC month, every client
   * workspace with `report_auto_send` and report recipients, of an agency whose plan includes
   * agency features, gets last month's report generated (idempotent per client and month) and
   * sent once (a report already sent, by hand or by an earlier run, is not sent again). One
   * client's failure is logged and does not stop the others; the next run retries it.
   */
  async autoSend(opts: {
    hasAgencyPlan: (plan: string | null) => boolean;
    days?: number;
    now?: Date;
    log?: { warn: (o: object, m: string) => void };
  }): Promise<{ generated: number; sent: number }> {
    const now = opts.now ?? this.now();
    if (now.getUTCDate() > (opts.days ?? 3)) return { generated: 0, sent: 0 };
    const month = previousMonth(now);
    const db = this.d.db();
    const rows: Array<
      WorkspaceRow & {
        org_id: string;
        created_at: Date;
        org_name: string;
        org_plan: string | null;
        badge_removal_addon: boolean;
      }
    > = await db('workspaces as w')
      .join('organizations as o', 'o.id', 'w.org_id')
      .where('o.type', 'agency')
      .where('w.report_auto_send', true)
      .whereNull('w.archived_at')
      .whereNotNull('w.client_name')
      .select(
        'w.id',
        'w.org_id',
        'w.client_name',
        'w.locale',
        'w.archived_at',
        'w.report_recipients',
        'w.report_intro',
        'w.created_at',
        'o.name as org_name',
        'o.plan as org_plan',
        'o.badge_removal_addon',
      );
    let generated = 0;
    let sent = 0;
    for (const ws of rows) {
      const recipients = recipientList(json(ws.report_recipients ?? []) ?? []);
      if (!ws.client_name?.trim() || recipients.length === 0 || !opts.hasAgencyPlan(ws.org_plan)) continue;
      // A client added after the month ended has nothing to report for it.
      if (new Date(ws.created_at) >= monthRange(month).end) continue;
      try {
        const system = { actor: systemActor('agency', ws.org_id) };
        const { created, row } = await this.create(db, ws.org_id, ws as WorkspaceRow & { client_name: string }, month, {
          ...system,
          generatedBy: null,
          auto: true,
        });
        if (created) generated += 1;
        if (Number(row.send_count) > 0) continue;
        if (
          await deliverReport(
            this.d,
            db,
            { id: ws.org_id, name: ws.org_name, badge_removal_addon: ws.badge_removal_addon },
            row,
            recipients,
            ws.report_intro,
            { ...system, onlyOnce: true },
          )
        )
          sent += 1;
      } catch (err) {
        opts.log?.warn({ err, workspaceId: ws.id, month }, 'agency report auto-send failed; retried at the next run');
      }
    }
    return { generated, sent };
  }
}
