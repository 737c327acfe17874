import t from 'tap';
import type { AuditEntry } from '../../../core/audit/audit-writer.js';
import { addMember, signUp, TEST_PASSWORD } from '../../../test/helpers/accounts.js';
import type { ClosureService } from '../services/closure.js';
import { emailIn, json, privacyApp, settle, workspace } from './helpers.js';

async function orgRows(app: Awaited<ReturnType<typeof privacyApp>>, orgId: string): Promise<Record<string, number>> {
  const { rows } = await app.db.raw<{ rows: Array<{ t: string }> }>(
    `select table_name as t from information_schema.columns where table_schema = current_schema() and column_name = 'org_id'`,
  );
  const out: Record<string, number> = {};
  for (const { t } of rows) {
    const [row] = await app.db(t).where('org_id', orgId).count<Array<{ n: string | number }>>('* as n');
    if (Number(row.n) > 0) out[t] = Number(row.n);
  }
  return out;
}

t.test(
  'deleting a ticket removes its messages, files, subscribers and status page; another organization gets 404',
  async (t) => {
    const app = await privacyApp(t);
    const owner = await signUp(app, { orgName: 'Deleters' });
    const ws = await workspace(app, owner);
    const ticketId = await emailIn(app, ws.inbound_address, 'Ada <ada@example.org>', 'Please delete me later.');
    const keep = await emailIn(app, ws.inbound_address, 'Bob <bob@example.org>', 'Keep me.');
    t.equal(
      (
        await app.server.inject({
          method: 'POST',
          url: `/v1/tickets/${ticketId}/subscribers`,
          payload: { email: 'carol@example.org' },
          ...owner.auth,
        })
      ).statusCode,
      201,
    );
    await app.db('ticket_files').insert({
      id: 'fil_privacy_1',
      org_id: owner.organization.id,
      workspace_id: ws.id,
      ticket_id: ticketId,
      filename: 'shot.png',
      content_type: 'image/png',
      size: 3,
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      content: Buffer.from('abc'),
      created_at: new Date(),
    });
    await settle(app);
    const status = await app.db('tickets').where({ id: ticketId }).first<{
      public_token_hash: string;
    }>('public_token_hash');
    t.ok(status.public_token_hash);

    const stranger = await signUp(app, { orgName: 'Others' });
    t.equal(
      (await app.server.inject({ method: 'DELETE', url: `/v1/privacy/tickets/${ticketId}`, ...stranger.auth }))
        .statusCode,
      404,
      'another organization’s ticket is not found',
    );
    const reviewer = await addMember(app, owner, { role: 'reviewer' });
    t.equal(
      (await app.server.inject({ method: 'DELETE', url: `/v1/privacy/tickets/${ticketId}`, ...reviewer.auth }))
        .statusCode,
      403,
    );

    const res = await app.server.inject({ method: 'DELETE', url: `/v1/privacy/tickets/${ticketId}`, ...owner.auth });
    t.equal(res.statusCode, 200, res.payload);
    const body = json<{ ticket_id: string; deleted: Record<string, number> }>(res);
    t.equal(body.deleted.tickets, 1);
    t.ok(body.deleted.ticket_messages >= 1 && body.deleted.ticket_subscribers >= 1, JSON.stringify(body.deleted));
    for (const table of ['ticket_messages', 'ticket_subscribers', 'ticket_files', 'ticket_drafts', 'inbox_emails']) {
      const [row] = await app.db(table).where({ ticket_id: ticketId }).count<
        Array<{
          n: string | number;
        }>
      >('* as n');
      t.equal(Number(row.n), 0, `no ${table} left`);
    }
    t.equal(
      (await app.server.inject({ method: 'GET', url: `/v1/tickets/${ticketId}`, ...owner.auth })).statusCode,
      404,
    );
    t.equal(
      (await app.server.inject({ method: 'GET', url: `/v1/tickets/${keep}`, ...owner.auth })).statusCode,
      200,
      'other tickets stay',
    );
    t.equal(
      (await app.server.inject({ method: 'DELETE', url: `/v1/privacy/tickets/${ticketId}`, ...owner.auth })).statusCode,
      404,
      'gone',
    );
    const entry = (await app
      .db('audit_entries')
      .where({ org_id: owner.organization.id, action: 'ticket.deleted' })
      .first()) as { target_id: string; actor_id: string };
    t.match(entry, { target_id: ticketId, actor_type: 'user', actor_id: owner.user.id }, 'audited');

    // An API token's deletion is recorded as the token (with its owner's email), not as the person.
    const tokenRes = await app.server.inject({
      method: 'POST',
      url: '/v1/tokens',
      payload: { name: 'cleanup', role: 'admin' },
      ...owner.auth,
    });
    t.equal(tokenRes.statusCode, 201, tokenRes.payload);
    const token = json<{ id: string; token: string }>(tokenRes);
    const byToken = await app.server.inject({
      method: 'DELETE',
      url: `/v1/privacy/tickets/${keep}`,
      headers: { authorization: `Bearer ${token.token}` },
    });
    t.equal(byToken.statusCode, 200, byToken.payload);
    const tokenEntry = await app
      .db<AuditEntry>('audit_entries')
      .where({ org_id: owner.organization.id, action: 'ticket.deleted', target_id: keep })
      .first();
    t.match(tokenEntry, { actor_type: 'token', actor_id: token.id, actor_email: owner.email }, 'audited as the token');
  },
);

t.test('closing an organization stops its sessions and tokens at once; the purge deletes every row', async (t) => {
  const app = await privacyApp(t);
  const owner = await signUp(app, { orgName: 'Closing' });
  const ws = await workspace(app, owner);
  await emailIn(app, ws.inbound_address, 'Dan <dan@example.org>', 'Hello');
  const admin = await addMember(app, owner, { role: 'admin' });
  const tokenRes = await app.server.inject({
    method: 'POST',
    url: '/v1/tokens',
    payload: { name: 'ci', role: 'admin' },
    ...owner.auth,
  });
  t.equal(tokenRes.statusCode, 201);
  const bearer = { authorization: `Bearer ${json<{ token: string }>(tokenRes).token}` };
  t.equal((await app.server.inject({ method: 'GET', url: '/v1/orgs/current', headers: bearer })).statusCode, 200);
  const survivor = await signUp(app, { orgName: 'Survivor' });
  await settle(app);

  t.equal(
    (
      await app.server.inject({
        method: 'POST',
        url: '/v1/privacy/closure',
        payload: { confirm: owner.organization.slug },
        ...admin.auth,
      })
    ).statusCode,
    403,
    'owners only',
  );
  const wrong = await app.server.inject({
    method: 'POST',
    url: '/v1/privacy/closure',
    payload: { confirm: 'not-the-slug' },
    ...owner.auth,
  });
  t.equal(wrong.statusCode, 422);
  t.equal(json(wrong).code, 'confirmation_mismatch');

  const res = await app.server.inject({
    method: 'POST',
    url: '/v1/privacy/closure',
    payload: { confirm: owner.organization.slug, reason: 'moving on' },
    ...owner.auth,
  });
  t.equal(res.statusCode, 200, res.payload);
  const closed = json<{ purge_after: string; closed_at: string }>(res);
  const days = (Date.parse(closed.purge_after) - Date.parse(closed.closed_at)) / 86_400_000;
  t.ok(days <= 30 && days > 29, 'data deleted within 30 days');

  t.equal(
    (await app.server.inject({ method: 'GET', url: '/v1/orgs/current', ...owner.auth })).statusCode,
    401,
    'the owner’s session stopped',
  );
  t.equal(
    (await app.server.inject({ method: 'GET', url: '/v1/orgs/current', ...admin.auth })).statusCode,
    401,
    'every member’s session stopped',
  );
  t.equal(
    (await app.server.inject({ method: 'GET', url: '/v1/orgs/current', headers: bearer })).statusCode,
    401,
    'API tokens stopped',
  );
  const login = await app.server.inject({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email: owner.email, password: TEST_PASSWORD },
  });
  t.equal(login.statusCode, 403, 'no new sign-in');
  t.equal(
    (await app.server.inject({ method: 'GET', url: '/v1/orgs/current', ...survivor.auth })).statusCode,
    200,
    'other organizations carry on',
  );
  const entry = (await app
    .db('audit_entries')
    .where({ org_id: owner.organization.id, action: 'organization.closed' })
    .first()) as { actor_id: string };
  t.equal(entry.actor_id, owner.user.id, 'audited');

  // The purge: nothing before the date, everything after it.
  const closure = app.container.resolve<ClosureService>('privacyClosure');
  t.equal(await closure.purgeDue(), 0);
  t.ok(Object.keys(await orgRows(app, owner.organization.id)).length > 3);
  await app
    .db('privacy_closures')
    .where({ org_id: owner.organization.id })
    .update({ purge_after: new Date(Date.now() - 1000) });
  const survivorBefore = await orgRows(app, survivor.organization.id);
  t.equal(await closure.purgeDue(), 1);
  // Only the closure record stays (dates and ids, no personal data): proof that the purge ran.
  t.same(
    await orgRows(app, owner.organization.id),
    { privacy_closures: 1 },
    'no row of the organization in any other table',
  );
  t.equal(await app.db('organizations').where({ id: owner.organization.id }).first(), undefined);
  t.same(await orgRows(app, survivor.organization.id), survivorBefore, 'the other organization is untouched');
  t.equal(await closure.purgeDue(), 0, 'once');
});
