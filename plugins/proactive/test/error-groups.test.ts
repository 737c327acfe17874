import t from 'tap';
import { Outbox } from '../../../core/bus/outbox.js';
import { GroupWriter, type IncomingEvent } from '../services/group-writer.js';
import { browserStack, startProactive, type ProactiveHarness } from './helpers.js';

// One service for the whole file (each scenario signs up its own organization).
let h: ProactiveHarness;
t.before(async () => {
  h = await startProactive(t);
});

t.test('grouping: the same error with other numbers is one group, another in-app frame is another', async (t) => {
  const owner = await h.owner();
  const ws = await h.workspace(owner);
  const c = await h.endpoint(owner, ws.id);

  const sent = await h.ingest(c.id, c.token, [
    {
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'total') for order 42",
      stack: browserStack('renderCart', 'cart.3f9a1c2b.js', 10),
      release: '1.0.0',
      environment: 'production',
      user: { id: 'u1', email: 'ann@example.com' },
      url: 'https://shop.example.com/cart',
    },
    {
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'items') for order 97",
      stack: browserStack('renderCart', 'cart.77aa00ff.js', 12),
      release: '1.0.1',
      environment: 'staging',
      user: { id: 'u2' },
    },
    {
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'total') for order 42",
      stack: browserStack('renderCheckout', 'checkout.js', 10),
      release: '1.0.0',
      user: { id: 'u1' },
    },
  ]);
  t.equal(sent.status, 202, sent.payload);
  t.same([sent.body.accepted, sent.body.duplicates], [3, 0]);
  const [a, b, c3] = sent.body.group_ids;
  t.equal(a, b, 'numbers, quoted values and bundle hashes do not split a group');
  t.not(a, c3, 'another in-app function is another group');

  const list = await h.errorGroups(owner, ws.id);
  t.equal(list.items.length, 2);
  const g = list.items.find((x) => x.id === a);
  if (!g) throw new Error(`group ${a} is not listed`);
  t.equal(g.event_count, 2);
  t.equal(g.affected_users, 2, 'distinct users');
  t.equal(g.users_24h, 2);
  t.equal(g.events_24h, 2);
  t.equal(g.trend.length, 24);
  t.equal(g.trend[23], 2, 'this hour holds both events');
  t.equal(g.release, '1.0.1');
  t.same(g.sources, ['endpoint']);
  t.equal(g.status, 'watching');
  t.equal(list.overview.workspace_id, ws.id);
  t.equal(list.overview.counts.watching, 2);

  const detail = await h.call(owner, 'GET', `/v1/error-groups/${a}`);
  t.equal(detail.status, 200, detail.payload);
  t.same(detail.body.environments, ['production', 'staging']);
  t.equal(detail.body.releases.length, 2);
  t.match(detail.body.normalized_message, /reading <str>\) for order <n>/);
  t.equal(detail.body.frames[0].function, 'renderCart');
  t.equal(detail.body.frames[0].in_app, true);
  t.equal(detail.body.frames[1].in_app, false, 'dependencies are not in-app');
  const withEmail = detail.body.events.find((e) => e.user?.email);
  t.equal(withEmail?.user?.email, 'a***@e***.com', 'sample users are masked');
  t.same(detail.body.capabilities, { ignore: true, unignore: false, resolve: true, open_ticket: true });

  // An explicit fingerprint wins; an external id deduplicates.
  const fp = await h.ingest(c.id, c.token, [
    { message: 'totally different 1', fingerprint: 'checkout-broken', external_id: 'ev-1' },
    { message: 'totally different 2', fingerprint: 'checkout-broken', external_id: 'ev-2' },
  ]);
  t.equal(fp.body.group_ids[0], fp.body.group_ids[1]);
  const dup = await h.ingest(c.id, c.token, {
    message: 'totally different 1',
    fingerprint: 'checkout-broken',
    external_id: 'ev-1',
  });
  t.same([dup.body.accepted, dup.body.duplicates], [0, 1], 'a repeated external id is stored once');

  // Search and status filters.
  const q = await h.call(owner, 'GET', `/v1/error-groups?workspace_id=${ws.id}&q=different`);
  t.equal(q.body.items.length, 1);
  const none = await h.call(owner, 'GET', `/v1/error-groups?workspace_id=${ws.id}&status=ignored`);
  t.equal(none.body.items.length, 0);
});

t.test('masking: e-mails, tokens and card numbers never leave in samples', async (t) => {
  const owner = await h.owner();
  const ws = await h.workspace(owner);
  const c = await h.endpoint(owner, ws.id);
  const res = await h.ingest(c.id, c.token, {
    type: 'PaymentError',
    message:
      'charge failed for jane.doe@example.com card 4242 4242 4242 4242 with Authorization: sk_live_abcdefghijklmnop token=supersecretvalue',
  });
  const detail = await h.call(owner, 'GET', `/v1/error-groups/${res.body.group_ids[0]}`);
  const text = detail.payload;
  for (const secret of ['jane.doe@example.com', '4242 4242 4242 4242', 'sk_live_abcdefghijklmnop', 'supersecretvalue'])
    t.notOk(text.includes(secret), `no ${secret}`);
  t.match(detail.body.events[0].message, /\*\*\*\* \*\*\*\* \*\*\*\* 4242/);
  t.match(detail.body.group?.title, /j\*\*\*@e\*\*\*\.com/);
});

t.test('regression: a new event after resolve regresses, one from an older release does not', async (t) => {
  const owner = await h.owner();
  const ws = await h.workspace(owner);
  const c = await h.endpoint(owner, ws.id);
  const ev = (release: string) => ({
    type: 'RangeError',
    message: 'Invalid array length',
    stack: browserStack('paginate', 'list.js', 5),
    release,
  });
  const first = await h.ingest(c.id, c.token, [ev('2.3.0'), ev('2.4.0')]);
  const id = first.body.group_ids[0];

  const resolved = await h.call(owner, 'POST', `/v1/error-groups/${id}/resolve`, { release: '2.5.0' });
  t.equal(resolved.status, 200, resolved.payload);
  t.equal(resolved.body.group?.status, 'resolved');
  t.equal(resolved.body.group?.resolved_in_release, '2.5.0');
  t.same(resolved.body.capabilities, { ignore: true, unignore: true, resolve: false, open_ticket: false });

  await h.ingest(c.id, c.token, ev('2.4.0'));
  const older = await h.call(owner, 'GET', `/v1/error-groups/${id}`);
  t.equal(older.body.group?.status, 'resolved', 'an event from an older release is no regression');
  t.equal(older.body.group?.regressed_at, null);
  t.equal(older.body.group?.event_count, 3, 'but it is counted');

  await h.ingest(c.id, c.token, ev('2.5.1'));
  const again = await h.call(owner, 'GET', `/v1/error-groups/${id}`);
  t.equal(again.body.group?.status, 'watching', 'a newer release regresses the group');
  t.ok(again.body.group?.regressed_at);
  t.equal(again.body.group?.trigger, 'regression');

  // Resolved without a release: any new event regresses.
  await h.call(owner, 'POST', `/v1/error-groups/${id}/resolve`, {});
  await h.ingest(c.id, c.token, { ...ev('1.0.0') });
  t.equal((await h.call(owner, 'GET', `/v1/error-groups/${id}`)).body.group?.status, 'watching');

  // Ignore, unignore.
  const ignored = await h.call(owner, 'POST', `/v1/error-groups/${id}/ignore`);
  t.equal(ignored.body.group?.status, 'ignored');
  await h.ingest(c.id, c.token, ev('9.0.0'));
  const still = await h.call(owner, 'GET', `/v1/error-groups/${id}`);
  t.equal(still.body.group?.status, 'ignored', 'ignored in every release');
  t.equal(still.body.group?.event_count, 6, 'kept and counted');
  const back = await h.call(owner, 'POST', `/v1/error-groups/${id}/unignore`);
  t.equal(back.body.group?.status, 'watching');
  const audits = await h.app
    .db('audit_entries')
    .where({ org_id: owner.organization.id })
    .whereLike('action', 'error_group.%')
    .pluck('action');
  t.ok(
    audits.includes('error_group.resolved') &&
      audits.includes('error_group.ignored') &&
      audits.includes('error_group.unignored'),
    'actions audited',
  );

  // Another organization: 404 everywhere.
  const other = await h.owner();
  for (const [method, url] of [
    ['GET', `/v1/error-groups/${id}`],
    ['POST', `/v1/error-groups/${id}/ignore`],
    ['POST', `/v1/error-groups/${id}/resolve`],
    ['POST', `/v1/error-groups/${id}/unignore`],
    ['POST', `/v1/error-groups/${id}/ticket`],
    ['GET', `/v1/error-groups?workspace_id=${ws.id}`],
  ] as const) {
    t.equal((await h.call(other, method, url, method === 'POST' ? {} : undefined)).status, 404, `${method} ${url}`);
  }
  const theirs = await h.call(other, 'GET', '/v1/error-groups');
  t.same(theirs.body.items, [], 'their list is empty');
});

t.test(
  'regression by release: versions by their numbers, other names by when each was first seen; every release watches again',
  async (t) => {
    const owner = await h.owner();
    const ws = await h.workspace(owner);
    const c = await h.endpoint(owner, ws.id);
    const ev = (release: string, occurred_at?: string) => ({
      type: 'SyntaxError',
      message: 'Unexpected token',
      stack: browserStack('parse', 'json.js', 3),
      release,
      ...(occurred_at ? { occurred_at } : {}),
    });
    const group = async (id: string) => {
      const { body } = await h.call(owner, 'GET', `/v1/error-groups/${id}`);
      return { group: body.group, releases: body.releases };
    };

    // Tagged versions compare by number, whatever their prefix: shop@v2.10 is newer than shop@2.9.
    const id = (await h.ingest(c.id, c.token, [ev('shop@2.9.0'), ev('shop@v2.10')])).body.group_ids[0];
    t.equal((await h.call(owner, 'POST', `/v1/error-groups/${id}/resolve`, { release: 'shop@v2.10' })).status, 200);
    await h.ingest(c.id, c.token, ev('shop@2.9.1'));
    t.equal((await group(id)).group.status, 'resolved', '2.9.1 is older than 2.10');
    await h.ingest(c.id, c.token, ev('shop@2.10.0'));
    const same = await group(id);
    t.equal(same.group.status, 'watching', '2.10.0 is the fixed release itself: the fix did not hold');
    t.same(
      same.releases.map((r) => r.status),
      same.releases.map(() => 'watching'),
      'every release of the group watches again',
    );

    // Names that are no version: by when each was first seen in this group.
    const named = (await h.ingest(c.id, c.token, [{ ...ev('blue-falcon'), message: 'Named releases' }])).body
      .group_ids[0];
    await h.ingest(c.id, c.token, [{ ...ev('green-otter'), message: 'Named releases' }]);
    t.equal((await h.call(owner, 'POST', `/v1/error-groups/${named}/resolve`, { release: 'green-otter' })).status, 200);
    await h.ingest(c.id, c.token, [{ ...ev('blue-falcon'), message: 'Named releases' }]);
    t.equal((await group(named)).group.status, 'resolved', 'blue-falcon was first seen before green-otter');
    await h.ingest(c.id, c.token, [{ ...ev('red-heron'), message: 'Named releases' }]);
    const back = await group(named);
    t.equal(back.group.status, 'watching', 'red-heron is first seen after the fix');
    t.equal(back.group.trigger, 'regression');

    // An event that happened before the resolve (a late delivery) is no regression, whatever its release.
    const late = (await h.ingest(c.id, c.token, [{ ...ev('3.0.0'), message: 'Late delivery' }])).body.group_ids[0];
    t.equal((await h.call(owner, 'POST', `/v1/error-groups/${late}/resolve`, {})).status, 200);
    await h.ingest(c.id, c.token, [
      { ...ev('3.1.0', new Date(Date.now() - 3_600_000).toISOString()), message: 'Late delivery' },
    ]);
    const stayed = await group(late);
    t.equal(stayed.group.status, 'resolved');
    t.equal(stayed.group.event_count, 2, 'counted all the same');
  },
);

t.test('events of one batch at the same moment: the release of the last one is the group release', async (t) => {
  const owner = await h.owner();
  const ws = await h.workspace(owner);
  const c = await h.endpoint(owner, ws.id);
  const at = new Date(Date.now() - 60_000).toISOString();
  const releases = Array.from({ length: 20 }, (_, i) => `2.${i}.0-rc`);
  const sent = await h.ingest(
    c.id,
    c.token,
    releases.map((release) => ({
      type: 'Tie',
      message: 'same moment',
      stack: browserStack('tie', 'tie.js', 1),
      release,
      occurred_at: at,
    })),
  );
  t.equal(sent.status, 202, sent.payload);
  const g = (await h.call(owner, 'GET', `/v1/error-groups/${sent.body.group_ids[0]}`)).body.group;
  t.equal(g?.release, releases[releases.length - 1], 'batch order breaks the tie');
});

t.test('two batches that see the same new error at once make one group and count every event', async (t) => {
  const owner = await h.owner();
  const ws = await h.workspace(owner);
  // Two writers, as two processes would have: on Postgres each batch runs on its own connection,
  // and the one that loses the race for a new group runs again (foreign key refusal, see FLUSH).
  const outbox = new Outbox();
  const writers = [new GroupWriter(outbox), new GroupWriter(outbox)];
  const settings = new Map([
    [ws.id, { id: ws.id, proactive_enabled: false, proactive_threshold_users: 5, critical_paths: [] }],
  ]);
  const rounds = ['one', 'two', 'three', 'four', 'five'];
  for (const round of rounds) {
    const batch = (n: number): IncomingEvent[] =>
      Array.from({ length: n }, (_, i) => ({
        orgId: owner.organization.id,
        workspaceId: ws.id,
        connectorId: null,
        source: 'endpoint',
        event: {
          type: 'Race',
          message: `race ${round} ${['alpha', 'beta', 'gamma'][i % 3]}`,
          level: 'error',
          occurred_at: new Date().toISOString(),
          user: { id: `u-${i}` },
        },
      }));
    const outcomes = await Promise.all([
      writers[0].write(h.app.db, batch(6), settings),
      writers[1].write(h.app.db, batch(6), settings),
    ]);
    t.same(
      new Set(outcomes[0].map((o) => o.groupId)),
      new Set(outcomes[1].map((o) => o.groupId)),
      `round ${round}: both batches name the same groups`,
    );
  }
  const groups = await h.app
    .db('error_groups')
    .where({ workspace_id: ws.id })
    .select<Array<{ event_count: string | number; affected_users: number }>>('event_count', 'affected_users');
  t.equal(groups.length, rounds.length * 3, 'one group per distinct error');
  t.same(
    groups.map((g) => Number(g.event_count)),
    groups.map(() => 4),
    'every event counted once',
  );
  t.same(
    groups.map((g) => g.affected_users),
    groups.map(() => 2),
    'each user once in its group (u-0 and u-3 in the first, …)',
  );
  const events = await h.app.db('error_events').where({ workspace_id: ws.id }).count({ n: '*' }).first();
  t.equal(Number(events!.n), rounds.length * 12);
});
