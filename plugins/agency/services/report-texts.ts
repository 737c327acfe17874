/** Texts of the monthly client report (email and PDF), in every locale the service speaks. */

export type ReportLocale = 'en' | 'it';

export interface Durations {
  count: number;
  avg_minutes: number | null;
  median_minutes: number | null;
  p90_minutes: number | null;
}

/** The month's numbers stored with a report (AgencyReport.figures). */
export interface ReportFigures {
  tickets: { opened: number; resolved: number; fixed: number; escalated: number; answered_without_fix: number };
  first_response: Durations;
  resolution: Durations;
  fixes: { attempted: number; succeeded: number } | null;
  weekly: {
    period_start: string;
    tickets: number;
    resolved: number;
    fixed: number;
    median_first_response_minutes: number | null;
    median_resolution_minutes: number | null;
  }[];
}

export const REPORT_TEXTS = {
  en: {
    title: 'Monthly support report',
    opened: 'Tickets opened',
    resolved: 'Tickets resolved',
    fixed: 'Fixed with a code change',
    escalated: 'Escalated to a person',
    firstResponse: 'Median first response',
    resolution: 'Median resolution time',
    fixesShipped: 'Fixes shipped / attempted',
    chartTickets: 'Tickets per week',
    chartResolution: 'Median resolution time per week',
    generated: 'Generated',
    months: [
      'January',
      'February',
      'March',
      'April',
      'May',
      'June',
      'July',
      'August',
      'September',
      'October',
      'November',
      'December',
    ],
    none: 'n/a',
  },
  it: {
    title: "Report mensile dell'assistenza",
    opened: 'Ticket aperti',
    resolved: 'Ticket risolti',
    fixed: 'Risolti con una modifica al codice',
    escalated: 'Passati a una persona',
    firstResponse: 'Prima risposta (mediana)',
    resolution: 'Tempo di risoluzione (mediana)',
    fixesShipped: 'Correzioni rilasciate / tentate',
    chartTickets: 'Ticket per settimana',
    chartResolution: 'Tempo di risoluzione mediano per settimana',
    generated: 'Generato il',
    months: [
      'gennaio',
      'febbraio',
      'marzo',
      'aprile',
      'maggio',
      'giugno',
      'luglio',
      'agosto',
      'settembre',
      'ottobre',
      'novembre',
      'dicembre',
    ],
    none: 'n.d.',
  },
} as const;

/** `2026-10` → `October 2026` / `ottobre 2026`. */
export function monthLabel(month: string, locale: ReportLocale): string {
  const [y, m] = month.split('-').map(Number);
  return `${REPORT_TEXTS[locale].months[m - 1]} ${y}`;
}

/** Minutes as `45 min`, `3.5 h` (`3,5 h` in Italian) or `2.1 d`; null as n/a. */
export function formatMinutes(minutes: number | null, locale: ReportLocale): string {
  if (minutes === null) return REPORT_TEXTS[locale].none;
  const n = (v: number) => (Math.round(v * 10) / 10).toString().replace('.', locale === 'it' ? ',' : '.');
  if (minutes < 60) return `${Math.round(minutes)} min`;
  if (minutes < 48 * 60) return `${n(minutes / 60)} h`;
  return `${n(minutes / 1440)} ${locale === 'it' ? 'g' : 'd'}`;
}

export const REPORT_MAIL_TEMPLATE = 'agency.monthly_report';

const row = (label: string, key: string) =>
  `<tr><td style="padding:6px 0;border-bottom:1px solid #e5e7eb">${label}</td><td style="padding:6px 0;border-bottom:1px solid #e5e7eb;text-align:right;font-weight:bold">{{${key}}}</td></tr>`;

function html(locale: ReportLocale, attached: string): string {
  const t = REPORT_TEXTS[locale];
  return [
    '<!doctype html>',
    `<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{subject}}</title></head>`,
    '<body style="margin:0;background:#f9fafb;color:#1f2328;font-family:-apple-system, ' +
      "BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, " +
      'sans-serif;font-size:15px;line-height:1.5">',
    '<div style="max-width:600px;margin:0 auto;background:#ffffff">',
    // The mail plugin puts the client workspace's brand here (logo or name, color, font) and the badge below, unless removed.
    '<!--brand:header-->',
    '<main style="padding:24px">',
    `<h1 style="font-size:20px;margin:0 0 4px">${t.title}: {{client}}</h1>`,
    '<p style="margin:0 0 16px;color:#6b7280">{{month}}</p>',
    '<p style="white-space:pre-line">{{intro}}</p>',
    '<table role="presentation" style="width:100%;border-collapse:collapse">',
    row(t.opened, 'opened'),
    row(t.resolved, 'resolved'),
    row(t.fixed, 'fixed'),
    row(t.escalated, 'escalated'),
    row(t.firstResponse, 'first_response'),
    row(t.resolution, 'resolution'),
    '</table>',
    `<p style="margin-top:16px;color:#6b7280">${attached}</p>`,
    '</main>',
    '<!--brand:footer-->',
    '</div></body></html>',
    '',
  ].join('\n');
}

function text(locale: ReportLocale, attached: string): string {
  const t = REPORT_TEXTS[locale];
  return [
    `${t.title}: {{client}} · {{month}}`,
    '',
    '{{intro}}',
    '',
    `${t.opened}: {{opened}}`,
    `${t.resolved}: {{resolved}}`,
    `${t.fixed}: {{fixed}}`,
    `${t.escalated}: {{escalated}}`,
    `${t.firstResponse}: {{first_response}}`,
    `${t.resolution}: {{resolution}}`,
    '',
    attached,
    '',
    '{{agency}}',
  ].join('\n');
}

const ATTACHED = {
  en: 'The charts are in the attached PDF ({{pdf_name}}).',
  it: 'I grafici sono nel PDF allegato ({{pdf_name}}).',
};

/** Registered with the mail plugin's mailer. Neutral wording: the client reads it under the agency's brand. */
export const AGENCY_MAIL_TEMPLATES = [
  {
    name: REPORT_MAIL_TEMPLATE,
    subject: { en: '{{subject}}', it: '{{subject}}' },
    text: { en: text('en', ATTACHED.en), it: text('it', ATTACHED.it) },
    html: { en: html('en', ATTACHED.en), it: html('it', ATTACHED.it) },
  },
];

/** The subject of a report mail: `Monthly support report · Client Co · October 2026`. */
export function reportSubject(locale: ReportLocale, client: string, month: string): string {
  return `${REPORT_TEXTS[locale].title} · ${client} · ${monthLabel(month, locale)}`;
}
