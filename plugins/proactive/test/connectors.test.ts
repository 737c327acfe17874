import t from 'tap';
import { countLastDay } from '../../../migrations/1060_proactive_connector_hours.js';
import { purgeExpiredEvents } from '../services/retention.js';
import { settingsIssues, startProactive, type ProactiveHarness } from './helpers.js';

// One service for the whole file (each scenario signs up its own organization).
let h: ProactiveHarness;
// connector-metrics is left out of the adapters: a kind whose adapter is not installed answers
// 422 connector_kind_unavailable.
t.before(async () => {
  h = await startProactive(t, {
    adapters: { connector: ['connector-endpoint', 'connector-error-tracker', 'connector-cloud-logs'] },
  });
});

t.test('connectors-admin: an owner sets up a generic endpoint, rotates its token and pauses it', async (t) => {
  const owner = await h.owner();
  const ws = await h.workspace(owner);

  const created = await h.createConnector(owner, ws.id, { kind: 'endpoint', name: 'Backend' });
  t.equal(created.status, 201, created.payload);
  const token = created.body.token as string;
  const c = created.body.connector;
  t.match(token, /^pwi_/, 'the token is shown once');
  t.equal(c.kind, 'endpoint');
  t.equal(c.status, 'active');
  t.equal(c.polls, false);
  t.equal(c.ingest_url, `http://localhost:3000/v1/ingest/${c.id}`);
  t.equal(c.webhook_url, null);
  t.same(c.secrets, [{ name: 'token', last4: token.slice(-4) }], 'only the last four characters of the token');
  t.notOk(
    created.payload.includes(token.slice(0, 20)) && JSON.stringify(c).includes(token),
    'the connector never carries the token',
  );
  const stored = (await h.app.db('connectors').where({ id: c.id }).first()) as { token_hash: string };
  t.not(stored.token_hash, token, 'stored hashed');
  t.notOk(JSON.stringify(stored).includes(token), 'the token is nowhere in the row');

  const got = await h.call(owner, 'GET', `/v1/connectors/${c.id}`);
  t.equal(got.status, 200);
  t.notOk(got.payload.includes(token), 'GET never shows the token');

  const test0 = await h.call(owner, 'POST', `/v1/connectors/${c.id}/test`);
  t.equal(test0.status, 200, test0.payload);
  t.equal(test0.body.ok, null);
  t.equal(test0.body.code, 'awaiting_delivery');
  t.equal(test0.body.details.last_delivery_at, null);
  t.equal(test0.body.connector.status, 'active', 'push-only test leaves the status');

  const first = await h.ingest(c.id, token, { type: 'TypeError', message: 'x is undefined', level: 'error' });
  t.equal(first.status, 202, first.payload);
  t.equal(first.body.accepted, 1);

  const test1 = await h.call(owner, 'POST', `/v1/connectors/${c.id}/test`);
  t.equal(test1.body.code, 'receiving');
  t.ok(test1.body.details.last_delivery_at, 'last delivery reported');
  t.equal(test1.body.connector.events_24h, 1);

  const rotated = await h.call(owner, 'POST', `/v1/connectors/${c.id}/rotate-token`);
  t.equal(rotated.status, 200, rotated.payload);
  const token2 = rotated.body.token as string;
  t.not(token2, token);
  t.not(rotated.body.connector.key_id, c.key_id, 'key id changes');
  const old = await h.ingest(c.id, token, { message: 'boom' });
  t.equal(old.status, 401, 'the old token stops working');
  const fresh = await h.ingest(c.id, token2, { message: 'boom' });
  t.equal(fresh.status, 202, 'the new token works');

  const paused = await h.call(owner, 'POST', `/v1/connectors/${c.id}/pause`);
  t.equal(paused.body.status, 'paused');
  const refused = await h.ingest(c.id, token2, { message: 'boom' });
  t.equal(refused.status, 409);
  t.equal(refused.body.code, 'connector_paused');
  const resumed = await h.call(owner, 'POST', `/v1/connectors/${c.id}/resume`);
  t.equal(resumed.body.status, 'active');
  t.equal((await h.ingest(c.id, token2, { message: 'boom' })).status, 202);

  const renamed = await h.call(owner, 'PATCH', `/v1/connectors/${c.id}`, { name: 'API servers' });
  t.equal(renamed.status, 200, renamed.payload);
  t.equal(renamed.body.name, 'API servers');

  const list = await h.call(owner, 'GET', `/v1/connectors?workspace_id=${ws.id}`);
  t.equal(list.status, 200);
  t.equal(list.body.items.length, 1);

  const audits = await h.app
    .db('audit_entries')
    .where({ org_id: owner.organization.id })
    .whereLike('action', 'connector.%')
    .pluck('action');
  for (const a of [
    'connector.created',
    'connector.token_rotated',
    'connector.paused',
    'connector.resumed',
    'connector.updated',
    'connector.tested',
  ])
    t.ok(audits.includes(a), `audited: ${a}`);
  t.notOk(
    JSON.stringify(await h.app.db('audit_entries').where({ org_id: owner.organization.id })).includes(token2),
    'no token in the audit log',
  );

  const del = await h.call(owner, 'DELETE', `/v1/connectors/${c.id}`);
  t.same(del.body, { ok: true });
  t.equal((await h.call(owner, 'GET', `/v1/connectors/${c.id}`)).status, 404);
  t.equal((await h.ingest(c.id, token2, { message: 'boom' })).status, 401, 'a deleted connector takes nothing');
  const kept = await h.app.db('error_events').where({ connector_id: c.id }).count({ n: '*' }).first();
  t.equal(Number(kept!.n), 3, 'stored events stay until retention');
});

t.test(
  "a connector's events_24h: counted per hour as batches arrive, over the current hour and the 23 before it",
  async (t) => {
    const owner = await h.owner();
    const ws = await h.workspace(owner);
    const made = await h.createConnector(owner, ws.id, { kind: 'endpoint', name: 'Counted' });
    const c = made.body.connector;
    const token = made.body.token as string;
    const events24h = async () => (await h.call(owner, 'GET', `/v1/connectors/${c.id}`)).body.events_24h;
    t.equal(await events24h(), 0);
    const batch = await h.ingest(c.id, token, [
      { message: 'one', external_id: 'e-1' },
      { message: 'two' },
      { message: 'three' },
    ]);
    t.equal(batch.body.accepted, 3);
    t.equal((await h.ingest(c.id, token, { message: 'one', external_id: 'e-1' })).body.duplicates, 1);
    t.equal(await events24h(), 3, 'a duplicate is not counted');
    const listed = (await h.call(owner, 'GET', `/v1/connectors?workspace_id=${ws.id}`)).body.items;
    t.equal(listed.find((x) => x.id === c.id)?.events_24h, 3, 'the list reads the same counters');

    // The window is 24 hourly buckets: the one that started 23 hours before this hour counts, the one before it does not.
    const HOUR = 3_600_000;
    const thisHour = Math.floor(Date.now() / HOUR) * HOUR;
    const orgId = owner.organization.id;
    await h.app.db('connector_hours').insert([
      { connector_id: c.id, hour: new Date(thisHour - 23 * HOUR), org_id: orgId, count: 5 },
      { connector_id: c.id, hour: new Date(thisHour - 24 * HOUR), org_id: orgId, count: 7 },
      { connector_id: c.id, hour: new Date(thisHour - 50 * HOUR), org_id: orgId, count: 11 },
    ]);
    t.equal(await events24h(), 8);
    const other = await h.owner();
    await h.app
      .db('connector_hours')
      .insert({ connector_id: c.id, hour: new Date(thisHour - HOUR), org_id: other.organization.id, count: 100 });
    t.equal(await events24h(), 8, "a row of another organization's is never added");

    // Counters older than two days are purged with the events; the newer ones stay.
    await purgeExpiredEvents(h.app.db, new Date());
    const hours = (await h.app
      .db('connector_hours')
      .where({ connector_id: c.id, org_id: orgId })
      .pluck('count')) as number[];
    t.same(
      hours.map(Number).sort((a, b) => a - b),
      [3, 5, 7],
    );

    // The upgrade fills the last day's counters from the stored events.
    await h.app.db('connector_hours').where({ connector_id: c.id }).delete();
    await countLastDay(h.app.db);
    t.equal(await events24h(), 3, 'the stored events of the last day, counted again');
  },
);

t.test('connectors-admin: refusals, secrets and another organization', async (t) => {
  const owner = await h.owner();
  const ws = await h.workspace(owner);

  const bad = await h.createConnector(owner, ws.id, { kind: 'endpoint', name: 'x', secrets: { api_key: 'abcd1234' } });
  t.equal(bad.status, 422, bad.payload);
  t.equal(bad.body.code, 'invalid_settings');
  t.same(settingsIssues(bad), ['unknown_field@secrets.api_key']);

  const missingKind = await h.createConnector(owner, ws.id, { kind: 'metrics_platform', name: 'x' });
  t.equal(missingKind.status, 422);
  t.equal(missingKind.body.code, 'connector_kind_unavailable');

  const invalid = await h.createConnector(owner, ws.id, { kind: 'nope', name: 'x' });
  t.equal(invalid.status, 400);
  t.equal(invalid.body.code, 'invalid_request');

  const setup = await h.call(owner, 'GET', `/v1/connectors/setup/cloud_logs?workspace_id=${ws.id}`);
  t.equal(setup.status, 200, setup.payload);
  t.match(setup.body.external_id, /^pw-[0-9a-f]{32}$/);
  t.ok(setup.body.trust_policy.includes(setup.body.external_id), 'the trust policy requires the external id');
  t.match(setup.body.principal_arn, /^arn:aws:iam::\d{12}:/);
  const again = await h.call(owner, 'GET', `/v1/connectors/setup/cloud_logs?workspace_id=${ws.id}`);
  t.equal(again.body.external_id, setup.body.external_id, 'stable per workspace');

  const { id, token } = await h.endpoint(owner, ws.id);
  const notEndpoint = await h.call(owner, 'POST', `/v1/connectors/${id}/rotate-token`);
  t.equal(notEndpoint.status, 200);

  // Another organization sees none of it.
  const other = await h.owner();
  const otherWs = await h.workspace(other);
  for (const [method, url] of [
    ['GET', `/v1/connectors/${id}`],
    ['PATCH', `/v1/connectors/${id}`],
    ['DELETE', `/v1/connectors/${id}`],
    ['POST', `/v1/connectors/${id}/pause`],
    ['POST', `/v1/connectors/${id}/resume`],
    ['POST', `/v1/connectors/${id}/rotate-token`],
    ['POST', `/v1/connectors/${id}/test`],
    ['GET', `/v1/connectors?workspace_id=${ws.id}`],
    ['GET', `/v1/connectors/setup/cloud_logs?workspace_id=${ws.id}`],
  ] as const) {
    const res = await h.call(other, method, url, method === 'PATCH' ? { name: 'mine' } : undefined);
    t.equal(res.status, 404, `${method} ${url} is 404 for another organization`);
  }
  const steal = await h.createConnector(other, ws.id, { kind: 'endpoint', name: 'x' });
  t.equal(steal.status, 404, "cannot create in another organization's workspace");
  const otherList = await h.call(other, 'GET', `/v1/connectors?workspace_id=${otherWs.id}`);
  t.equal(otherList.status, 200, otherList.payload);
  t.same(otherList.body.items, []);
  t.equal((await h.ingest(id, token, { message: 'x' })).status, 401, 'the rotated-away token fails');

  // Reviewers read, only owners and admins change.
  const reviewer = await h.member(owner, 'reviewer', [ws.id]);
  t.equal((await h.call(reviewer, 'GET', `/v1/connectors/${id}`)).status, 200);
  t.equal((await h.call(reviewer, 'POST', `/v1/connectors/${id}/pause`)).status, 403);

  // Bad pushes.
  const c2 = await h.endpoint(owner, ws.id);
  t.equal((await h.call(null, 'POST', `/v1/ingest/${c2.id}`, { message: 'x' })).status, 401, 'no token');
  t.equal((await h.ingest('con_unknown', c2.token, { message: 'x' })).status, 401, 'unknown connector');
  const notJson = await h.app.server.inject({
    method: 'POST',
    url: `/v1/ingest/${c2.id}`,
    payload: '{nope',
    headers: { authorization: `Bearer ${c2.token}`, 'content-type': 'application/json' },
  });
  t.equal(notJson.statusCode, 400);
  const noMessage = await h.ingest(c2.id, c2.token, [{ type: 'X', message: 5 }]);
  t.equal(noMessage.status, 400);
  t.equal(noMessage.body.code, 'invalid_payload');
  const tooMany = await h.ingest(
    c2.id,
    c2.token,
    Array.from({ length: 101 }, () => ({ message: 'x' })),
  );
  t.equal(tooMany.status, 400);
  const stored = await h.app.db('error_events').where({ connector_id: c2.id }).count({ n: '*' }).first();
  t.equal(Number(stored!.n), 0, 'bad input stores nothing');
});
