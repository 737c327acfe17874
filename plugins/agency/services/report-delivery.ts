import type { Knex } from 'knex';
import type { AuditedActor } from '../../../core/audit/audit-writer.js';
import { json, pdfName, type AgencyReportsDeps, type ReportRow } from './report-model.js';
import { renderReportPdf } from './report-pdf.js';
import { REPORT_MAIL_TEMPLATE, formatMinutes, monthLabel, reportSubject } from './report-texts.js';

async function lookOf(
  d: AgencyReportsDeps,
  db: Knex,
  org: { id: string; name: string; badge_removal_addon: boolean },
): Promise<{ name: string; color: string }> {
  const profile = await d.brand().effectiveProfile(db, org.id, null);
  if (!profile) return { name: org.name, color: '#1f2328' };
  return d.brand().lookOf(profile, org);
}

// `reportIntro`: the client workspace's report_intro, read by the caller with its other fields.
async function renderReport(
  d: AgencyReportsDeps,
  db: Knex,
  org: { id: string; name: string; badge_removal_addon: boolean },
  row: ReportRow,
  reportIntro: string | null,
): Promise<{ filename: string; content: Buffer; look: { name: string; color: string }; intro: string | null }> {
  const look = await lookOf(d, db, org);
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

/**
 * Mails a report and marks it sent, in one transaction. With `onlyOnce` (the monthly auto-send)
 * a report already sent (by hand or by an earlier run) is left alone: false.
 */
export async function deliverReport(
  d: AgencyReportsDeps,
  db: Knex,
  org: { id: string; name: string; badge_removal_addon: boolean },
  row: ReportRow,
  recipients: string[],
  reportIntro: string | null,
  by: { actor: AuditedActor; onlyOnce?: boolean },
): Promise<boolean> {
  const id = row.id;
  const { filename, content, look, intro } = await renderReport(d, db, org, row, reportIntro);
  const f = json(row.figures);
  const sentAt = d.clock?.() ?? new Date();
  return db.transaction(async (trx) => {
    if (by.onlyOnce) {
      const locked = (await trx('agency_reports')
        .select('send_count')
        .where({ org_id: org.id, id })
        .forUpdate()
        .first()) as { send_count: number } | undefined;
      if (!locked || Number(locked.send_count) > 0) return false;
    }
    const mailId = await d.mailer().enqueue(trx, {
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
    await d.audit().record(trx, {
      orgId: org.id,
      actor: by.actor,
      action: 'agency.report_sent',
      target: { type: 'agency_report', id },
      changes: { recipients: { before: json(row.recipients), after: recipients } },
      ...(by.onlyOnce ? { metadata: { auto_send: true } } : {}),
    });
    await d
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
