import { createHmac } from 'node:crypto';
import t from 'tap';
import {
  apiEvent,
  eventAlertBody,
  signedDelivery,
  startTrackerPeer,
  type TrackerPeer,
} from '../../../adapters/connector-error-tracker/test/peer.js';
import type { Answer } from '../../../test/helpers/api-types.js';
import { connectorPollState, settingsIssues, startProactive, type ProactiveHarness } from './helpers.js';

// One service for the whole file (each scenario signs up its own organization).
let h: ProactiveHarness;
let peer: TrackerPeer;
t.before(async () => {
  peer = await startTrackerPeer({ pageSize: 2 });
  h = await startProactive(t, {
    security: { allowLoopbackFetch: true },
    adapters: {
      connector: ['connector-endpoint', 'connector-error-tracker'],
      options: { 'connector-error-tracker': { allowHttp: true } },
    },
  });
});
t.teardown(() => peer.close());

const SECRET = 'whsec-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

const deliver = (connectorId: string, d: { headers: Record<string, string>; rawBody: Buffer }) =>
  h.app.server.inject({
    method: 'POST',
    url: `/v1/webhooks/error-tracker/${connectorId}`,
    payload: d.rawBody,
    headers: d.headers,
  });
/** The JSON answer of a webhook delivery. */
const receiptOf = (res: { payload: string }) =>
  JSON.parse(res.payload) as Answer<'POST', '/v1/webhooks/error-tracker/{connectorId}'>;

t.test(
  'error-tracker webhook: signed deliveries become error groups; unsigned, forged and changed ones are refused',
  async (t) => {
    const owner = await h.owner();
    const ws = await h.workspace(owner);
    const created = await h.createConnector(owner, ws.id, {
      kind: 'error_tracker',
      name: 'Tracker',
      secrets: { client_secret: SECRET },
    });
    t.equal(created.status, 201, created.payload);
    const c = created.body.connector;
    t.equal(c.webhook_url, `http://localhost:3000/v1/webhooks/error-tracker/${c.id}`);
    t.same(c.secrets, [{ name: 'client_secret', last4: SECRET.slice(-4) }]);
    t.equal(created.body.token, null);

    const awaiting = await h.call(owner, 'POST', `/v1/connectors/${c.id}/test`);
    t.equal(awaiting.body.ok, null);
    t.equal(awaiting.body.code, 'awaiting_delivery', 'push-only without an auth token');

    const body = eventAlertBody({
      eventId: 'a1'.repeat(16),
      issue: '9001',
      message: "Cannot read properties of undefined (reading 'qty')",
      user: 'u-1',
    });
    const good = signedDelivery(SECRET, 'event_alert', body);
    const res = await deliver(c.id, good);
    t.equal(res.statusCode, 202, res.payload);
    const receipt = receiptOf(res);
    t.equal(receipt.accepted, 1);
    const groupId = receipt.group_ids[0];

    const detail = await h.call(owner, 'GET', `/v1/error-groups/${groupId}`);
    t.equal(detail.status, 200, detail.payload);
    t.equal(detail.body.group?.type, 'TypeError');
    t.same(detail.body.group?.sources, ['error_tracker']);
    t.equal(detail.body.events[0].source, 'error_tracker');
    t.equal(detail.body.events[0].external_id, 'a1'.repeat(16));
    t.notOk(detail.payload.includes('u-1@example.com'), 'sample events are masked');

    // Another event of the same tracker issue joins the group; a replay is a duplicate.
    const second = await deliver(
      c.id,
      signedDelivery(
        SECRET,
        'event_alert',
        eventAlertBody({
          eventId: 'b2'.repeat(16),
          issue: '9001',
          message: "Cannot read properties of undefined (reading 'price')",
          user: 'u-2',
        }),
      ),
    );
    t.same(receiptOf(second).group_ids, [groupId], 'same tracker issue, same group');
    const replay = await deliver(c.id, good);
    t.equal(replay.statusCode, 202);
    t.same(
      receiptOf(replay),
      { accepted: 0, duplicates: 1, group_ids: [groupId] },
      'a replayed delivery is stored once',
    );
    const group = (await h.app.db('error_groups').where({ id: groupId }).first()) as {
      event_count: number | string;
      affected_users: number;
    };
    t.equal(Number(group.event_count), 2);
    t.equal(group.affected_users, 2);

    // Refusals: nothing is stored.
    const before = Number((await h.app.db('error_events').where({ connector_id: c.id }).count({ n: '*' }).first())!.n);
    const missing = await deliver(c.id, {
      headers: { 'content-type': 'application/json', 'sentry-hook-resource': 'event_alert' },
      rawBody: good.rawBody,
    });
    t.equal(missing.statusCode, 401, 'no signature');
    t.equal(receiptOf(missing).code, 'unauthenticated');
    const bad = await deliver(c.id, {
      headers: { ...good.headers, 'sentry-hook-signature': 'f'.repeat(64) },
      rawBody: good.rawBody,
    });
    t.equal(bad.statusCode, 401, 'a wrong signature');
    const changedBody = Buffer.from(good.rawBody.toString().replace('qty', 'qtx'));
    const changed = await deliver(c.id, { headers: good.headers, rawBody: changedBody });
    t.equal(changed.statusCode, 401, 'a replayed signature over a changed body');
    const otherSecret = await deliver(c.id, signedDelivery('not-the-secret', 'event_alert', body));
    t.equal(otherSecret.statusCode, 401, 'signed with another secret');
    t.equal((await deliver('con_nope', good)).statusCode, 401, 'unknown connector: the same 401');
    const endpoint = await h.endpoint(owner, ws.id);
    t.equal((await deliver(endpoint.id, good)).statusCode, 401, 'a connector of another kind takes no tracker webhook');
    const otherBody = await deliver(c.id, {
      headers: signedDelivery(SECRET, 'event_alert', {}).headers,
      rawBody: good.rawBody,
    });
    t.equal(otherBody.statusCode, 401, 'a good signature of another body');
    const garbage = Buffer.from('{not json');
    const garbageSigned = {
      headers: { ...good.headers, 'sentry-hook-signature': createHmac('sha256', SECRET).update(garbage).digest('hex') },
      rawBody: garbage,
    };
    const unreadable = await deliver(c.id, garbageSigned);
    t.equal(unreadable.statusCode, 400);
    t.equal(receiptOf(unreadable).code, 'invalid_payload');
    const after = Number((await h.app.db('error_events').where({ connector_id: c.id }).count({ n: '*' }).first())!.n);
    t.equal(after, before, 'refused deliveries store nothing');

    // Resources without events are acknowledged; the test then reports deliveries.
    const install = await deliver(
      c.id,
      signedDelivery(SECRET, 'installation', { action: 'created', data: { installation: { uuid: 'x' } } }),
    );
    t.equal(install.statusCode, 202);
    t.same(receiptOf(install), { accepted: 0, duplicates: 0, group_ids: [] });
    const receiving = await h.call(owner, 'POST', `/v1/connectors/${c.id}/test`);
    t.equal(receiving.body.code, 'receiving');

    // Paused: deliveries answer 409 until resumed.
    await h.call(owner, 'POST', `/v1/connectors/${c.id}/pause`);
    const paused = await deliver(
      c.id,
      signedDelivery(SECRET, 'event_alert', eventAlertBody({ eventId: 'c3'.repeat(16), issue: '9001', message: 'x' })),
    );
    t.equal(paused.statusCode, 409);
    t.equal(receiptOf(paused).code, 'connector_paused');
    await h.call(owner, 'POST', `/v1/connectors/${c.id}/resume`);
    t.equal(
      (
        await deliver(
          c.id,
          signedDelivery(
            SECRET,
            'event_alert',
            eventAlertBody({ eventId: 'c3'.repeat(16), issue: '9001', message: 'x' }),
          ),
        )
      ).statusCode,
      202,
    );

    // Settings problems answer stable issue codes.
    const invalid = await h.createConnector(owner, ws.id, {
      kind: 'error_tracker',
      name: 'x',
      config: { organization: 'acme' },
      secrets: { auth_token: 'tok' },
    });
    t.equal(invalid.status, 422);
    t.same(settingsIssues(invalid), ['missing_field@config.project']);
  },
);

t.test(
  'polling: the scheduler reads every page, backs off on a 500, stops while paused and resumes at once',
  async (t) => {
    const owner = await h.owner();
    const ws = await h.workspace(owner);
    const base = Date.now() - 10 * 60_000;
    for (let i = 0; i < 5; i++)
      peer.events.push(apiEvent({ at: new Date(base + i * 1000), issue: '555', user: `u-${i}` }));
    const bad = await h.createConnector(owner, ws.id, {
      kind: 'error_tracker',
      name: 'API',
      config: { organization: 'acme', project: 'shop', base_url: peer.url },
      secrets: { auth_token: 'wrong' },
    });
    t.equal(bad.status, 201, bad.payload);
    const refused = await h.call(owner, 'POST', `/v1/connectors/${bad.body.connector.id}/test`);
    t.equal(refused.body.ok, false);
    t.equal(refused.body.code, 'unauthorized');
    t.equal(refused.body.connector?.status, 'error');
    await h.call(owner, 'DELETE', `/v1/connectors/${bad.body.connector.id}`);

    const created = await h.createConnector(owner, ws.id, {
      kind: 'error_tracker',
      name: 'API',
      config: { organization: 'acme', project: 'shop', base_url: peer.url },
      secrets: { auth_token: peer.token },
    });
    const connector = created.body.connector;
    const id = connector.id;
    t.equal(connector.polls, true);
    t.ok(connector.next_poll_at, 'due at once');
    const tested = await h.call(owner, 'POST', `/v1/connectors/${id}/test`);
    t.equal(tested.body.ok, true, tested.payload);
    t.equal(tested.body.connector?.status, 'active');

    const poll = () => h.app.scheduler.runNow('proactive.poll-connectors');
    const stored = async () =>
      Number((await h.app.db('error_events').where({ connector_id: id }).count({ n: '*' }).first())!.n);
    const eventRequests = () => peer.requests.filter((r) => r.includes('/events/')).length;
    const due = () =>
      h.app
        .db('connectors')
        .where({ id })
        .update({ next_poll_at: new Date(Date.now() - 1000) });

    let requests = eventRequests();
    await poll();
    t.equal(await stored(), 5, 'five events over three pages');
    t.equal(eventRequests() - requests, 3, 'followed the Link cursor twice');
    const connectorRow = () => connectorPollState(h.app, id);
    let row = await connectorRow();
    t.ok(row.cursor, 'the position is kept');
    t.ok(new Date(row.next_poll_at).getTime() > Date.now() + 30_000, 'next poll after the interval');
    const groups = await h.app
      .db('error_groups')
      .where({ workspace_id: ws.id })
      .select<Array<{ id: string; affected_users: number }>>('id', 'affected_users');
    t.equal(groups.length, 1, 'one tracker issue, one group');
    t.equal(groups[0].affected_users, 5);

    requests = eventRequests();
    await poll();
    t.equal(eventRequests(), requests, 'not due: not polled');

    // A 500: status error with the code and message, cursor kept, back-off.
    peer.events.push(apiEvent({ at: new Date(), issue: '555', user: 'u-new' }));
    peer.failNext = 1;
    await due();
    await poll();
    row = await connectorRow();
    t.equal(row.status, 'error');
    t.equal(row.last_error_code, 'provider_error');
    t.match(row.last_error, /500/);
    t.equal(row.error_count, 1);
    const wait = new Date(row.next_poll_at).getTime() - Date.now();
    t.ok(wait > 20_000 && wait <= 30_000, `backed off ~30 s (${wait} ms)`);
    const shown = await h.call(owner, 'GET', `/v1/connectors/${id}`);
    t.equal(shown.body.status, 'error');
    t.equal(shown.body.last_error_code, 'provider_error');

    peer.failNext = 2;
    await due();
    await poll();
    row = await connectorRow();
    const wait2 = new Date(row.next_poll_at).getTime() - Date.now();
    t.ok(wait2 > 50_000 && wait2 <= 60_000, `second failure doubles the back-off (${wait2} ms)`);
    peer.failNext = 0;
    await due();
    await poll();
    row = await connectorRow();
    t.equal(row.status, 'active', 'a good poll clears the error');
    t.equal(row.last_error_code, null);
    t.equal(row.error_count, 0);
    t.equal(await stored(), 6, 'the event of the failed window arrives');

    // Paused: never polled, even when due; resume polls at once.
    const paused = await h.call(owner, 'POST', `/v1/connectors/${id}/pause`);
    t.equal(paused.body.next_poll_at, null);
    peer.events.push(apiEvent({ at: new Date(), issue: '555', user: 'u-late' }));
    await due();
    requests = eventRequests();
    await poll();
    t.equal(eventRequests(), requests, 'a paused connector is not polled');
    t.equal(await stored(), 6);
    const resumed = await h.call(owner, 'POST', `/v1/connectors/${id}/resume`);
    t.equal(resumed.body.status, 'active');
    t.ok(new Date(resumed.body.next_poll_at!).getTime() <= Date.now(), 'due at once');
    await poll();
    t.equal(await stored(), 7, 'resumed: polled at the next sweep');
  },
);
