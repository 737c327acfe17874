// The users an error reaches: counted per group and per release as events arrive (not by reading
// the stored events back), kept after retention deletes the events, and erased with the person.
import t from 'tap';
import { purgeExpiredEvents } from '../services/retention.js';
import { startProactive } from './helpers.js';

t.test("a release's affected users are counted once each as events arrive, and outlive the events", async (t) => {
  const h = await startProactive(t);
  const owner = await h.owner();
  const ws = await h.workspace(owner);
  const c = await h.endpoint(owner, ws.id);
  const event = (user: string | null, release: string | null) => ({
    type: 'Error',
    message: 'Payment declined',
    ...(user ? { user: { id: user } } : {}),
    ...(release ? { release } : {}),
  });
  const first = await h.ingest(c.id, c.token, [
    event('ann', '1.0.0'),
    event('bob', '1.0.0'),
    event('ann', '1.0.0'),
    event('ann', '1.1.0'),
    event(null, '1.1.0'),
    event('cyd', null),
  ]);
  t.equal(first.status, 202, JSON.stringify(first.body));
  // A later batch: one user new to 1.1.0, one already counted there.
  await h.ingest(c.id, c.token, [event('bob', '1.1.0'), event('ann', '1.1.0')]);
  const groupId = first.body.group_ids[0];

  const releases = async () => {
    const detail = await h.call(owner, 'GET', `/v1/error-groups/${groupId}`);
    t.equal(detail.status, 200);
    return Object.fromEntries(
      detail.body.releases.map((r) => [r.release ?? 'none', [r.event_count, r.affected_users]]),
    );
  };
  t.same(
    await releases(),
    { '1.0.0': [3, 2], '1.1.0': [4, 2], none: [1, 1] },
    'events and distinct users per release; an event without a user counts no one',
  );
  const group = (await h.call(owner, 'GET', `/v1/error-groups/${groupId}`)).body.group;
  t.equal(group?.affected_users, 3, 'the group counts each user once across releases');

  // Retention deletes the stored events; the counts, like the group's, are totals and stay.
  await h.app.db('organizations').where({ id: owner.organization.id }).update({ retention_days: 1 });
  await h.app
    .db('error_events')
    .where({ group_id: groupId })
    .update({ received_at: new Date(Date.now() - 3 * 86_400_000) });
  t.equal(await purgeExpiredEvents(h.app.db, new Date()), 8);
  t.same(await releases(), { '1.0.0': [3, 2], '1.1.0': [4, 2], none: [1, 1] });
});

t.test(
  'erasing an end user (privacy) removes their events and the keys that count them, and nobody else’s',
  async (t) => {
    const h = await startProactive(t, { plugins: { privacy: { enabled: true } } });
    const owner = await h.owner();
    const ws = await h.workspace(owner);
    const c = await h.endpoint(owner, ws.id);
    const sent = await h.ingest(c.id, c.token, [
      { message: 'Checkout failed', release: '2.0.0', user: { id: 'u-77', email: 'Zoe@Example.com' } },
      { message: 'Checkout failed', release: '2.0.0', user: { email: 'zoe@example.com' } },
      { message: 'Checkout failed', release: '2.0.0', user: { id: 'u-78', email: 'max@example.com' } },
    ]);
    t.equal(sent.status, 202, JSON.stringify(sent.body));
    const groupId = sent.body.group_ids[0];
    const keys = async (table: string) =>
      (await h.app.db(table).where({ group_id: groupId }).pluck('user_key')) as string[];
    t.equal(
      (await keys('error_group_users')).length,
      3,
      'Zoe counts twice (keyed by her id, and by her address where no id came) and Max once',
    );
    t.equal((await keys('error_group_release_users')).length, 3);
    const maxKey = (
      await h.app
        .db('error_events')
        .where({ group_id: groupId })
        .whereRaw(`"user"->>'id' = 'u-78'`)
        .first<{ user_key: string }>('user_key')
    ).user_key;

    // The same group in another organization is not touched.
    const other = await h.owner();
    const theirWs = await h.workspace(other);
    const theirs = await h.endpoint(other, theirWs.id);
    await h.ingest(theirs.id, theirs.token, {
      message: 'Checkout failed',
      user: { id: 'u-77', email: 'zoe@example.com' },
    });

    const erased = await h.call(owner, 'POST', '/v1/privacy/erasures', { email: 'zoe@example.com' });
    t.equal(erased.status, 201, erased.payload);
    t.match(erased.body.counts, { error_events: 2, error_group_users: 2, error_group_release_users: 2 });
    t.same(await keys('error_group_users'), [maxKey], 'only Max is left');
    t.same(await keys('error_group_release_users'), [maxKey]);
    t.same((await h.app.db('error_events').where({ group_id: groupId }).pluck('user_key')) as string[], [maxKey]);
    const theirRows = await h.app
      .db('error_group_users')
      .where({ org_id: other.organization.id })
      .count({ n: '*' })
      .first();
    t.equal(Number(theirRows!.n), 1, "another organization's count of her stays");
  },
);
