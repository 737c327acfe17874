import { REPORT_TEXTS, formatMinutes, monthLabel, type ReportFigures, type ReportLocale } from './report-texts.js';

export interface ReportPdfInput {
  clientName: string;
  agencyName: string;
  month: string;
  locale: ReportLocale;
  color: string;
  intro: string | null;
  figures: ReportFigures;
  generatedAt: Date;
}

const INK = '#1f2328';
const MUTED = '#6b7280';
const GRID = '#e5e7eb';

/**
 * The report as a one-page A4 PDF: the figures and two charts (tickets per week as bars, median
 * resolution time per week as a line). Standard fonts, no compression and a fixed creation date
 * (the generation time), so the same report always gives the same bytes.
 */
export async function renderReportPdf(r: ReportPdfInput): Promise<Buffer> {
  const t = REPORT_TEXTS[r.locale];
  // pdfkit is imported on the first report, not with the plugin (it costs a third of a second).
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 48,
    compress: false,
    info: {
      Title: `${t.title} ${monthLabel(r.month, r.locale)} · ${r.clientName}`,
      Author: r.agencyName,
      Producer: r.agencyName,
      Creator: r.agencyName,
      CreationDate: r.generatedAt,
      ModDate: r.generatedAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = 48;
  const width = doc.page.width - 96;
  doc.rect(0, 0, doc.page.width, 72).fill(r.color);
  doc
    .fillColor('#ffffff')
    .font('Helvetica-Bold')
    .fontSize(18)
    .text(r.agencyName, left, 26, { width, lineBreak: false });
  doc.fillColor(INK).font('Helvetica-Bold').fontSize(16).text(`${t.title}: ${r.clientName}`, left, 96, { width });
  doc.font('Helvetica').fontSize(11).fillColor(MUTED).text(monthLabel(r.month, r.locale), { width });
  if (r.intro) doc.moveDown(0.5).fillColor(INK).fontSize(10).text(r.intro, { width });

  doc.moveDown(1);
  const f = r.figures;
  const rows: [string, string][] = [
    [t.opened, String(f.tickets.opened)],
    [t.resolved, String(f.tickets.resolved)],
    [t.fixed, String(f.tickets.fixed)],
    [t.escalated, String(f.tickets.escalated)],
    [t.firstResponse, formatMinutes(f.first_response.median_minutes, r.locale)],
    [t.resolution, formatMinutes(f.resolution.median_minutes, r.locale)],
  ];
  if (f.fixes) rows.push([t.fixesShipped, `${f.fixes.succeeded} / ${f.fixes.attempted}`]);
  for (const [label, value] of rows) {
    const y = doc.y;
    doc
      .font('Helvetica')
      .fontSize(11)
      .fillColor(INK)
      .text(label, left, y, { width: width - 120, lineBreak: false });
    doc.font('Helvetica-Bold').text(value, left + width - 120, y, { width: 120, align: 'right', lineBreak: false });
    doc.moveDown(0.4);
  }

  const weeks = f.weekly;
  const labels = weeks.map((w) => w.period_start.slice(5, 10));
  const chartTop = doc.y + 24;
  barChart(doc, {
    x: left,
    y: chartTop,
    w: width,
    h: 150,
    title: t.chartTickets,
    labels,
    values: weeks.map((w) => w.tickets),
    color: r.color,
  });
  lineChart(doc, {
    x: left,
    y: chartTop + 210,
    w: width,
    h: 150,
    title: t.chartResolution,
    labels,
    values: weeks.map((w) => w.median_resolution_minutes),
    color: r.color,
    locale: r.locale,
  });
  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor(MUTED)
    .text(
      `${t.generated} ${r.generatedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      left,
      doc.page.height - 60,
      { width, lineBreak: false },
    );
  doc.end();
  return done;
}

interface Chart {
  x: number;
  y: number;
  w: number;
  h: number;
  title: string;
  labels: string[];
  color: string;
}

function frame(
  doc: PDFKit.PDFDocument,
  c: Chart,
  max: number,
  fmt: (v: number) => string,
): { plotX: number; plotY: number; plotW: number; plotH: number } {
  doc.font('Helvetica-Bold').fontSize(11).fillColor(INK).text(c.title, c.x, c.y, { width: c.w, lineBreak: false });
  const plotX = c.x + 44;
  const plotY = c.y + 20;
  const plotW = c.w - 44;
  const plotH = c.h - 36;
  for (let i = 0; i <= 4; i++) {
    const gy = plotY + plotH - (plotH * i) / 4;
    doc
      .moveTo(plotX, gy)
      .lineTo(plotX + plotW, gy)
      .lineWidth(0.5)
      .strokeColor(GRID)
      .stroke();
    doc
      .font('Helvetica')
      .fontSize(7)
      .fillColor(MUTED)
      .text(fmt((max * i) / 4), c.x, gy - 3, { width: 40, align: 'right', lineBreak: false });
  }
  const slot = plotW / Math.max(c.labels.length, 1);
  c.labels.forEach((l, i) =>
    doc
      .font('Helvetica')
      .fontSize(7)
      .fillColor(MUTED)
      .text(l, plotX + slot * i, plotY + plotH + 4, { width: slot, align: 'center', lineBreak: false }),
  );
  return { plotX, plotY, plotW, plotH };
}

function barChart(doc: PDFKit.PDFDocument, c: Chart & { values: number[] }): void {
  const max = Math.max(4, ...c.values);
  const p = frame(doc, c, max, (v) => String(Math.round(v)));
  const slot = p.plotW / Math.max(c.values.length, 1);
  c.values.forEach((v, i) => {
    const h = (p.plotH * v) / max;
    if (h > 0) doc.rect(p.plotX + slot * i + slot * 0.2, p.plotY + p.plotH - h, slot * 0.6, h).fill(c.color);
  });
}

function lineChart(doc: PDFKit.PDFDocument, c: Chart & { values: (number | null)[]; locale: ReportLocale }): void {
  const known = c.values.filter((v): v is number => v !== null);
  const max = Math.max(60, ...known);
  const p = frame(doc, c, max, (v) => formatMinutes(Math.round(v), c.locale));
  const slot = p.plotW / Math.max(c.values.length, 1);
  const pts = c.values.map((v, i) =>
    v === null ? null : ([p.plotX + slot * i + slot / 2, p.plotY + p.plotH - (p.plotH * v) / max] as const),
  );
  let drawing = false;
  for (const pt of pts) {
    if (!pt) {
      drawing = false;
      continue;
    }
    if (drawing) doc.lineTo(pt[0], pt[1]);
    else doc.moveTo(pt[0], pt[1]);
    drawing = true;
  }
  if (known.length > 1) doc.lineWidth(2).strokeColor(c.color).stroke();
  for (const pt of pts) if (pt) doc.circle(pt[0], pt[1], 2.5).fill(c.color);
}
