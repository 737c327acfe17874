import t from 'tap';
import { maskEmail } from '../services/mask.js';
import { call, openTicket, world } from './helpers.js';

t.test('masking', (t) => {
  t.equal(maskEmail('john@example.com'), 'j***@e***.com');
  t.equal(maskEmail('Jane.Doe+x@mail.example.co.uk'), 'J***@m***.uk');
  t.equal(maskEmail('a@b'), 'a***@b***');
  t.equal(maskEmail('nonsense'), '***');
  t.end();
});

t.test('subscribers: list, add, delete, masked; duplicates subscribe to the original', async (t) => {
  const { app, owner, workspace } = await world(t);
  const orgId = owner.organization.id;

  await t.test('the team adds and removes subscribers; addresses are always masked', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);
    const added = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/subscribers`, {
      email: 'John.Smith@Example.com',
    });
    t.equal(added.status, 201, added.payload);
    t.match(added.body, {
      ticket_id: tk.id,
      org_id: orgId,
      email_masked: 'j***@e***.com',
      source: 'status_page',
      thread_ticket_id: null,
      user_hash: null,
      notified_at: null,
      unsubscribed_at: null,
    });
    t.notOk(JSON.stringify(added.body).toLowerCase().includes('john.smith'), 'the address never leaves in full');

    const dup = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/subscribers`, { email: 'john.smith@example.com' });
    t.equal(dup.status, 409);
    t.equal(dup.body.code, 'already_subscribed');
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/subscribers`, { email: 'jane.doe@example.com' })).body.code,
      'already_subscribed',
      'the customer is not subscribed to their own ticket',
    );
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/subscribers`, { email: 'not an address' })).status,
      400,
    );

    const list = await call(app, owner, 'GET', `/v1/tickets/${tk.id}/subscribers`);
    t.equal(list.status, 200);
    t.same(
      list.body.items.map((s) => s.email_masked),
      ['j***@e***.com'],
    );
    t.notOk(list.payload.includes('@example.com'), 'no full address in the list');
    t.equal(
      (
        await app
          .db('outbox')
          .where({ type: 'tickets.subscriber_added' })
          .whereRaw(`payload->>'ticket_id' = ?`, [tk.id])
      ).length,
      1,
    );

    const removed = await call(app, owner, 'DELETE', `/v1/tickets/${tk.id}/subscribers/${added.body.id}`);
    t.equal(removed.status, 200);
    t.same(removed.body, { ok: true });
    t.same((await call(app, owner, 'GET', `/v1/tickets/${tk.id}/subscribers`)).body.items, []);
    t.equal((await call(app, owner, 'DELETE', `/v1/tickets/${tk.id}/subscribers/${added.body.id}`)).status, 404);
    t.equal(
      (
        await app
          .db('audit_entries')
          .whereIn('action', ['ticket.subscriber_added', 'ticket.subscriber_removed'])
          .where({ target_id: tk.id })
      ).length,
      2,
    );
  });

  await t.test('closing as a duplicate subscribes its customer to the original', async (t) => {
    const original = await openTicket(app, orgId, workspace.id, {
      subject: 'Export is broken',
      customerEmail: 'first@example.com',
    });
    const copy = await openTicket(app, orgId, workspace.id, {
      subject: 'Export does not work',
      customerEmail: 'second.person@example.org',
    });
    const copyOfCopy = await openTicket(app, orgId, workspace.id, {
      subject: 'Export again',
      customerEmail: 'third@example.net',
    });

    const closed = await call(app, owner, 'POST', `/v1/tickets/${copy.id}/close`, {
      reason: 'duplicate',
      duplicate_of_ticket_id: original.id,
    });
    t.equal(closed.status, 200, closed.payload);
    t.match(closed.body, { state: 'closed', duplicate_of_ticket_id: original.id });

    const subs = await call(app, owner, 'GET', `/v1/tickets/${original.id}/subscribers`);
    t.equal(subs.body.items.length, 1);
    t.match(subs.body.items[0], { source: 'duplicate', thread_ticket_id: copy.id, email_masked: 's***@e***.org' });

    // A duplicate of the duplicate points at the original itself.
    const chained = await call(app, owner, 'POST', `/v1/tickets/${copyOfCopy.id}/close`, {
      reason: 'duplicate',
      duplicate_of_ticket_id: copy.id,
    });
    t.equal(chained.body.duplicate_of_ticket_id, original.id);
    t.equal((await call(app, owner, 'GET', `/v1/tickets/${original.id}/subscribers`)).body.items.length, 2);

    const events = await app
      .db('outbox')
      .where({ type: 'tickets.subscriber_added' })
      .whereRaw(`payload->>'ticket_id' = ?`, [original.id]);
    t.equal(events.length, 2);
    t.equal(
      (
        await call(app, owner, 'POST', `/v1/tickets/${original.id}/close`, {
          reason: 'duplicate',
          duplicate_of_ticket_id: 'tkt_missing',
        })
      ).body.code,
      'invalid_duplicate',
    );
  });
});
