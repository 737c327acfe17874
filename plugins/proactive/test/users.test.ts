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
  const event = (user: string | null, release: string | null) => ({ type: 'Error', message: 'Payment declined', ...(user ? { user: { id: user } } : {}), ...(release ? { release } : {}) });
  const first = await h.ingest(c.id, c.token, [event('ann', '1.0.0'), event('bob', '1.0.0'), event('ann', '1.0.0'), event('ann', '1.1.0'), event(null, '1.1.0'), event('cyd', null)]);
  t.equal(first.status, 202, JSON.stringify(first.body));
  // A later batch: one user new to 1.1.0, one already counted there.
  await h.ingest(c.id, c.token, [event('bob', '1.1.0'), event('ann', '1.1.0')]);
  const groupId = (first.body.group_ids as string[])[0]!;

  const releases = async () => {
    const detail = await h.call(owner, 'GET', `/v1/error-groups/${groupId}`);
    t.equal(detail.status, 200);
    const rows = detail.body.releases as Array<{ release: string | null; event_count: number; affected_users: number }>;
    return Object.fromEntries(rows.map((r) => [r.release ?? 'none', [r.event_count, r.affected_users]]));
  };
  t.same(await releases(), { '1.0.0': [3, 2], '1.1.0': [4, 2], none: [1, 1] }, 'events and distinct users per release; an event without a user counts no one');
  const group = (await h.call(owner, 'GET', `/v1/error-groups/${groupId}`)).body.group as { affected_users: number };
  t.equal(group.affected_users, 3, 'the group counts each user once across releases');

  // Retention deletes the stored events; the counts, like the group's, are totals and stay.
  await h.app.db('organizations').where({ id: owner.organization.id }).update({ retention_days: 1 });
  await h.app.db('error_events').where({ group_id: groupId }).update({ received_at: new Date(Date.now() - 3 * 86_400_000) });
  t.equal(await purgeExpiredEvents(h.app.db, new Date()), 8);
  t.same(await releases(), { '1.0.0': [3, 2], '1.1.0': [4, 2], none: [1, 1] });
});
