// Branded email: every customer-facing mail of a workspace (ticket replies, release notices,
// agency reports) is rendered by the mail plugin with the workspace's effective brand profile —
// logo or name, the accessible primary color, the font, the engine badge unless removed — and
// leaves from the brand's verified sender. A workspace without a brand keeps the default look
// and sender; mail to the team is never branded.
import type { Knex } from 'knex';
import t from 'tap';
import { signUp } from '../../../test/helpers/accounts.js';
import { startDns } from '../../../test/helpers/dns-server.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { call, checkoutTicket, newProfile, newWorkspace, setOrg, uid, verifyStatusDomain } from './helpers.js';

interface MailerLike {
  enqueue(trx: Knex, input: Record<string, unknown>): Promise<string>;
  renderFor(
    trx: Knex,
    ref: Record<string, unknown>,
    name: string,
    locale: 'en' | 'it',
    data: Record<string, unknown>,
  ): Promise<{ subject: string; text: string; html: string; from: { address: string; name?: string } }>;
  brandFor(trx: Knex, name: string, ref: Record<string, unknown>): Promise<unknown>;
}

/** A stored mail (mail_messages): its sender and rendered bodies. */
interface MailRow {
  from_address: string;
  from_name: string | null;
  html: string;
  text: string;
}

const dns = await startDns();
t.teardown(() => dns.close());
// The fix loop is on: its release notice template is what this test brands.
const app = await startTestApp(t, {
  plugins: {
    brand: { options: { statusCnameTarget: 'status.patchwell.test', dnsServers: [dns.server], dnsTimeoutMs: 1000 } },
    inbox: { options: { dnsServers: [dns.server], dnsTimeoutMs: 1000, domainRefreshSeconds: 3600 } },
    fixes: { enabled: true },
  },
});
const mailer = app.container.resolve<MailerLike>('mailer');
const ticketIn = (orgId: string, workspaceId: string, language = 'en') =>
  checkoutTicket(app, orgId, workspaceId, language);

async function reply(who: Parameters<typeof call>[1], ticketId: string): Promise<MailRow> {
  const draft = await call(app, who, 'POST', `/v1/tickets/${ticketId}/drafts`, {
    kind: 'reply',
    body_md: 'We are on it.',
  });
  if (draft.status !== 201) throw new Error(`draft: ${draft.status} ${draft.payload}`);
  const sent = await call(app, who, 'POST', `/v1/tickets/${ticketId}/drafts/${draft.body.id}/send`, {});
  if (sent.status !== 200) throw new Error(`send: ${sent.status} ${sent.payload}`);
  return (await app.db('mail_messages').where({ ticket_ref: ticketId, template: 'tickets.reply' }).first()) as MailRow;
}

const releaseData = {
  subject: 'Checkout fails',
  product: 'Shop',
  version: '1.2.3',
  summary: 'Payments work again.',
  status_url: 'https://status.example.test/s/1',
  unsubscribe_url: 'https://status.example.test/unsubscribe/u1',
};
/** The release notice as the mailer renders it for `ref` (a workspace or a ticket of an organization). */
const releaseNotice = (ref: Record<string, unknown>, locale: 'en' | 'it') =>
  app.db.transaction((trx) => mailer.renderFor(trx, ref, 'fixes.release_notice', locale, releaseData));

// An agency's client workspace, white-label ready: brand with a linked logo, a status domain, the
// badge removed, a verified sending domain with its sender.
const agency = await signUp(app, { orgName: 'Pixel Agency', organizationType: 'agency' });
await setOrg(app, agency, { plan: 'agency', badge_removal_addon: true });
const client = await newWorkspace(app, agency, 'Client shop', { client_name: 'Client Co' });
const profile = await newProfile(app, agency, {
  name: 'Client Co',
  primary_color: '#38bdf8',
  font_family: 'Lora',
  logo_url: 'https://cdn.client.test/logo.png',
  show_badge: false,
});
const base = `client-${uid()}.test`;
{
  await verifyStatusDomain(app, agency, dns, profile.id, `status.${base}`);
  const reg = await call(app, agency, 'POST', '/v1/domains', {
    workspace_id: client.id,
    purpose: 'sending',
    domain: `mail.${base}`,
  });
  dns.publish(reg.body.records);
  await call(app, agency, 'POST', `/v1/domains/${profile.id}/sending/verify`);
  await call(app, agency, 'PATCH', `/v1/domains/${profile.id}/sending/sender`, {
    sender_email: `help@mail.${base}`,
    sender_name: 'Client Co Support',
  });
}

t.test('a ticket reply from a white-labelled client workspace shows the brand and no engine badge', async (t) => {
  const p = (await call(app, agency, 'GET', `/v1/brand/profiles/${profile.id}`)).body;
  t.equal(p.color_adjusted, true, 'a light blue is darkened for white text');
  const mail = await reply(agency, await ticketIn(agency.organization.id, client.id));
  t.equal(mail.from_address, `help@mail.${base}`);
  t.equal(mail.from_name, 'Client Co Support');
  t.match(
    mail.html,
    new RegExp(`data-testid="brand-header" style="background:${p.primary_color_effective};`),
    'the effective (accessible) color',
  );
  t.match(mail.html, /<img src="https:\/\/cdn\.client\.test\/logo\.png" alt="Client Co"/, 'the logo');
  t.match(mail.html, /font-family: &quot;Lora&quot;, Georgia, serif/, "the brand's font");
  t.match(mail.html, /We are on it\./);
  t.notMatch(mail.html, /engine-badge|Patchwell/);
  t.notMatch(mail.text, /Patchwell/);
});

t.test("a release notice of a client ticket is branded centrally, in the customer's language", async (t) => {
  const ticketId = await ticketIn(agency.organization.id, client.id, 'it');
  const mailId = await app.db.transaction((trx) =>
    mailer.enqueue(trx, {
      orgId: agency.organization.id,
      template: 'fixes.release_notice',
      locale: 'it',
      to: 'jane.doe@example.com',
      data: releaseData,
      ticketRef: ticketId,
    }),
  );
  const mail = (await app.db('mail_messages').where({ id: mailId }).first()) as MailRow;
  t.equal(mail.from_address, `help@mail.${base}`, "from the brand's verified sender");
  t.match(mail.html, /<html lang="it">/);
  t.match(mail.html, /data-testid="brand-header"[^>]*><img src="https:\/\/cdn\.client\.test\/logo\.png"/);
  t.match(mail.html, /Risolto: Checkout fails|risolto in Shop 1\.2\.3/);
  t.notMatch(mail.html, /engine-badge|Patchwell/);

  // Without a logo the name shows as text; without the add-on the badge comes back.
  await call(app, agency, 'PATCH', `/v1/brand/profiles/${profile.id}`, { logo_url: null });
  await setOrg(app, agency, { badge_removal_addon: false });
  const r = await releaseNotice({ orgId: agency.organization.id, workspaceId: client.id }, 'it');
  t.match(r.html, /<strong data-testid="brand-name"[^>]*>Client Co<\/strong>/);
  t.match(r.html, /data-testid="engine-badge"[^>]*>Assistenza di Patchwell</);
  t.match(r.text, /\n--\nAssistenza di Patchwell\n$/);
  await setOrg(app, agency, { badge_removal_addon: true });
});

t.test('a plain workspace keeps the default sender and look, with the badge; team mail is never branded', async (t) => {
  const direct = await signUp(app, { orgName: 'Plain Co' });
  const ws = await newWorkspace(app, direct, 'Plain app');
  const ticketId = await ticketIn(direct.organization.id, ws.id);
  const mail = await reply(direct, ticketId);
  t.equal(mail.from_address, 'no-reply@localhost');
  t.equal(mail.from_name, 'Patchwell');
  t.match(
    mail.html,
    /data-testid="brand-header" style="background:#1f2328;[^>]*><strong data-testid="brand-name"[^>]*>Plain app</,
  );
  t.match(mail.html, /data-testid="engine-badge"[^>]*>Support by Patchwell</);
  t.match(mail.text, /Support by Patchwell\n$/);

  const release = await releaseNotice({ orgId: direct.organization.id, ticketRef: ticketId }, 'en');
  t.same(release.from, { address: 'no-reply@localhost', name: 'Patchwell' });
  t.match(release.html, /Support by Patchwell/);

  t.equal(
    await app.db.transaction((trx) =>
      mailer.brandFor(trx, 'tickets.escalated', { orgId: direct.organization.id, ticketRef: ticketId }),
    ),
    null,
    'escalations go to the team',
  );
  t.equal(
    await app.db.transaction((trx) => mailer.brandFor(trx, 'fixes.release_notice', { orgId: direct.organization.id })),
    null,
    'no workspace, no brand',
  );
  t.equal(
    await app.db.transaction((trx) =>
      mailer.brandFor(trx, 'fixes.release_notice', { orgId: direct.organization.id, workspaceId: client.id }),
    ),
    null,
    "another organization's workspace is not looked up",
  );
});

t.test("a direct customer's profile gives its name and look; its sender only on a verified domain", async (t) => {
  const direct = await signUp(app, { orgName: 'Acme' });
  const ws = await newWorkspace(app, direct, 'Acme web');
  await newProfile(app, direct, {
    name: 'Acme',
    primary_color: '#14532d',
    sender_name: 'Acme Help',
    sender_email: 'help@acme.test',
  });
  const r = await releaseNotice({ orgId: direct.organization.id, workspaceId: ws.id }, 'en');
  t.same(
    r.from,
    { address: 'no-reply@localhost', name: 'Acme Help' },
    "the brand's name at the service's address: acme.test is not verified",
  );
  t.match(r.html, /background:#14532d;/);
  t.match(r.html, /<strong data-testid="brand-name"[^>]*>Acme</);
  t.match(r.html, /Support by Patchwell/);
});
