// The domains section against a local DNS server (dns2): registration through the channel
// adapter, record and domain statuses from real lookups, the sender, the Channel's sending
// section, receiving-domain routing, tenancy and roles.
import t from 'tap';
import type { OutboxChannelAdapter } from '../../../adapters/mail-outbox/index.js';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { startDns } from '../../../test/helpers/dns-server.js';
import { call, deliverOne, eml, uid, world, type Schema } from './helpers.js';

const dns = await startDns();
t.teardown(() => dns.close());
const { app, owner, workspace } = await world(t, {
  dnsServers: [dns.server],
  dnsTimeoutMs: 1000,
  domainRefreshSeconds: 3600,
});
const outbox = app.container.resolve<OutboxChannelAdapter>('channelAdapter');
const base = `acme-${uid()}.test`;
const sendingName = `mail.${base}`;
const receivingName = `in.${base}`;
const key = workspace.id;
const channel = async () => (await call(app, owner, 'GET', `/v1/channels/${workspace.id}`)).body;
const verify = async (purpose = 'sending') =>
  (await call(app, owner, 'POST', `/v1/domains/${key}/${purpose}/verify`)).body;
const byRecord = (d: Schema<'Domain'>) =>
  Object.fromEntries(d.records.map((r) => [String(r.record), r.status] as const));

t.test('plans without custom domains answer 402', async (t) => {
  const res = await call(app, owner, 'POST', '/v1/domains', {
    workspace_id: workspace.id,
    purpose: 'sending',
    domain: sendingName,
  });
  t.equal(res.status, 402);
  t.match(res.body, { code: 'plan_limit_reached', details: { reason: 'custom_domain_in_plan' } });
  t.equal((await channel()).custom_domain_in_plan, false);
  await app.db('organizations').where({ id: owner.organization.id }).update({ plan: 'growth' });
});

t.test('a sending domain is registered with the provider and answers the records to publish', async (t) => {
  const res = await call(app, owner, 'POST', '/v1/domains', {
    workspace_id: workspace.id,
    purpose: 'sending',
    domain: sendingName.toUpperCase(),
  });
  t.equal(res.status, 201);
  t.match(res.body, {
    name: sendingName,
    purpose: 'sending',
    brand_profile_id: workspace.id,
    scope: 'workspace',
    status: 'pending',
    sender_email: null,
    sender_name: null,
    verified_at: null,
    last_checked_at: /Z$/,
    created_at: /Z$/,
  });
  t.same(
    res.body.records.map((r) => [r.record, r.type, r.name, r.host, r.required, r.status]),
    [
      ['spf', 'TXT', sendingName, 'mail', true, 'pending'],
      ['dkim', 'CNAME', `patchwell._domainkey.${sendingName}`, 'patchwell._domainkey.mail', true, 'pending'],
      ['return_path', 'CNAME', `bounce.${sendingName}`, 'bounce.mail', true, 'pending'],
      ['dmarc', 'TXT', `_dmarc.${sendingName}`, '_dmarc.mail', false, 'pending'],
    ],
  );
  const ch = await channel();
  t.match(ch.sending, {
    kind: 'not_ready',
    from: 'Patchwell <no-reply@localhost>',
    missing: ['domain_verification', 'sender_email'],
  });
  t.same(ch.sending_domain, res.body);
  t.ok(await app.db('audit_entries').where({ action: 'domain.registered' }).first(), 'audited');
});

t.test(
  'verify looks the records up: pending, partially verified, partially failed, verified, temporary failure',
  async (t) => {
    t.match(await verify(), { status: 'pending' }, 'nothing published yet');
    dns.txt.set(sendingName, ['v=spf1 include:_spf.google.com include:_spf.localhost ~all']);
    dns.cname.set(`patchwell._domainkey.${sendingName}`, 'patchwell._domainkey.localhost');
    let d = await verify();
    t.equal(d.status, 'partially_verified');
    t.same(byRecord(d), { spf: 'verified', dkim: 'verified', return_path: 'pending', dmarc: 'pending' });
    dns.cname.set(`bounce.${sendingName}`, 'bounce.elsewhere.example');
    d = await verify();
    t.equal(d.status, 'partially_failed');
    t.equal(byRecord(d).return_path, 'failed', 'another target is published');
    dns.cname.set(`bounce.${sendingName}`, 'bounce.localhost');
    d = await verify();
    t.equal(d.status, 'verified', 'DMARC is recommended, not required');
    t.match(d.verified_at, /Z$/);
    dns.failing.add(sendingName);
    d = await verify();
    t.equal(d.status, 'temporary_failure');
    t.equal(byRecord(d).spf, 'temporary_failure');
    t.equal(d.verified_at, null);
    dns.failing.delete(sendingName);
  },
);

t.test('a stale domain is refreshed when read', async (t) => {
  await app
    .db('inbox_domains')
    .where({ name: sendingName })
    .update({ last_checked_at: new Date(Date.now() - 2 * 3600_000) });
  const d = (await call(app, owner, 'GET', `/v1/domains/${key}/sending`)).body;
  t.equal(d.status, 'verified');
  t.ok(Date.now() - Date.parse(d.last_checked_at ?? '') < 60_000, 'checked now');
  const again = (await call(app, owner, 'GET', `/v1/domains/${key}/sending`)).body;
  t.equal(again.last_checked_at, d.last_checked_at, 'a fresh one is not asked again');
});

t.test('the sender: at the domain; then replies leave from it (kind custom)', async (t) => {
  const bad = await call(app, owner, 'PATCH', `/v1/domains/${key}/sending/sender`, {
    sender_email: 'support@gmail.com',
  });
  t.equal(bad.status, 422);
  t.equal(bad.body.code, 'sender_domain_mismatch');
  const ok = await call(app, owner, 'PATCH', `/v1/domains/${key}/sending/sender`, {
    sender_email: `Support@${sendingName}`,
    sender_name: 'Acme Support',
  });
  t.match(ok.body, { sender_email: `support@${sendingName}`, sender_name: 'Acme Support' });
  t.match((await channel()).sending, { kind: 'custom', from: `Acme Support <support@${sendingName}>`, missing: [] });

  const opened = await deliverOne(
    app,
    eml({ to: workspace.inbound_address, subject: 'Custom sender please' }),
    workspace.inbound_address,
  );
  const draft = await call(app, owner, 'POST', `/v1/tickets/${opened.ticket_id}/drafts`, {
    kind: 'reply',
    body_md: 'Done.',
  });
  await call(app, owner, 'POST', `/v1/tickets/${opened.ticket_id}/drafts/${draft.body.id}/send`, {});
  const mail = await outbox.waitFor((m) => m.subject === 'Re: Custom sender please', 10_000);
  t.same(
    mail.email.from,
    { address: `support@${sendingName}`, name: 'Acme Support' },
    'the reply is sent from the verified domain',
  );
});

t.test('one domain per purpose; a name registered elsewhere or our own is refused', async (t) => {
  t.equal(
    (
      await call(app, owner, 'POST', '/v1/domains', {
        workspace_id: workspace.id,
        purpose: 'sending',
        domain: `other.${base}`,
      })
    ).body.code,
    'domain_exists',
  );
  const other = await signUp(app, { orgName: 'Rival' });
  await app.db('organizations').where({ id: other.organization.id }).update({ plan: 'growth' });
  const ws = (await call(app, other, 'POST', '/v1/workspaces', { name: 'Rival shop' })).body;
  t.equal(
    (await call(app, other, 'POST', '/v1/domains', { workspace_id: ws.id, purpose: 'sending', domain: sendingName }))
      .body.code,
    'domain_taken',
  );
  t.equal(
    (
      await call(app, other, 'POST', '/v1/domains', {
        workspace_id: ws.id,
        purpose: 'receiving',
        domain: 'x.inbound.localhost',
      })
    ).body.code,
    'domain_not_allowed',
  );
  t.equal(
    (
      await call(app, other, 'POST', '/v1/domains', {
        workspace_id: ws.id,
        purpose: 'receiving',
        domain: 'not a domain',
      })
    ).body.code,
    'domain_not_allowed',
  );
  t.equal(
    (
      await call(app, other, 'POST', '/v1/domains', {
        workspace_id: workspace.id,
        purpose: 'receiving',
        domain: `in.${uid()}.test`,
      })
    ).status,
    404,
    "another organization's workspace",
  );
  t.equal((await call(app, other, 'GET', `/v1/domains/${key}/sending`)).status, 404);
  t.equal((await call(app, other, 'GET', `/v1/domains?workspace_id=${workspace.id}`)).status, 404);
  t.same((await call(app, other, 'GET', '/v1/domains')).body.items, []);
});

t.test(
  'a receiving domain routes its mail to the workspace and gives the white-label address once verified',
  async (t) => {
    const res = await call(app, owner, 'POST', '/v1/domains', {
      workspace_id: workspace.id,
      purpose: 'receiving',
      domain: receivingName,
    });
    t.equal(res.status, 201);
    t.same(
      res.body.records.map((r) => [r.type, r.name, r.value, r.priority, r.host]),
      [['MX', receivingName, 'mx.localhost', 10, 'in']],
    );
    const r = await deliverOne(
      app,
      eml({ to: `help@${receivingName}`, subject: 'Through our own domain' }),
      `help@${receivingName}`,
    );
    t.match(r, { status: 'processed', ticket_id: /^tkt_/ });
    t.equal((await channel()).white_label_address, null, 'not before the domain is verified');
    dns.mx.set(receivingName, [{ exchange: 'mx.localhost', priority: 10 }]);
    t.equal((await verify('receiving')).status, 'verified');
    t.equal((await channel()).white_label_address, `${workspace.inbound_address.split('@')[0]}@${receivingName}`);
    await call(app, owner, 'PATCH', `/v1/domains/${key}/receiving/sender`, { sender_email: `help@${receivingName}` });
    t.equal((await channel()).white_label_address, `help@${receivingName}`);
    const list = await call(app, owner, 'GET', `/v1/domains?workspace_id=${workspace.id}`);
    t.same(
      list.body.items.map((d) => d.purpose),
      ['sending', 'receiving'],
    );
  },
);

t.test('roles: owners and admins manage domains; members read those of their workspaces', async (t) => {
  const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [workspace.id] });
  const outsider = await addMember(app, owner, { role: 'client_viewer', workspaceIds: [] });
  t.equal((await call(app, reviewer, 'GET', `/v1/domains/${key}/sending`)).status, 200);
  t.equal((await call(app, reviewer, 'GET', '/v1/domains')).body.items.length, 2);
  for (const [method, url, payload] of [
    ['POST', '/v1/domains', { workspace_id: workspace.id, purpose: 'sending', domain: `x.${base}` }],
    ['POST', `/v1/domains/${key}/sending/verify`],
    ['PATCH', `/v1/domains/${key}/sending/sender`, { sender_name: 'X' }],
    ['DELETE', `/v1/domains/${key}/sending`],
  ] as const) {
    t.equal((await call(app, reviewer, method, url, payload)).status, 403, `${method} ${url}`);
  }
  t.equal(
    (await call(app, outsider, 'GET', `/v1/domains/${key}/sending`)).status,
    403,
    'a workspace the member cannot open',
  );
  t.same((await call(app, outsider, 'GET', '/v1/domains')).body.items, [], 'and it is not listed');
});

t.test('delete removes the domain; replies go back to the default sender', async (t) => {
  const res = await call(app, owner, 'DELETE', `/v1/domains/${key}/sending`);
  t.same(res.body, { ok: true });
  t.equal((await call(app, owner, 'GET', `/v1/domains/${key}/sending`)).status, 404);
  t.match((await channel()).sending, { kind: 'default', missing: [] });
  t.equal((await channel()).sending_domain, null);
  t.ok(await app.db('audit_entries').where({ action: 'domain.deleted' }).first());
});
