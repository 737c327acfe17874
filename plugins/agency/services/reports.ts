import type { Knex } from 'knex';
import type { AuditedActor, AuditWriter } from '../../../core/audit/audit-writer.js';
import { systemActor, type SignedInActor } from '../../../core/contracts/index.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import { newId } from '../../../core/data/ids.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { httpError, notFound } from '../../../core/http/errors.js';
import { paginate } from '../../../core/http/pagination.js';
import { assertAgency } from './partner.js';
import { renderReportPdf } from './report-pdf.js';
import {
  REPORT_MAIL_TEMPLATE,
  reportSubject,
  formatMinutes,
  monthLabel,
  type ReportFigures,
  type ReportLocale,
} from './report-texts.js';
import type { MailerPort } from '../../../core/contracts/mail.js';

/** The brand plugin's service, as far as reports use it (the agency's own default profile). */
export interface ReportBrandPort {
  effectiveProfile(db: Knex, orgId: string, brandProfileId: string | null): Promise<unknown>;
  lookOf(row: never, org: { badge_removal_addon: boolean }): { name: string; color: string };
}

interface ReportRow {
  id: string;
  org_id: string;
  workspace_id: string;
  month: string;
  client_name: string;
  locale: ReportLocale;
  figures: ReportFigures | string;
  status: 'generated' | 'sent';
  recipients: string[] | string;
  generated_at: Date;
  sent_at: Date | null;
  send_count: number;
}

interface WorkspaceRow {
  id: string;
  client_name: string | null;
  locale: string | null;
  archived_at: Date | null;
  report_recipients: string[] | string;
  report_intro: string | null;
}

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
/** Addresses trimmed, lower-cased, without duplicates or blanks. */
const recipientList = (addresses: string[]): string[] =>
  [...new Set(addresses.map((a) => a.trim().toLowerCase()))].filter(Boolean);
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

export function monthRange(month: string): { start: Date; end: Date } {
  const m = MONTH.exec(month);
  if (!m) throw httpError(422, 'invalid_month', 'month must be YYYY-MM');
  const start = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  return { start, end: new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)) };
}

/** The last complete UTC month before `now`, `YYYY-MM`. */
export function previousMonth(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return d.toISOString().slice(0, 7);
}

export const pdfName = (r: Pick<ReportRow, 'client_name' | 'month'>): string =>
  `report-${
    r.client_name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'client'
  }-${r.month}.pdf`;

/** What a report reads of the analytics plugin (`supportMetrics`). */
export interface ReportMetricsPort {
  compute(q: {
    orgId: string;
    workspaceIds: string[] | null;
    from: Date;
    to: Date;
    interval: 'week';
  }): Promise<Record<string, unknown>>;
}

/**
 * Monthly client reports of an agency: generated once per client workspace and month (a second
 * request answers the stored report), kept with the month's figures, rendered as a branded HTML
 * email with a PDF of charts and sent to the workspace's report recipients.
 */
export class AgencyReports {
  constructor(
    private readonly d: {
      db: () => Knex;
      audit: () => AuditWriter;
      outbox: () => Outbox;
      mailer: () => MailerPort;
      brand: () => ReportBrandPort;
      /** The analytics plugin's `supportMetrics`: a report's figures are the analytics of its month. */
      metrics: () => ReportMetricsPort;
      clock?: () => Date;
    },
  ) {}

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

  out(r: ReportRow): Record<string, unknown> {
    const { start, end } = monthRange(r.month);
    return {
      id: r.id,
      workspace_id: r.workspace_id,
      client_name: r.client_name,
      month: r.month,
      period: { start: start.toISOString(), end: end.toISOString() },
      locale: r.locale,
      status: r.status,
      figures: json(r.figures),
      recipients: json(r.recipients),
      pdf_filename: pdfName(r),
      generated_at: new Date(r.generated_at).toISOString(),
      sent_at: r.sent_at ? new Date(r.sent_at).toISOString() : null,
      send_count: Number(r.send_count),
    };
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
      const ws = (await db('workspaces').where({ org_id: principal.orgId, id: q.workspace_id }).first('id')) as
        { id: string } | undefined;
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
    return { items: page.items.map((r) => this.out(r)), next_cursor: page.next_cursor };
  }

  async get(principal: Principal, id: string): Promise<Record<string, unknown>> {
    const db = this.d.db();
    await this.agency(db, principal);
    return this.out(await this.row(db, principal, id));
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
    return { created, report: this.out(row) };
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
      const inserted = (await trx('agency_reports')
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
        .returning('id')) as { id: string }[];
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

  private async look(
    db: Knex,
    org: { id: string; name: string; badge_removal_addon: boolean },
  ): Promise<{ name: string; color: string }> {
    const profile = await this.d.brand().effectiveProfile(db, org.id, null);
    if (!profile) return { name: org.name, color: '#1f2328' };
    return this.d.brand().lookOf(profile as never, org);
  }

  // `reportIntro`: the client workspace's report_intro, read by the caller with its other fields.
  private async render(
    db: Knex,
    org: { id: string; name: string; badge_removal_addon: boolean },
    row: ReportRow,
    reportIntro: string | null,
  ): Promise<{ filename: string; content: Buffer; look: { name: string; color: string }; intro: string | null }> {
    const look = await this.look(db, org);
    const intro = reportIntro?.trim() || null;
    const content = await renderReportPdf({
      clientName: row.client_name,
      agencyName: look.name,
      month: row.month,
      locale: row.locale,
      color: look.color,
      intro,
      figures: json(row.figures),
      generatedAt: new Date(row.generated_at),
    });
    return { filename: pdfName(row), content, look, intro };
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
    await this.deliver(db, org, row, recipients, ws?.report_intro ?? null, { actor });
    return this.out(await this.row(db, principal, id));
  }

  /**
   * Mails a report and marks it sent, in one transaction. With `onlyOnce` (the monthly auto-send)
   * a report already sent (by hand or by an earlier run) is left alone: false.
   */
  private async deliver(
    db: Knex,
    org: { id: string; name: string; badge_removal_addon: boolean },
    row: ReportRow,
    recipients: string[],
    reportIntro: string | null,
    by: { actor: AuditedActor; onlyOnce?: boolean },
  ): Promise<boolean> {
    const id = row.id;
    const { filename, content, look, intro } = await this.render(db, org, row, reportIntro);
    const f = json(row.figures);
    const sentAt = this.now();
    return db.transaction(async (trx) => {
      if (by.onlyOnce) {
        const locked = (await trx('agency_reports')
          .select('send_count')
          .where({ org_id: org.id, id })
          .forUpdate()
          .first()) as { send_count: number } | undefined;
        if (!locked || Number(locked.send_count) > 0) return false;
      }
      const mailId = await this.d.mailer().enqueue(trx, {
        orgId: org.id,
        template: REPORT_MAIL_TEMPLATE,
        locale: row.locale,
        to: recipients,
        // The client workspace's brand and, when its domain is verified, its sender (the mail plugin decides).
        workspaceId: row.workspace_id,
        fromName: look.name,
        data: {
          subject: reportSubject(row.locale, row.client_name, row.month),
          agency: look.name,
          client: row.client_name,
          month: monthLabel(row.month, row.locale),
          intro: intro ?? '',
          opened: f.tickets.opened,
          resolved: f.tickets.resolved,
          fixed: f.tickets.fixed,
          escalated: f.tickets.escalated,
          first_response: formatMinutes(f.first_response.median_minutes, row.locale),
          resolution: formatMinutes(f.resolution.median_minutes, row.locale),
          pdf_name: filename,
        },
        attachments: [{ filename, contentType: 'application/pdf', content }],
      });
      await trx('agency_reports')
        .where({ org_id: org.id, id })
        .update({
          status: 'sent',
          sent_at: sentAt,
          recipients: JSON.stringify(recipients),
          send_count: trx.raw('send_count + 1'),
          last_mail_id: mailId,
          updated_at: sentAt,
        });
      await this.d.audit().record(trx, {
        orgId: org.id,
        actor: by.actor,
        action: 'agency.report_sent',
        target: { type: 'agency_report', id },
        changes: { recipients: { before: json(row.recipients), after: recipients } },
        ...(by.onlyOnce ? { metadata: { auto_send: true } } : {}),
      });
      await this.d
        .outbox()
        .add(
          trx,
          'agency.report_sent',
          { report_id: id, workspace_id: row.workspace_id, month: row.month, mail_id: mailId, auto: !!by.onlyOnce },
          { orgId: org.id },
        );
      return true;
    });
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
    const rows = (await db('workspaces as w')
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
      )) as Array<
      WorkspaceRow & {
        org_id: string;
        created_at: Date;
        org_name: string;
        org_plan: string | null;
        badge_removal_addon: boolean;
      }
    >;
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
          await this.deliver(
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
