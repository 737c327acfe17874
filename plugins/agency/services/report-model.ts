import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { MailerPort } from '../../../core/contracts/mail.js';
import { httpError } from '../../../core/http/errors.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { ReportFigures, ReportLocale } from './report-texts.js';
import { iso } from '../../../core/http/times.js';

/** The brand plugin's service, as far as reports use it (the agency's own default profile). */
export type ReportBrandPort = Pick<Cradle['brandService'], 'effectiveProfile' | 'lookOf'>;

/** What a report reads of the analytics plugin (`supportMetrics`). */
export type ReportMetricsPort = Pick<Cradle['supportMetrics'], 'compute'>;

/** What the reports service works with (getters: the container resolves them when first used). */
export interface AgencyReportsDeps {
  db: () => Knex;
  audit: () => AuditWriter;
  outbox: () => Outbox;
  mailer: () => MailerPort;
  brand: () => ReportBrandPort;
  /** The analytics plugin's `supportMetrics`: a report's figures are the analytics of its month. */
  metrics: () => ReportMetricsPort;
  clock?: () => Date;
}

export interface ReportRow {
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

export interface WorkspaceRow {
  id: string;
  client_name: string | null;
  locale: string | null;
  archived_at: Date | null;
  report_recipients: string[] | string;
  report_intro: string | null;
}

export const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
/** Addresses trimmed, lower-cased, without duplicates or blanks. */
export const recipientList = (addresses: string[]): string[] =>
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

/** A report as answered. */
export function reportJson(r: ReportRow): Record<string, unknown> {
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
    sent_at: iso(r.sent_at),
    send_count: Number(r.send_count),
  };
}
