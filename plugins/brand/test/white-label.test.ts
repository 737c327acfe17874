// White label for an agency's client workspaces: the brand directory the inbox reads (email
// domains under the brand profile, white-label readiness), WorkspaceBrand.white_label_missing,
// and the white-label guard the tickets plugin calls before a draft is sent: it refuses a draft
// from a client workspace that is not ready (listing what is missing) and otherwise lets the
// inbox's sending choice decide the From address.
import t from 'tap';
import { signUp } from '../../../test/helpers/accounts.js';
import type { Schema } from '../../../test/helpers/api-types.js';
import { startDns } from '../../../test/helpers/dns-server.js';
import {
  call,
  checkoutTicket,
  newProfile,
  newWorkspace,
  setOrg,
  startBrand,
  uid,
  verifyStatusDomain,
} from './helpers.js';

const dns = await startDns();
t.teardown(() => dns.close());
const app = await startBrand(t, dns.server);
const owner = await signUp(app, { orgName: 'Pixel Agency', organizationType: 'agency' });
await setOrg(app, owner, { plan: 'agency' });
const client = await newWorkspace(app, owner, 'Client shop', { client_name: 'Client Co' });
const internal = await newWorkspace(app, owner, 'Agency site');
const base = `client-${uid()}.test`;

async function draftFor(workspaceId: string): Promise<{ ticketId: string; draftId: string }> {
  const ticketId = await checkoutTicket(app, owner.organization.id, workspaceId);
  const draft = await call(app, owner, 'POST', `/v1/tickets/${ticketId}/drafts`, {
    kind: 'reply',
    body_md: 'We are on it.',
  });
  if (draft.status !== 201) throw new Error(`draft: ${draft.status} ${draft.payload}`);
  return { ticketId, draftId: draft.body.id };
}
const send = (d: { ticketId: string; draftId: string }) =>
  call(app, owner, 'POST', `/v1/tickets/${d.ticketId}/drafts/${d.draftId}/send`, {});
async function brandOf(id: string): Promise<Schema<'WorkspaceBrand'>> {
  const res = await call(app, owner, 'GET', '/v1/brand');
  if (res.status !== 200) throw new Error(`brand: ${res.status} ${res.payload}`);
  return res.body.workspaces.find((w) => w.id === id)!;
}
/** The stored reply to the ticket (mail_messages). */
const sentReply = async (ticketId: string) =>
  (await app.db('mail_messages').where({ ticket_ref: ticketId, template: 'tickets.reply' }).first()) as {
    from_address: string;
  };

t.test('a client workspace that is not white-label ready cannot send; the answer lists what is missing', async (t) => {
  t.same((await brandOf(client.id)).white_label_missing, [
    'brand_profile',
    'status_domain',
    'badge_removal',
    'sending_domain',
  ]);
  t.same((await brandOf(internal.id)).white_label_missing, [], "the agency's own workspace is not white-labelled");
  const d = await draftFor(client.id);
  const res = await send(d);
  t.equal(res.status, 409);
  t.match(res.body, {
    code: 'white_label_not_ready',
    details: {
      workspace_id: client.id,
      missing: ['brand_profile', 'status_domain', 'badge_removal', 'sending_domain'],
      message_it: /manca/,
    },
  });
  t.equal(
    (await app.db('mail_messages').where({ ticket_ref: d.ticketId, template: 'tickets.reply' })).length,
    0,
    'nothing was sent',
  );
  const draft = (await app.db('ticket_drafts').where({ id: d.draftId }).first()) as { status: string };
  t.equal(draft.status, 'draft');
});

t.test("other workspaces go through the inbox's sending choice", async (t) => {
  const d = await draftFor(internal.id);
  const res = await send(d);
  t.equal(res.status, 200);
  t.equal((await sentReply(d.ticketId)).from_address, 'no-reply@localhost', 'the default sender');
});

t.test(
  "once the brand, status domain, badge and sending domain are ready, the draft leaves from the brand's sender",
  async (t) => {
    const profile = await newProfile(app, owner, { name: 'Client Co', primary_color: '#0f766e' });
    t.same((await brandOf(client.id)).white_label_missing, ['status_domain', 'badge_removal', 'sending_domain']);

    await setOrg(app, owner, { badge_removal_addon: true });
    await call(app, owner, 'PATCH', `/v1/brand/profiles/${profile.id}`, { show_badge: false });
    t.match(
      (await verifyStatusDomain(app, owner, dns, profile.id, `status.${base}`)).body.profile?.status_domain_state,
      { verified: true },
    );
    t.same((await brandOf(client.id)).white_label_missing, ['sending_domain']);

    // The sending domain is the inbox's: registered for the workspace, it lands on the brand profile.
    const sending = `mail.${base}`;
    const reg = await call(app, owner, 'POST', '/v1/domains', {
      workspace_id: client.id,
      purpose: 'sending',
      domain: sending,
    });
    t.equal(reg.status, 201);
    t.match(
      reg.body,
      { brand_profile_id: profile.id, scope: 'organization' },
      'the brand directory keys the domain on the effective profile',
    );
    t.same((await brandOf(client.id)).white_label_missing, ['domain_verification', 'sender_email']);
    dns.publish(reg.body.records);
    t.match((await call(app, owner, 'POST', `/v1/domains/${profile.id}/sending/verify`)).body, { status: 'verified' });
    t.equal(
      (
        await call(app, owner, 'PATCH', `/v1/domains/${profile.id}/sending/sender`, {
          sender_email: `help@${sending}`,
          sender_name: 'Client Co Support',
        })
      ).status,
      200,
    );

    t.same((await brandOf(client.id)).white_label_missing, []);
    const p = (await call(app, owner, 'GET', `/v1/brand/profiles/${profile.id}`)).body;
    t.match(p, { custom_domain: sending, domain_verified_at: /Z$/, show_badge: false });
    t.ok(p.email_dns_records.length >= 3, 'the email records are listed');
    t.ok(
      p.domain_dns_records.some((r) => r.purpose === 'status_page'),
      'with the status records',
    );
    t.match((await call(app, owner, 'GET', `/v1/channels/${client.id}`)).body.sending, {
      kind: 'white_label',
      missing: [],
    });

    const d = await draftFor(client.id);
    const res = await send(d);
    t.equal(res.status, 200);
    t.equal((await sentReply(d.ticketId)).from_address, `help@${sending}`, "sent from the brand's verified sender");
  },
);

t.test('losing a requirement blocks sending again', async (t) => {
  await setOrg(app, owner, { badge_removal_addon: false });
  t.same((await brandOf(client.id)).white_label_missing, ['badge_removal']);
  const res = await send(await draftFor(client.id));
  t.equal(res.status, 409);
  t.same(res.body.details?.missing, ['badge_removal']);
});
