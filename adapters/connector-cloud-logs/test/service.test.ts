import t from 'tap';
import {
  connectorPollState,
  settingsIssues,
  startProactive,
  type ProactiveHarness,
} from '../../../plugins/proactive/test/helpers.js';
import { CloudLogsConnectorAdapter } from '../index.js';
import { logEvent, startCloudPeer, type CloudPeer } from './peer.js';

// One service for the file; each scenario signs up its own organization.
let h: ProactiveHarness;
let peer: CloudPeer;
t.before(async () => {
  peer = await startCloudPeer();
  h = await startProactive(t, {
    adapters: {
      connector: ['connector-endpoint', 'connector-cloud-logs'],
      options: { 'connector-cloud-logs': { stsEndpoint: peer.url, logsEndpoint: peer.url } },
    },
  });
});
t.teardown(() => peer.close());

const JS_ERROR = (n: number) =>
  `TypeError: Cannot read properties of undefined (reading 'total') at order ${n}\n    at computeTotal (/var/task/src/cart.js:41:17)`;

t.test(
  'cloud_logs through the service: the setup external id is required, the role is assumed with it, error lines are polled and grouped',
  async (t) => {
    const owner = await h.owner();
    const ws = await h.workspace(owner);
    const setup = await h.call(owner, 'GET', `/v1/connectors/setup/cloud_logs?workspace_id=${ws.id}`);
    t.equal(setup.status, 200, setup.payload);
    const externalId = setup.body.external_id;
    peer.externalId = externalId; // the customer's role trusts this service with the workspace's external id
    const config = {
      region: 'eu-west-1',
      role_arn: peer.roleArn,
      external_id: externalId,
      log_group_name: peer.logGroup,
    };
    const secrets = { access_key_id: peer.accessKeyId, secret_access_key: peer.secretAccessKey };

    const mismatch = await h.createConnector(owner, ws.id, {
      kind: 'cloud_logs',
      name: 'Lambda',
      config: { ...config, external_id: 'pw-00000000000000000000000000000000' },
      secrets,
    });
    t.equal(mismatch.status, 422, mismatch.payload);
    t.equal(mismatch.body.code, 'invalid_settings');
    t.same(settingsIssues(mismatch), ['external_id_mismatch@config.external_id']);
    const region = await h.createConnector(owner, ws.id, {
      kind: 'cloud_logs',
      name: 'Lambda',
      config: { ...config, region: 'moon-1' },
      secrets,
    });
    t.same(settingsIssues(region), ['invalid_region@config.region']);

    const base = Date.now() - 10 * 60_000;
    peer.events.push(
      logEvent(base, JS_ERROR(101)),
      logEvent(base + 1000, 'INFO checkout done'),
      logEvent(base + 2000, JS_ERROR(202)),
      logEvent(base + 3000, JS_ERROR(303)),
    );
    const created = await h.createConnector(owner, ws.id, { kind: 'cloud_logs', name: 'Lambda', config, secrets });
    t.equal(created.status, 201, created.payload);
    const c = created.body.connector as { id: string; polls: boolean };
    t.equal(c.polls, true);
    t.notOk(created.payload.includes(peer.secretAccessKey), 'the secret key is never answered');

    const tested = await h.call(owner, 'POST', `/v1/connectors/${c.id}/test`);
    t.match(tested.body, { ok: true, code: 'ok', connector: { status: 'active' } }, tested.payload);
    t.equal(
      peer.assumeCalls[peer.assumeCalls.length - 1].ExternalId,
      externalId,
      'AssumeRole carried the workspace external id',
    );

    await h.app.scheduler.runNow('proactive.poll-connectors');
    const events = await h.app.db('error_events').where({ connector_id: c.id }).select('source');
    t.equal(events.length, 3, 'three error lines over two pages; the info line left out');
    t.ok(events.every((e: { source: string }) => e.source === 'cloud_logs'));
    t.equal((await h.app.db('error_groups').where({ workspace_id: ws.id })).length, 1, 'one error, one group');

    // The role stops trusting the external id: the next poll fails with forbidden and backs off.
    peer.externalId = 'pw-rotated-elsewhere';
    const other = new CloudLogsConnectorAdapter(
      CloudLogsConnectorAdapter.validateOptions({ stsEndpoint: peer.url, logsEndpoint: peer.url }),
      { config: {}, log: undefined },
    );
    t.match(await other.test({ connectorId: 'con_x', workspaceId: ws.id, config, secrets }), {
      ok: false,
      code: 'forbidden',
    });
    peer.fail.push(500);
    await h.app
      .db('connectors')
      .where({ id: c.id })
      .update({ next_poll_at: new Date(Date.now() - 1000) });
    await h.app.scheduler.runNow('proactive.poll-connectors');
    const row = await connectorPollState(h.app, c.id);
    t.match(row, { status: 'error', last_error_code: 'provider_error', error_count: 1 });
    t.ok(new Date(row.next_poll_at).getTime() > Date.now() + 10_000, 'backed off');
    peer.events.length = 0;
  },
);
