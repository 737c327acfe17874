import t from 'tap';
import type { Knex } from 'knex';
import type { SubscriberService } from '../services/subscriber-service.js';
import { call, openTicket, world } from './helpers.js';
import { oneClickUnsubscribe } from '../../../test/helpers/mail.js';

/** What a status page shows: its public state (the badge, not the stylesheet) and its release line. */
async function statusPage(app: Awaited<ReturnType<typeof world>>['app'], url: string) {
  const res = await app.server.inject({ method: 'GET', url: new URL(url).pathname });
  return {
    code: res.statusCode,
    state: /data-state="([a-z_]+)" data-testid="public-state"/.exec(res.payload)?.[1],
    release: /data-testid="release">([^<]*)</.exec(res.payload)?.[1],
  };
}

t.test("a duplicate's status page follows its original until the original is released", async (t) => {
  const { app, owner, workspace } = await world(t);
  const orgId = owner.organization.id;
  const original = await openTicket(app, orgId, workspace.id, { customerEmail: 'ada@example.com' });
  const dup = await openTicket(app, orgId, workspace.id, { customerEmail: 'bob@example.com' });
  const dupUrl = (await call(app, owner, 'GET', `/v1/tickets/${dup.id}`)).body.public_status_url;

  t.equal(
    (
      await call(app, owner, 'POST', `/v1/tickets/${dup.id}/close`, {
        reason: 'duplicate',
        duplicate_of_ticket_id: original.id,
      })
    ).status,
    200,
  );
  t.match(
    await statusPage(app, dupUrl),
    { code: 200, state: 'in_analysis', release: undefined },
    'closed as a duplicate is not resolved: the original is still being looked at',
  );
  t.equal(
    (await call(app, owner, 'POST', `/v1/tickets/${original.id}/escalate`, { reason: 'needs a person' })).status,
    200,
  );
  t.match(await statusPage(app, dupUrl), { state: 'team_review' }, 'it moves with the original');
  t.match(await app.db('ticket_subscribers').where({ ticket_id: original.id }), [
    { email: 'bob@example.com', source: 'duplicate', thread_ticket_id: dup.id },
  ]);

  // The original's fix released (the release step writes the version on both): resolved, with the version.
  await app
    .db('tickets')
    .where({ id: dup.id })
    .update({ resolved_version: '1.4.2', released_at: new Date('2026-01-05T10:00:00Z') });
  t.match(await statusPage(app, dupUrl), {
    state: 'resolved',
    release: /^The fix was released in version 1\.4\.2 on 5 January 2026\.$/,
  });

  // A ticket closed as a duplicate of one released already is resolved at once, with its version.
  await app
    .db('tickets')
    .where({ id: original.id })
    .update({ resolved_version: '1.4.2', released_at: new Date('2026-01-05T10:00:00Z') });
  const late = await openTicket(app, orgId, workspace.id, { customerEmail: 'carol@example.com' });
  t.equal(
    (
      await call(app, owner, 'POST', `/v1/tickets/${late.id}/close`, {
        reason: 'duplicate',
        duplicate_of_ticket_id: original.id,
      })
    ).status,
    200,
  );
  t.match(await app.db('tickets').where({ id: late.id }).first(), { resolved_version: '1.4.2' });
  t.match(await statusPage(app, (await call(app, owner, 'GET', `/v1/tickets/${late.id}`)).body.public_status_url), {
    state: 'resolved',
    release: /1\.4\.2/,
  });
});

t.test('the unsubscribe link of a notice: GET asks, POST stops; forged or foreign tokens are no page', async (t) => {
  const { app, owner, workspace } = await world(t, {}, { name: 'Negozio', client_name: 'Negozio Srl', locale: 'it' });
  const db = app.db as Knex;
  const subscribers = app.container.resolve<SubscriberService>('subscriberService');
  const tk = await openTicket(app, owner.organization.id, workspace.id, {
    customerEmail: 'mario@example.it',
    language: 'it',
  });
  t.equal(
    (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/subscribers`, { email: 'Luisa@Example.it' })).status,
    201,
  );
  /** When the subscriber of the ticket unsubscribed (its row). */
  const unsubscribedAt = async () =>
    ((await db('ticket_subscribers').where({ ticket_id: tk.id }).first()) as { unsubscribed_at: Date | null })
      .unsubscribed_at;

  const link = subscribers.unsubscribeLink(tk.id, 'luisa@example.it');
  const url = new URL(link.url);
  t.equal(url.origin, 'http://localhost:3000');
  t.notMatch(url.pathname, /luisa|example/i, 'the link names no address');
  t.same(
    link.headers,
    { 'List-Unsubscribe': `<${url.href}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    'the header carries the same link',
  );

  const ask = await app.server.inject({ method: 'GET', url: url.pathname });
  t.equal(ask.statusCode, 200);
  t.match(ask.payload, /Interrompi le email/, "in the ticket's language");
  t.match(ask.payload, new RegExp(`<form method="post" action="${url.pathname.replace(/\./g, '\\.')}">`));
  t.match(ask.headers['content-security-policy'], /form-action 'self'/);
  t.equal(await unsubscribedAt(), null, 'a GET changes nothing');

  // A mail client's one-click (RFC 8058), then the page's button again: idempotent.
  const click = await oneClickUnsubscribe(app, url.pathname);
  t.match(click, { statusCode: 200, payload: /non riceverai altre email/ });
  const first = await unsubscribedAt();
  t.ok(first, 'unsubscribed_at is set');
  t.equal((await app.server.inject({ method: 'POST', url: url.pathname })).statusCode, 200, 'again: fine');
  t.same(await unsubscribedAt(), first, 'unchanged');
  t.match(
    (await call(app, owner, 'GET', `/v1/tickets/${tk.id}/subscribers`)).body.items,
    [{ email_masked: /^l\*\*\*@/, unsubscribed_at: first?.toISOString() }],
    'the team sees it',
  );
  t.match(
    await db('audit_entries').where({ action: 'ticket.notices_unsubscribed', target_id: tk.id }),
    [{ actor_type: 'system' }],
    'audited once',
  );

  // The ticket's own customer stops the notices of their ticket.
  t.equal(
    (
      await app.server.inject({
        method: 'POST',
        url: new URL(subscribers.unsubscribeUrl(tk.id, 'mario@example.it')).pathname,
      })
    ).statusCode,
    200,
  );
  t.ok(
    ((await db('tickets').where({ id: tk.id }).first()) as { notices_unsubscribed_at: Date | null })
      .notices_unsubscribed_at,
  );

  for (const bad of [
    '/unsubscribe/nope',
    `/unsubscribe/${'v1.k1.'.padEnd(400, 'x')}`,
    '/unsubscribe/v1.k9.AAAA.BBBB.CCCC',
  ]) {
    t.equal((await app.server.inject({ method: 'GET', url: bad })).statusCode, 404, `${bad.slice(0, 30)}: 404`);
    t.equal((await app.server.inject({ method: 'POST', url: bad })).statusCode, 404);
  }
});

t.test('a reply with an address that is not one answers 422, never a 500, and sends nothing', async (t) => {
  const { app, owner, workspace } = await world(t, { server: { publicBaseUrl: 'http://127.0.0.1:3000' } });
  t.match(workspace.inbound_address, /@inbound\.localhost$/, 'an IP base URL gives the localhost mail domain');
  const tk = await openTicket(app, owner.organization.id, workspace.id, { customerEmail: 'not an address' });
  const draft = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, { kind: 'reply', body_md: 'Hello' });
  const sent = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${draft.body.id}/send`, {});
  t.match(sent, { status: 422, body: { code: 'invalid_mail', details: { errors: [{ path: 'to' }] } } });
  t.equal((await app.db('mail_messages').where({ ticket_ref: tk.id })).length, 0, 'nothing was queued');
  t.match(
    await app.db('ticket_drafts').where({ id: draft.body.id }).first(),
    { status: 'draft' },
    'the draft still waits',
  );

  const good = await openTicket(app, owner.organization.id, workspace.id, { customerEmail: 'jane@example.com' });
  const d2 = await call(app, owner, 'POST', `/v1/tickets/${good.id}/drafts`, { kind: 'reply', body_md: 'Hello' });
  t.equal(
    (await call(app, owner, 'POST', `/v1/tickets/${good.id}/drafts/${d2.body.id}/send`, {})).status,
    200,
    'on an IP base URL the reply goes out',
  );
  t.match(await app.db('mail_messages').where({ ticket_ref: good.id }).first(), {
    reply_to: /^shop-[a-z0-9]+\+t_[a-z0-9]{16}@inbound\.localhost$/,
    from_address: 'no-reply@localhost',
    message_id: /@inbound\.localhost>$/,
  });
});
