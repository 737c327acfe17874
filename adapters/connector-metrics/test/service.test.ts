import t from 'tap';
import {
  connectorPollState,
  settingsIssues,
  startProactive,
  type ProactiveHarness,
} from '../../../plugins/proactive/test/helpers.js';
import { apiLog, startLogsPeer, type LogsPeer } from './peer.js';

// One service for the file; each scenario signs up its own organization.
let h: ProactiveHarness;
let peer: LogsPeer;
t.before(async () => {
  peer = await startLogsPeer();
  h = await startProactive(t, {
    security: { allowLoopbackFetch: true },
    adapters: {
      connector: ['connector-endpoint', 'connector-metrics'],
      options: { 'connector-metrics': { allowHttp: true, pageLimit: 2 } },
    },
  });
});
t.teardown(() => peer.close());

t.test(
  'metrics_platform through the service: settings refused with codes, secrets masked, test, polled error logs grouped, back-off',
  async (t) => {
    const owner = await h.owner();
    const ws = await h.workspace(owner);

    const missing = await h.createConnector(owner, ws.id, {
      kind: 'metrics_platform',
      name: 'Logs',
      config: { base_url: peer.url },
      secrets: { api_key: peer.apiKey },
    });
    t.equal(missing.status, 422, missing.payload);
    t.equal(missing.body.code, 'invalid_settings');
    t.same(settingsIssues(missing), ['missing_field@secrets.application_key']);

    const wrong = await h.createConnector(owner, ws.id, {
      kind: 'metrics_platform',
      name: 'Logs',
      config: { base_url: peer.url },
      secrets: { api_key: 'wrong-key-0000', application_key: peer.appKey },
    });
    t.equal(wrong.status, 201, wrong.payload);
    const refused = await h.call(owner, 'POST', `/v1/connectors/${(wrong.body.connector as { id: string }).id}/test`);
    t.match(refused.body, {
      ok: false,
      code: 'unauthorized',
      connector: { status: 'error', last_error_code: 'unauthorized' },
    });
    await h.call(owner, 'DELETE', `/v1/connectors/${(wrong.body.connector as { id: string }).id}`);

    const base = Date.now() - 10 * 60_000;
    for (let i = 0; i < 3; i++)
      peer.logs.push(
        apiLog({
          at: new Date(base + i * 1000),
          message: `Cannot read properties of undefined (reading 'total') #${i + 100}`,
        }),
      );
    peer.logs.push(apiLog({ at: new Date(base + 5000), status: 'info', message: 'checkout ok' }));
    const created = await h.createConnector(owner, ws.id, {
      kind: 'metrics_platform',
      name: 'Logs',
      config: { base_url: peer.url, query: 'service:shop-api' },
      secrets: { api_key: peer.apiKey, application_key: peer.appKey },
    });
    t.equal(created.status, 201, created.payload);
    const c = created.body.connector as { id: string; polls: boolean; secrets: Array<{ name: string; last4: string }> };
    t.equal(c.polls, true);
    t.same(c.secrets.map((s) => s.name).sort(), ['api_key', 'application_key']);
    t.notOk(
      created.payload.includes(peer.apiKey) || created.payload.includes(peer.appKey),
      'the keys are never answered',
    );
    t.ok(c.secrets.every((s) => s.last4.length === 4));

    const tested = await h.call(owner, 'POST', `/v1/connectors/${c.id}/test`);
    t.match(tested.body, { ok: true, code: 'ok', connector: { status: 'active' } });

    const poll = () => h.app.scheduler.runNow('proactive.poll-connectors');
    const due = () =>
      h.app
        .db('connectors')
        .where({ id: c.id })
        .update({ next_poll_at: new Date(Date.now() - 1000) });
    await poll();
    const events = await h.app.db('error_events').where({ connector_id: c.id }).select('source', 'type');
    t.equal(events.length, 3, 'three error logs over two pages; the info log left out');
    t.ok(events.every((e: { source: string }) => e.source === 'metrics_platform'));
    const groups = await h.app.db('error_groups').where({ workspace_id: ws.id });
    t.equal(groups.length, 1, 'the same error with different numbers is one group');

    peer.fail.push(429);
    await due();
    await poll();
    let row = await connectorPollState(h.app, c.id);
    t.match(row, { status: 'error', last_error_code: 'rate_limited', error_count: 1 });
    t.ok(new Date(row.next_poll_at).getTime() > Date.now() + 10_000, 'backed off');
    peer.fail.push(500);
    await due();
    await poll();
    row = await connectorPollState(h.app, c.id);
    t.match(row, { status: 'error', last_error_code: 'provider_error', error_count: 2 });
    // A log written after the last good window ended (the first poll read up to its own now).
    peer.logs.push(apiLog({ at: new Date(), message: "Cannot read properties of undefined (reading 'total') #7" }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await due();
    await poll();
    row = await connectorPollState(h.app, c.id);
    t.match(row, { status: 'active', last_error_code: null, error_count: 0 });
    t.equal(
      (await h.app.db('error_events').where({ connector_id: c.id })).length,
      4,
      'the event of the failed windows arrives',
    );
  },
);
