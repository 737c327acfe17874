// Agency monthly reports: an agency generates a client's report for a month (once: a second
// request answers the same report), lists and reads it, and emails it with its brand — HTML in
// the workspace's language with the PDF of charts attached; other organizations, members who
// cannot open the workspace and non-agencies are kept out.
import t from 'tap';
import type { MailMessage, StoredAttachment } from '../../mail/models/mail-message.js';
import { outgoing } from '../../mail/services/delivery.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { datedTicket, type TicketHistory } from '../../../test/helpers/tickets.js';
import { caller, signUpAgency } from './helpers.js';

/** A report mail as stored (mail_messages), its PDF attached. */
type ReportMail = MailMessage & { attachments: StoredAttachment[] };
/** The columns the test reads of a stored report (agency_reports). */
interface ReportRow {
  client_name: string;
  status: string;
  send_count: number;
  last_mail_id: string | null;
}

const app = await startTestApp(t);
const call = caller(app);

const agency = await signUpAgency(app);
const shop = (await call(agency, 'POST', '/v1/workspaces', { name: 'Client shop', client_name: 'Client Co' })).body;
const negozio = (await call(agency, 'POST', '/v1/workspaces', { name: 'Negozio', client_name: 'Bottega Srl' })).body;
const own = (await call(agency, 'POST', '/v1/workspaces', { name: 'Our site' })).body;
await app
  .db('workspaces')
  .where({ id: negozio.id })
  .update({ locale: 'it', report_intro: 'Ecco il riepilogo del mese.' });

// Tickets of October 2026 in the shop (made through the tickets service, then dated).
const ticket = (workspaceId: string, o: { day: number } & TicketHistory) =>
  datedTicket(app, agency.organization.id, workspaceId, new Date(Date.UTC(2026, 9, o.day, 10, 0, 0)), o);
await ticket(shop.id, { day: 5, frMin: 10, resolveMin: 60 });
await ticket(shop.id, { day: 6, frMin: 30, resolveMin: 600, fixed: true });
await ticket(shop.id, { day: 20, frMin: 20 });
await ticket(shop.id, { day: 40 }); // 9 November: another month

/** Text drawn in a PDF (uncompressed content streams: hex strings inside TJ arrays). */
function pdfText(pdf: Buffer): string[] {
  const out: string[] = [];
  for (const m of pdf.toString('latin1').matchAll(/\[([^\]]*)\]\s*TJ/g)) {
    out.push([...m[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => Buffer.from(h[1], 'hex').toString('latin1')).join(''));
  }
  return out;
}

t.test("an agency generates a client's monthly report once: a second request answers the same report", async (t) => {
  const first = await call(agency, 'POST', '/v1/agency/reports', { workspace_id: shop.id, month: '2026-10' });
  t.equal(first.status, 201);
  t.match(first.body, {
    id: /^rpt_/,
    workspace_id: shop.id,
    client_name: 'Client Co',
    month: '2026-10',
    locale: 'en',
    status: 'generated',
    recipients: [],
    sent_at: null,
    send_count: 0,
    period: { start: '2026-10-01T00:00:00.000Z', end: '2026-11-01T00:00:00.000Z' },
    pdf_filename: 'report-client-co-2026-10.pdf',
    generated_at: /Z$/,
  });
  const f = first.body.figures;
  t.same(
    f.tickets,
    { opened: 3, resolved: 2, fixed: 1, escalated: 0, answered_without_fix: 2 },
    'the November ticket is not counted',
  );
  t.same(f.first_response, { count: 3, avg_minutes: 20, median_minutes: 20, p90_minutes: 28 });
  t.match(f.resolution, { count: 2, median_minutes: 330 });
  t.equal(f.weekly[0].period_start, '2026-09-28T00:00:00.000Z', 'weeks start on Monday');
  t.same(
    f.weekly.map((w) => w.tickets),
    [0, 2, 0, 1, 0],
  );

  const again = await call(agency, 'POST', '/v1/agency/reports', { workspace_id: shop.id, month: '2026-10' });
  t.equal(again.status, 200, 'not created again');
  t.same(again.body, first.body, 'the same report, figures as generated');
  t.equal(
    await app
      .db('agency_reports')
      .where({ workspace_id: shop.id })
      .count('* as n')
      .first()
      .then((r) => Number((r as { n: unknown }).n)),
    1,
  );
  t.ok(
    await app.db('audit_entries').where({ action: 'agency.report_generated', org_id: agency.organization.id }).first(),
    'audited',
  );
  t.ok(await app.db('outbox').where({ type: 'agency.report_generated' }).first());

  const read = await call(agency, 'GET', `/v1/agency/reports/${first.body.id}`);
  t.equal(read.status, 200);
  t.same(read.body, first.body);
});

t.test("bad months and workspaces that are not the agency's clients", async (t) => {
  t.match(await call(agency, 'POST', '/v1/agency/reports', { workspace_id: shop.id, month: '2099-01' }), {
    status: 422,
    body: { code: 'month_not_started' },
  });
  for (const month of ['2026-13', '2026-1', 'October'])
    t.equal((await call(agency, 'POST', '/v1/agency/reports', { workspace_id: shop.id, month })).status, 400, month);
  t.equal(
    (await call(agency, 'POST', '/v1/agency/reports', { month: '2026-10' })).status,
    400,
    'workspace_id is required',
  );
  t.match(
    await call(agency, 'POST', '/v1/agency/reports', { workspace_id: own.id, month: '2026-10' }),
    { status: 404, body: { code: 'not_found' } },
    "the agency's own workspace has no client",
  );
  t.equal(
    (await call(agency, 'POST', '/v1/agency/reports', { workspace_id: 'ws_nope', month: '2026-10' })).status,
    404,
  );
});

t.test('the list is newest month first, with a cursor', async (t) => {
  await call(agency, 'POST', '/v1/agency/reports', { workspace_id: shop.id, month: '2026-09' });
  await call(agency, 'POST', '/v1/agency/reports', { workspace_id: negozio.id, month: '2026-10' });
  const page1 = await call(agency, 'GET', '/v1/agency/reports?limit=2');
  t.equal(page1.status, 200);
  t.same(
    page1.body.items.map((r) => r.month),
    ['2026-10', '2026-10'],
  );
  t.ok(page1.body.next_cursor);
  const page2 = await call(agency, 'GET', `/v1/agency/reports?limit=2&cursor=${page1.body.next_cursor}`);
  t.same(
    page2.body.items.map((r) => [r.month, r.client_name]),
    [['2026-09', 'Client Co']],
  );
  t.equal(page2.body.next_cursor, null);
  const filtered = await call(agency, 'GET', `/v1/agency/reports?workspace_id=${negozio.id}`);
  t.same(
    filtered.body.items.map((r) => r.client_name),
    ['Bottega Srl'],
  );
  t.equal((await call(agency, 'GET', '/v1/agency/reports?cursor=garbage')).status, 400);
});

t.test("sending emails the report with the agency's brand and the PDF attached", async (t) => {
  const brand = await call(agency, 'POST', '/v1/brand/profiles', { name: 'Pixel Studio', primary_color: '#2563eb' });
  t.equal(brand.status, 201);
  // The engine badge shows in every customer-facing mail unless the badge removal add-on hides it.
  await app.db('organizations').where({ id: agency.organization.id }).update({ badge_removal_addon: true });
  t.equal((await call(agency, 'PATCH', `/v1/brand/profiles/${brand.body.id}`, { show_badge: false })).status, 200);
  const report = (await call(agency, 'GET', `/v1/agency/reports?workspace_id=${shop.id}&month=2026-10`)).body.items[0];

  t.match(
    await call(agency, 'POST', `/v1/agency/reports/${report.id}/send`),
    { status: 422, body: { code: 'no_recipients' } },
    'no report recipients set',
  );
  t.equal(
    (await call(agency, 'POST', `/v1/agency/reports/${report.id}/send`, { recipients: ['not-an-email'] })).status,
    400,
  );

  await app
    .db('workspaces')
    .where({ id: shop.id })
    .update({ report_recipients: JSON.stringify(['cto@client.test', 'ceo@client.test']) });
  const sent = await call(agency, 'POST', `/v1/agency/reports/${report.id}/send`);
  t.equal(sent.status, 200);
  t.match(sent.body, {
    id: report.id,
    status: 'sent',
    sent_at: /Z$/,
    recipients: ['cto@client.test', 'ceo@client.test'],
    send_count: 1,
  });

  const mail = (await app
    .db('mail_messages')
    .where({ org_id: agency.organization.id, template: 'agency.monthly_report' })
    .first()) as ReportMail;
  t.equal(mail.to_address, 'cto@client.test, ceo@client.test');
  t.equal(mail.from_name, 'Pixel Studio', "sent as the agency's brand");
  t.equal(mail.subject, 'Monthly support report · Client Co · October 2026');
  t.match(
    mail.html,
    /<div data-testid="brand-header" style="background:#2563eb;[^>]*><strong data-testid="brand-name"[^>]*>Pixel Studio</,
    "the workspace's brand header, put there by the mail plugin",
  );
  t.notMatch(mail.html, /brand:header|engine-badge/);
  t.match(mail.html, /background:#[0-9a-f]{6}/);
  t.match(mail.html, /Tickets opened<\/td><td[^>]*>3</);
  t.match(mail.text, /Median first response: 20 min/);
  t.notMatch(mail.html, /Patchwell/, 'white label: no engine name in the report');
  t.equal(mail.attachments.length, 1);
  t.match(mail.attachments[0], { filename: 'report-client-co-2026-10.pdf', content_type: 'application/pdf' });
  const pdf = Buffer.from(mail.attachments[0].content_base64, 'base64');
  t.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  t.equal((pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length, 1, 'one page');
  const text = pdfText(pdf);
  t.ok(
    text.some((s) => s.includes('Client Co')),
    'the PDF names the client',
  );
  t.ok(text.includes('Tickets per week') && text.includes('Median resolution time per week'), 'both charts');
  t.ok(text.includes('Pixel Studio'));

  const email = outgoing(mail);
  t.match(
    email.attachments,
    [{ filename: 'report-client-co-2026-10.pdf', contentType: 'application/pdf' }],
    'the delivery hands the attachment to the channel adapter',
  );
  t.ok(email.attachments![0].content.equals(pdf));

  const resent = await call(agency, 'POST', `/v1/agency/reports/${report.id}/send`, {
    recipients: ['Owner@Client.test'],
  });
  t.match(resent.body, { recipients: ['owner@client.test'], send_count: 2 });
  const mails = (await app
    .db('mail_messages')
    .where({ template: 'agency.monthly_report' })
    .orderBy('created_at')) as ReportMail[];
  t.equal(mails.length, 2);
  t.equal(
    mails[1].attachments[0].content_base64,
    mails[0].attachments[0].content_base64,
    'the same report gives the same PDF bytes',
  );
  t.ok(
    await app.db('audit_entries').where({ action: 'agency.report_sent', org_id: agency.organization.id }).first(),
    'audited',
  );
  t.ok(await app.db('outbox').where({ type: 'agency.report_sent' }).first());
});

t.test('an Italian client gets the report in Italian', async (t) => {
  const report = (await call(agency, 'GET', `/v1/agency/reports?workspace_id=${negozio.id}`)).body.items[0];
  t.equal(report.locale, 'it');
  const sent = await call(agency, 'POST', `/v1/agency/reports/${report.id}/send`, {
    recipients: ['titolare@bottega.test'],
  });
  t.equal(sent.status, 200);
  const mail = (await app
    .db('mail_messages')
    .where({ template: 'agency.monthly_report', to_address: 'titolare@bottega.test' })
    .first()) as ReportMail;
  t.equal(mail.locale, 'it');
  t.equal(mail.subject, "Report mensile dell'assistenza · Bottega Srl · ottobre 2026");
  t.match(mail.html, /Ticket aperti/);
  t.match(mail.html, /Ecco il riepilogo del mese\./);
  t.match(mail.text, /I grafici sono nel PDF allegato \(report-bottega-srl-2026-10\.pdf\)/);
  const text = pdfText(Buffer.from(mail.attachments[0].content_base64, 'base64'));
  t.ok(text.includes('Ticket per settimana'));
  t.ok(text.some((s) => s.includes('Bottega Srl')));
});

t.test("another organization's reports answer 404; non-agencies 403; members see their workspaces only", async (t) => {
  const report = (await call(agency, 'GET', `/v1/agency/reports?workspace_id=${shop.id}&month=2026-10`)).body.items[0];
  const other = await signUp(app, { orgName: 'Other agency', organizationType: 'agency' });
  t.match(
    await call(other, 'GET', '/v1/agency/reports'),
    { status: 402, body: { code: 'plan_limit_reached', details: { reason: 'agency_in_plan' } } },
    'reports need a plan with agency features',
  );
  await app.db('organizations').where({ id: other.organization.id }).update({ plan: 'agency' });
  t.match(await call(other, 'GET', `/v1/agency/reports/${report.id}`), { status: 404, body: { code: 'not_found' } });
  t.match(await call(other, 'POST', `/v1/agency/reports/${report.id}/send`, { recipients: ['x@evil.test'] }), {
    status: 404,
    body: { code: 'not_found' },
  });
  t.match(await call(other, 'POST', '/v1/agency/reports', { workspace_id: shop.id, month: '2026-10' }), {
    status: 404,
    body: { code: 'not_found' },
  });
  t.same((await call(other, 'GET', '/v1/agency/reports')).body, { items: [], next_cursor: null });
  t.notOk(await app.db('mail_messages').where({ to_address: 'x@evil.test' }).first());

  const direct = await signUp(app, { orgName: 'Direct Co' });
  for (const [m, u, p] of [
    ['GET', '/v1/agency/reports'],
    ['POST', '/v1/agency/reports', { workspace_id: shop.id, month: '2026-10' }],
    ['GET', `/v1/agency/reports/${report.id}`],
    ['POST', `/v1/agency/reports/${report.id}/send`, {}],
  ] as const) {
    t.match(await call(direct, m, u, p), { status: 403, body: { code: 'not_an_agency' } }, `${m} ${u}`);
  }

  const reviewer = await addMember(app, agency, { role: 'reviewer' });
  t.equal((await call(reviewer, 'GET', '/v1/agency/reports')).status, 403, 'owners and admins only');
  const admin = await addMember(app, agency, { role: 'admin' });
  t.equal(
    (await call(admin, 'GET', `/v1/agency/reports/${report.id}`)).status,
    200,
    "admins read every client's report",
  );
});

t.test(
  "report_auto_send: last month's report is generated and sent once, on the first days of the month",
  async (t) => {
    const reports = app.container.resolve<{
      autoSend(o: {
        hasAgencyPlan: (p: string | null) => boolean;
        now?: Date;
        days?: number;
      }): Promise<{ generated: number; sent: number }>;
    }>('agencyReports');
    const plans = app.container.resolve<{ hasFeature(p: string | null, f: string): boolean }>('planCatalog');
    const opts = (now: string) => ({
      hasAgencyPlan: (p: string | null) => plans.hasFeature(p, 'agency'),
      now: new Date(now),
    });
    const auto = (await call(agency, 'POST', '/v1/workspaces', { name: 'Auto shop', client_name: 'Auto Co' })).body;
    await app
      .db('workspaces')
      .where({ id: auto.id })
      .update({ report_auto_send: true, report_recipients: JSON.stringify(['owner@auto.test']) });
    await app.db('workspaces').where({ id: shop.id }).update({ report_auto_send: true });
    await app
      .db('workspaces')
      .where({ id: negozio.id })
      .update({ report_auto_send: false, report_recipients: JSON.stringify(['titolare@bottega.test']) });

    t.same(
      await reports.autoSend(opts('2026-12-05T06:00:00Z')),
      { generated: 0, sent: 0 },
      'not after the first days of the month',
    );
    t.same(await reports.autoSend(opts('2026-12-01T06:00:00Z')), { generated: 2, sent: 2 });
    const rows = (await app
      .db('agency_reports')
      .where({ org_id: agency.organization.id, month: '2026-11' })
      .orderBy('client_name')) as ReportRow[];
    t.same(
      rows.map((r) => [r.client_name, r.status, r.send_count]),
      [
        ['Auto Co', 'sent', 1],
        ['Client Co', 'sent', 1],
      ],
      'auto-send on, recipients set: the others are left alone',
    );
    const mails = (await app
      .db('mail_messages')
      .where({ org_id: agency.organization.id, template: 'agency.monthly_report' })
      .whereIn(
        'id',
        rows.map((r) => r.last_mail_id),
      )) as ReportMail[];
    t.same(mails.map((m) => m.to_address).sort(), ['cto@client.test, ceo@client.test', 'owner@auto.test']);
    t.ok(
      mails.every((m) => /data-testid="brand-header"/.test(m.html) && m.from_name === 'Pixel Studio'),
      "with the workspace's brand",
    );
    const audit = await app
      .db('audit_entries')
      .where({ org_id: agency.organization.id, action: 'agency.report_sent', actor_type: 'system' });
    t.equal(audit.length, 2, 'audited as the system');

    const count = async () =>
      (await app.db('mail_messages').where({ org_id: agency.organization.id, template: 'agency.monthly_report' }))
        .length;
    const before = await count();
    t.same(
      await reports.autoSend(opts('2026-12-02T06:00:00Z')),
      { generated: 0, sent: 0 },
      'idempotent: nothing is sent twice',
    );
    t.equal(await count(), before);
  },
);
