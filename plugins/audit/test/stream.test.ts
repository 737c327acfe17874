import { randomBytes } from 'node:crypto';
import t from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { addMember, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { CloudWatchLogsPeer, HttpsPeer, selfSigned, verifySignature } from './helpers/peers.js';
import { auditApp, deliveryOf, json, setPlan, skipBackoff } from './helpers/setup.js';

interface Stream {
  id: string;
  kind: string;
  status: string;
  secret?: string;
  secret_last4: string;
  cloudwatch: Record<string, string> | null;
  delivery: {
    pending: number;
    delivered: number;
    last_error: string | null;
    consecutive_failures: number;
    next_attempt_at: string | null;
  };
}

const tls = selfSigned();

/** One administrative change (an invitation), so one new audit entry. */
async function invite(app: App, owner: SignedUp): Promise<void> {
  const res = await app.server.inject({
    method: 'POST',
    url: '/v1/invitations',
    payload: { email: `x-${randomBytes(4).toString('hex')}@example.test`, role: 'reviewer', workspace_ids: [] },
    ...owner.auth,
  });
  if (res.statusCode !== 201) throw new Error(res.payload);
}

/** Ids of the organization's entries written after `since`, oldest first. */
async function entriesSince(app: App, orgId: string, since: string): Promise<string[]> {
  const rows = await app
    .db('audit_entries')
    .where({ org_id: orgId })
    .where('created_at', '>=', new Date(since))
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select<Array<{ id: string }>>('id');
  return rows.map((r) => r.id);
}

/** A call to the organization's audit stream (`/v1/audit/stream` and `sub`) as `who`. */
const onStream = (app: App, who: SignedUp, method: string, payload?: object, sub = '') =>
  app.server.inject({ method, url: `/v1/audit/stream${sub}`, ...(payload ? { payload } : {}), ...who.auth });

t.test(
  'a stream to an HTTPS collector delivers signed batches in order and survives its downtime without loss',
  async (t) => {
    const peer = new HttpsPeer(tls);
    const url = await peer.start();
    t.teardown(() => peer.stop());
    const app = await auditApp(t, { trustedCa: tls.cert, batchSize: 3 });
    const owner = await signUp(app, { orgName: 'Streamer' });
    const org = owner.organization.id;

    const notInPlan = await onStream(app, owner, 'PUT', { kind: 'https', url });
    t.equal(notInPlan.statusCode, 402);
    t.equal(json(notInPlan).code, 'feature_not_in_plan');
    await setPlan(app, org, 'enterprise');
    t.equal((await onStream(app, owner, 'GET')).statusCode, 404, 'no stream yet');
    t.equal(
      (await onStream(app, owner, 'PUT', { kind: 'https', url: url.replace('https', 'http') })).statusCode,
      400,
      'https only',
    );
    const privateAddress = await onStream(app, owner, 'PUT', { kind: 'https', url: 'https://10.1.2.3/in' });
    t.equal(privateAddress.statusCode, 422);
    t.equal(json(privateAddress).code, 'blocked_address');

    const created = await onStream(app, owner, 'PUT', { kind: 'https', url });
    t.equal(created.statusCode, 200, created.payload);
    const stream = json<Stream>(created);
    const createdAt = (stream as unknown as { created_at: string }).created_at;
    t.match(stream.secret, /^pwss_[\w-]{43}$/, 'the signing secret, once');
    t.equal(stream.secret_last4, stream.secret!.slice(-4));
    const secret = stream.secret!;
    const read = json<Stream>(await onStream(app, owner, 'GET'));
    t.notOk('secret' in read, 'never shown again');
    const stored = (await app.db('audit_streams').where({ id: stream.id }).first()) as { secret_encrypted: string };
    t.notOk(stored.secret_encrypted.includes(secret), 'stored encrypted');

    // The test batch reaches the collector, signed, and is not part of the log.
    const tested = await onStream(app, owner, 'POST', undefined, '/test');
    t.equal(tested.statusCode, 200);
    t.match(json(tested), { ok: true, status: 204, error: null });
    const testBatch = peer.batches.at(-1)!;
    t.equal(testBatch.body.test, true);
    t.equal(testBatch.body.entries[0].action, 'audit_stream.test');
    t.ok(
      verifySignature(String(testBatch.headers['x-patchwell-signature']), testBatch.raw, secret),
      'the test batch is signed',
    );
    t.notOk(
      verifySignature(String(testBatch.headers['x-patchwell-signature']), testBatch.raw, 'pwss_wrong'),
      'not with another secret',
    );

    // Entries written while the collector is up.
    for (let i = 0; i < 4; i++) await invite(app, owner);
    const delivery = deliveryOf(app);
    t.ok((await delivery.deliverDue()) >= 5, 'the stream creation and the invitations');
    for (const b of peer.batches.filter((x) => !x.body.test)) {
      t.ok(verifySignature(String(b.headers['x-patchwell-signature']), b.raw, secret), 'each batch is signed');
      t.equal(b.headers['x-patchwell-batch-id'], b.body.batch_id);
      t.ok(b.body.entries.length <= 3, 'batches of at most batchSize');
    }

    // The collector goes away: nothing is lost, delivery waits and retries.
    await peer.down('closed');
    for (let i = 0; i < 4; i++) await invite(app, owner);
    t.equal(await delivery.deliverDue(), 0);
    let state = json<Stream>(await onStream(app, owner, 'GET'));
    t.equal(state.status, 'failing');
    t.equal(state.delivery.consecutive_failures, 1);
    t.match(state.delivery.last_error, /request_failed/);
    t.ok(state.delivery.pending >= 4, 'the entries wait in the queue');
    t.ok(new Date(state.delivery.next_attempt_at!).getTime() > Date.now(), 'backing off');
    await peer.up();
    t.equal(await delivery.deliverDue(), 0, 'not before the back-off ends');
    // It answers errors for a while: still nothing lost.
    await peer.down('error');
    await skipBackoff(app);
    t.equal(await delivery.deliverDue(), 0);
    state = json<Stream>(await onStream(app, owner, 'GET'));
    t.equal(state.delivery.consecutive_failures, 2);
    t.match(state.delivery.last_error, /503/);
    t.ok(peer.refused >= 1);
    await peer.up();
    await skipBackoff(app);
    t.ok((await delivery.deliverDue()) >= 4, 'delivered once the collector is back');
    state = json<Stream>(await onStream(app, owner, 'GET'));
    t.match(state, { status: 'active', delivery: { pending: 0, consecutive_failures: 0, last_error: null } });

    const delivered = peer.entryIds();
    t.equal(new Set(delivered).size, delivered.length, 'no entry twice');
    const expected = await entriesSince(app, org, createdAt);
    t.same([...delivered].sort(), [...expected].sort(), 'every entry since the stream was created, none lost');
    const times = peer.batches.filter((b) => !b.body.test).flatMap((b) => b.body.entries.map((e) => e.created_at));
    t.same(times, [...times].sort(), 'in order');

    // Rotation: the new secret shown once; for a while batches carry both signatures.
    const rotated = await onStream(app, owner, 'POST', undefined, '/rotate-secret');
    t.equal(rotated.statusCode, 200);
    const fresh = json<Stream>(rotated).secret!;
    t.not(fresh, secret);
    await delivery.deliverDue();
    const last = peer.batches.at(-1)!;
    t.ok(
      last.body.entries.some((e) => e.action === 'audit_stream.secret_rotated'),
      'the rotation is audited and streamed',
    );
    t.ok(verifySignature(String(last.headers['x-patchwell-signature']), last.raw, fresh), 'signed with the new secret');
    t.ok(
      verifySignature(String(last.headers['x-patchwell-signature']), last.raw, secret),
      'and with the previous one during the overlap',
    );

    // Roles and tenancy.
    const reviewer = await addMember(app, owner, { role: 'reviewer' });
    t.equal((await onStream(app, reviewer, 'GET')).statusCode, 403);
    const stranger = await signUp(app, { orgName: 'Elsewhere' });
    await setPlan(app, stranger.organization.id, 'enterprise');
    t.equal((await onStream(app, stranger, 'GET')).statusCode, 404, 'another organization sees no stream');
    t.equal((await onStream(app, stranger, 'POST', undefined, '/test')).statusCode, 404);
    t.equal((await onStream(app, stranger, 'DELETE')).statusCode, 404);
    await delivery.deliverDue();
    const foreign = await app.db('audit_entries').where({ org_id: stranger.organization.id }).select<
      Array<{
        id: string;
      }>
    >('id');
    t.notOk(
      peer.entryIds().some((id) => foreign.some((f) => f.id === id)),
      "another organization's entries never reach this stream",
    );

    // Changing and deleting are audited; the queue goes with the stream.
    const paused = await onStream(app, owner, 'PUT', { kind: 'https', url, enabled: false });
    t.equal(json<Stream>(paused).status, 'disabled');
    await invite(app, owner);
    t.equal(await delivery.deliverDue(), 0, 'a disabled stream sends nothing');
    t.ok(json<Stream>(await onStream(app, owner, 'GET')).delivery.pending >= 2, 'but keeps what it would send');
    const deleted = await onStream(app, owner, 'DELETE');
    t.same(json(deleted), { ok: true });
    t.equal((await onStream(app, owner, 'GET')).statusCode, 404);
    const [queued] = await app.db('audit_stream_queue').count<Array<{ n: string | number }>>('* as n');
    t.equal(Number(queued.n), 0);
    const actions = (
      await app
        .db('audit_entries')
        .where({ org_id: org })
        .where('action', 'like', 'audit_stream.%')
        .select<Array<{ action: string }>>('action')
    )
      .map((r) => r.action)
      .sort();
    t.same(actions, [
      'audit_stream.created',
      'audit_stream.deleted',
      'audit_stream.secret_rotated',
      'audit_stream.updated',
    ]);
  },
);

t.test('a stream to CloudWatch Logs puts each entry as a log event, creating the log stream', async (t) => {
  const accessKeyId = 'AKIAAUDITSTREAMTEST';
  const cw = new CloudWatchLogsPeer(accessKeyId);
  const endpoint = await cw.start();
  t.teardown(() => cw.stop());
  cw.groups.set('/patchwell/audit', new Map());
  const app = await auditApp(t, { cloudwatchEndpoint: endpoint });
  const owner = await signUp(app, { orgName: 'Cloudy' });
  await setPlan(app, owner.organization.id, 'enterprise');

  const payload = {
    kind: 'cloudwatch',
    cloudwatch: {
      region: 'eu-west-1',
      log_group: '/patchwell/audit',
      log_stream: 'acme',
      access_key_id: accessKeyId,
      secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    },
  };
  t.equal(
    (await onStream(app, owner, 'PUT', { ...payload, url: 'https://example.com' })).statusCode,
    400,
    'no url on a cloudwatch stream',
  );
  const res = await onStream(app, owner, 'PUT', payload);
  t.equal(res.statusCode, 200, res.payload);
  const stream = json<Stream>(res);
  t.same(stream.cloudwatch, {
    region: 'eu-west-1',
    log_group: '/patchwell/audit',
    log_stream: 'acme',
    access_key_id: accessKeyId,
    secret_access_key_last4: 'EKEY',
  });
  t.notOk(res.payload.includes('wJalrXUtnFEMI'), 'the AWS secret never comes back');

  await invite(app, owner);
  await invite(app, owner);
  t.ok((await deliveryOf(app).deliverDue()) >= 3);
  t.ok(cw.calls.includes('CreateLogStream'), 'the log stream is created when missing');
  const events = cw.events('/patchwell/audit', 'acme');
  const messages = events.map((e) => JSON.parse(e.message) as { action: string; id: string; batch_id: string });
  t.same(
    messages.map((m) => m.action),
    ['audit_stream.created', 'invitation.created', 'invitation.created'],
  );
  t.ok(messages.every((m) => m.batch_id.startsWith('ab_')));

  const test = await onStream(app, owner, 'POST', undefined, '/test');
  t.match(json(test), { ok: true });
  t.equal(cw.events('/patchwell/audit', 'acme').length, 4);

  // Same access key without the secret keeps the stored secret; a new key needs its secret.
  const { secret_access_key: _omit, ...keep } = payload.cloudwatch;
  t.equal(
    (await onStream(app, owner, 'PUT', { kind: 'cloudwatch', cloudwatch: { ...keep, log_stream: 'acme-2' } }))
      .statusCode,
    200,
  );
  t.equal(
    (
      await onStream(app, owner, 'PUT', {
        kind: 'cloudwatch',
        cloudwatch: { ...keep, access_key_id: 'AKIAOTHERKEY00000' },
      })
    ).statusCode,
    400,
  );

  // A log group that does not exist is an error the owner sees, and the entries wait.
  t.equal(
    (await onStream(app, owner, 'PUT', { kind: 'cloudwatch', cloudwatch: { ...keep, log_group: 'missing' } }))
      .statusCode,
    200,
  );
  await deliveryOf(app).deliverDue();
  const state = json<Stream>(await onStream(app, owner, 'GET'));
  t.match(state.delivery.last_error, /ResourceNotFoundException/);
  t.ok(state.delivery.pending >= 1);
});
