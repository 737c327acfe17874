import t from 'tap';
import { addMember } from '../../../test/helpers/accounts.js';
import { allPages } from '../../../test/helpers/call.js';
import type { Ticket } from '../models/index.js';
import { call, newWorkspace, openTicket, world, type Schema } from './helpers.js';

t.test('the ticket list: filters, sorts, keyset cursor, refusals', async (t) => {
  const { app, owner, workspace } = await world(t);
  const orgId = owner.organization.id;
  const second = await newWorkspace(app, owner, 'Second');

  // Ten tickets a minute apart, varied enough for every filter.
  const base = Date.now() - 60 * 60_000;
  const made: Ticket[] = [];
  for (let i = 0; i < 10; i++) {
    const tk = await openTicket(app, orgId, i % 3 === 0 ? second.id : workspace.id, {
      subject: i === 4 ? 'Invoice PDF is blank' : `Question number ${i}`,
      origin: i % 2 === 0 ? 'email' : 'widget',
      category: i < 3 ? 'bug' : 'usage',
      priority: i === 7 ? 'urgent' : 'normal',
      customerEmail: `customer${i}@example.com`,
      message: {
        from: `customer${i}@example.com`,
        bodyText: i === 5 ? 'The export button crashes Safari' : 'Hello',
        receivedAt: new Date(base + i * 60_000),
      },
    });
    made.push(tk);
  }
  const ids = (r: { body: Schema<'TicketPage'> }) => r.body.items.map((i) => i.id);
  await call(app, owner, 'POST', `/v1/tickets/${made[8].id}/escalate`, { reason: 'vip' });
  await call(app, owner, 'POST', `/v1/tickets/${made[9].id}/close`, { reason: 'spam' });

  await t.test('sorts: newest, oldest, updated, sla', async (t) => {
    const newest = await call(app, owner, 'GET', '/v1/tickets');
    t.equal(newest.status, 200, newest.payload);
    t.same(ids(newest), made.map((m) => m.id).reverse(), 'newest first by default');
    t.same(
      ids(await call(app, owner, 'GET', '/v1/tickets?sort=oldest')),
      made.map((m) => m.id),
    );
    const updated = ids(await call(app, owner, 'GET', '/v1/tickets?sort=updated'));
    t.same(updated.slice(0, 2), [made[9].id, made[8].id], 'latest change first');
    const sla = (await call(app, owner, 'GET', '/v1/tickets?sort=sla')).body.items;
    t.equal(sla[sla.length - 1].id, made[9].id, 'tickets without an SLA due time come last');
    const dues = sla.flatMap((i) => (i.sla_due_at ? [Date.parse(i.sla_due_at)] : []));
    t.same(
      dues,
      [...dues].sort((a, b) => a - b),
      'earliest due first',
    );
    t.match(newest.body.items[0], { workspace_name: 'Second', public_state: 'resolved' });
  });

  await t.test('filters: state[], origin[], category[], priority[], workspace_id, q', async (t) => {
    t.same(ids(await call(app, owner, 'GET', '/v1/tickets?state=escalated')), [made[8].id]);
    t.same(
      ids(await call(app, owner, 'GET', '/v1/tickets?state=escalated&state=closed')).sort(),
      [made[8].id, made[9].id].sort(),
      'repeated parameter',
    );
    t.same(ids(await call(app, owner, 'GET', '/v1/tickets?origin=widget&category=bug')), [made[1].id]);
    t.same(ids(await call(app, owner, 'GET', '/v1/tickets?priority=urgent')), [made[7].id]);
    t.same(
      ids(await call(app, owner, 'GET', `/v1/tickets?workspace_id=${second.id}&sort=oldest`)),
      [0, 3, 6, 9].map((i) => made[i].id),
    );
    t.same(ids(await call(app, owner, 'GET', '/v1/tickets?q=invoice')), [made[4].id], 'full text in the subject');
    t.same(ids(await call(app, owner, 'GET', '/v1/tickets?q=safari crashes')), [made[5].id], 'in the opening message');
    t.same(
      ids(await call(app, owner, 'GET', '/v1/tickets?q=customer3@example.com')),
      [made[3].id],
      'by customer address',
    );
    t.same(ids(await call(app, owner, 'GET', '/v1/tickets?q=nothing-matches-this')), []);
  });

  await t.test('keyset cursor walks every page in order, for each sort and with filters', async (t) => {
    for (const sort of ['newest', 'oldest', 'updated', 'sla']) {
      const all = ids(await call(app, owner, 'GET', `/v1/tickets?sort=${sort}&limit=200`));
      const seen = (await allPages(app, owner, `/v1/tickets?sort=${sort}&limit=3`)).flatMap(ids);
      t.same(seen, all, `${sort}: no gaps, no repeats`);
    }
    const first = await call(app, owner, 'GET', '/v1/tickets?origin=email&limit=2');
    const next = await call(app, owner, 'GET', `/v1/tickets?origin=email&limit=2&cursor=${first.body.next_cursor}`);
    t.same([...ids(first), ...ids(next)], ids(await call(app, owner, 'GET', '/v1/tickets?origin=email&limit=4')));
  });

  await t.test('refusals: unknown enum values, bad cursor, limit bounds', async (t) => {
    for (const q of [
      'state=lost',
      'origin=fax',
      'category=gossip',
      'priority=meh',
      'sort=random',
      'limit=0',
      'limit=201',
      'cursor=%%%',
    ]) {
      const res = await call(app, owner, 'GET', `/v1/tickets?${q}`);
      t.equal(res.status, 400, q);
      t.equal(res.body.code, 'invalid_request');
    }
    // Cursors that decode but name no real row: each a 400, never a database error.
    const forged = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const v of [
      ['2026-13-01 00:00:00+00', 'tkt_x'],
      ['2026-02-30 10:00:00+00', 'tkt_x'],
      ['2026-02-28 10:00:00+16', 'tkt_x'],
      ['2026-02-28 10:00:00+00', 42],
      [null, 'tkt_x'],
      ['2026-02-28 10:00:00+00', ''],
      ['2026-02-28 10:00:00+00'],
    ]) {
      const res = await call(app, owner, 'GET', `/v1/tickets?cursor=${forged(v)}`);
      t.equal(res.status, 400, `forged cursor ${JSON.stringify(v)}`);
      t.equal(res.body.message, 'cursor is not valid for this list');
    }
    const bad = await call(app, owner, 'GET', '/v1/tickets?state=triage&state=lost');
    t.match((bad.body.details?.errors as Array<{ path: string }>)[0].path, /^query\.state/);
  });

  await t.test('a member lists only the workspaces they can open', async (t) => {
    const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [second.id] });
    const res = await call(app, reviewer, 'GET', '/v1/tickets?limit=200');
    t.same(ids(res).sort(), [0, 3, 6, 9].map((i) => made[i].id).sort());
    const none = await addMember(app, owner, { role: 'client_viewer', workspaceIds: [] });
    t.same(ids(await call(app, none, 'GET', '/v1/tickets')), []);
  });

  await t.test(
    'the cursor keeps full precision: rows within one millisecond are neither skipped nor repeated',
    async (t) => {
      // Tickets written by SQL share now() to the microsecond; a millisecond cursor skipped them.
      // Three groups of equal timestamps, all within one millisecond.
      await app.db.raw(
        `update tickets set updated_at = timestamptz '2030-01-01 00:00:00.123456+00' - (ascii(right(id, 1)) % 3) * interval '1 microsecond' where org_id = ?`,
        [orgId],
      );
      const all = ids(await call(app, owner, 'GET', '/v1/tickets?sort=updated&limit=200'));
      t.equal(all.length, 10);
      const seen = (await allPages(app, owner, '/v1/tickets?sort=updated&limit=3')).flatMap(ids);
      t.same(seen, all, 'every ticket once, in order');
      t.match(
        (await call(app, owner, 'GET', '/v1/tickets?sort=updated&limit=1')).body.items[0].updated_at,
        /^2030-01-01T00:00:00\.12[0-3]Z$/,
        'timestamps leave as ISO strings with milliseconds',
      );
      for (const bad of [['not a time', 'tkt_x'], ['2030-01-01T00:00:00Z', 7], ['2030-01-01T00:00:00Z']]) {
        const res = await call(
          app,
          owner,
          'GET',
          `/v1/tickets?sort=updated&cursor=${Buffer.from(JSON.stringify(bad)).toString('base64url')}`,
        );
        t.equal(res.status, 400, `cursor ${JSON.stringify(bad)}`);
      }
    },
  );
});
