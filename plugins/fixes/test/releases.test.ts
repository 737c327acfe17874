import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { signPayload } from '../../../test/helpers/codehost.js';
import { HOST_SECRET, call, receiveEmail, waitFor, ticketInState, type ReleaseRow } from './helpers.js';
import { BUG_REPORT } from './fixtures/cart.js';
import { TAX_REPORT, releaseShop, startReleases } from './fixtures/releases.js';

const { app, db, releases } = await startReleases(t);

t.test(
  'per ticket: history with CI status, manual version (waiting_version, 409 version_exists), a stopped tag resumed by retry, auto close, another organization 404',
  async (t) => {
    const { owner, ws, repo, host, ref, verified } = await releaseShop(app, { release_strategy: 'semver' });
    const other = await signUp(app, { orgName: 'Other' });

    const ticketIn = (id: string, state: string) => ticketInState(app, owner, id, state);
    const releaseIn = (id: string, status: string) =>
      waitFor(
        async () => {
          const r = (await call(app, owner, 'GET', `/v1/releases/${id}`)).body;
          return r.status === status ? r : null;
        },
        `release ${status}`,
        30_000,
      );

    // 1. a per-ticket release, listed with its CI state
    const first = await receiveEmail(app, ws.inbound_address, BUG_REPORT);
    const a1 = await verified(first);
    t.equal(
      (
        await call(app, owner, 'POST', `/v1/tickets/${first}/approve`, {
          fix_attempt_id: a1.id,
          approved_sha: a1.head_sha,
        })
      ).status,
      200,
    );
    await ticketIn(first, 'customer_notified');
    const list = await call(app, owner, 'GET', `/v1/releases?workspace_id=${ws.id}`);
    t.equal(list.status, 200, list.payload);
    t.equal(list.body.items.length, 1);
    const r1 = list.body.items[0];
    t.match(r1, {
      kind: 'per_ticket',
      status: 'released',
      version: '0.1.0',
      tag: 'v0.1.0',
      ci_state: 'none',
      approved_sha: a1.head_sha,
      tickets: [{ ticket_id: first, fix_attempt_id: a1.id, state: 'customer_notified' }],
    });
    t.ok(r1.merge_sha && r1.released_at);
    // CI changes on the code host: a read answers the stored state without calling the host; the
    // code host's status webhook (codehost.ci_updated) is what updates it.
    const hostCalls: string[] = [];
    const getCommitStatus = host.getCommitStatus.bind(host);
    host.getCommitStatus = async (r, sha) => {
      hostCalls.push(sha);
      return getCommitStatus(r, sha);
    };
    await host.setCommitStatus(repo.full_name, r1.merge_sha!, { context: 'ci', state: 'success' });
    t.match(
      (await call(app, owner, 'GET', `/v1/releases/${r1.id}`)).body,
      { id: r1.id, ci_state: 'none' },
      'a read answers the stored CI state',
    );
    t.same(hostCalls, [], 'a read does not call the code host');
    const status = signPayload(
      'status',
      {
        sha: r1.merge_sha,
        state: 'success',
        context: 'ci',
        repository: { id: repo.external_id, full_name: repo.full_name },
      },
      HOST_SECRET,
    );
    t.equal(
      (
        await app.server.inject({
          method: 'POST',
          url: '/v1/webhooks/codehost',
          headers: status.headers,
          payload: status.rawBody,
        })
      ).statusCode,
      202,
    );
    await waitFor(
      async () =>
        ((await db('fix_releases').where({ id: r1.id }).first()) as ReleaseRow).ci_state === 'success' || null,
      'the CI state recorded by the consumer',
    );
    t.same(hostCalls, [r1.merge_sha], 'the consumer read the new state from the host once');
    t.match(
      (await call(app, owner, 'GET', `/v1/releases/${r1.id}`)).body,
      { id: r1.id, ci_state: 'success' },
      'the release shows it',
    );
    t.match(
      (await call(app, owner, 'GET', '/v1/releases?status=released')).body.items,
      [{ id: r1.id, ci_state: 'success' }],
      'and the history shows it',
    );
    t.equal(hostCalls.length, 1, 'reads made no code-host call');
    host.getCommitStatus = getCommitStatus;
    t.same(
      (await call(app, owner, 'GET', '/v1/releases?status=proposed')).body.items,
      [],
      'no proposal in a per-ticket workspace',
    );
    const viewer = await addMember(app, owner, { role: 'client_viewer', workspaceIds: [ws.id] });
    t.equal((await call(app, viewer, 'GET', `/v1/releases/${r1.id}`)).status, 200, 'a client viewer reads');
    t.equal((await call(app, viewer, 'POST', `/v1/releases/${r1.id}/retry`, {})).status, 403, 'but does not act');

    // another organization
    t.equal((await call(app, other, 'GET', `/v1/releases/${r1.id}`)).status, 404);
    t.match(await call(app, other, 'POST', `/v1/releases/${r1.id}/retry`, {}), {
      status: 404,
      body: { code: 'not_found' },
    });
    t.equal((await call(app, other, 'POST', `/v1/releases/${r1.id}/version`, { version: '9.9.9' })).status, 404);
    t.equal((await call(app, other, 'POST', `/v1/releases/${r1.id}/approve`, { sha: r1.merge_sha })).status, 404);
    t.same((await call(app, other, 'GET', '/v1/releases')).body.items, [], 'another organization lists nothing');
    t.match(
      await call(app, owner, 'POST', `/v1/releases/${r1.id}/retry`, {}),
      { status: 409, body: { code: 'invalid_transition' } },
      'a released release: nothing to retry',
    );
    t.match(
      await call(app, owner, 'POST', `/v1/releases/${r1.id}/approve`, { sha: r1.merge_sha }),
      { status: 409, body: { code: 'invalid_transition' } },
      'not a proposal',
    );

    // 2. manual strategy: the release waits for its version after the merge
    t.equal((await call(app, owner, 'PATCH', `/v1/workspaces/${ws.id}`, { release_strategy: 'manual' })).status, 200);
    const main = (await host.getBranch(ref, 'main'))!.sha;
    await host.createTag(ref, { name: 'v1.0.0', sha: main, message: 'made by hand' });
    const second = await receiveEmail(app, ws.inbound_address, TAX_REPORT);
    const a2 = await verified(second);
    const ok = await call(app, owner, 'POST', `/v1/tickets/${second}/approve`, {
      fix_attempt_id: a2.id,
      approved_sha: a2.head_sha,
    });
    t.equal(ok.status, 200, ok.payload);
    const rel2Id = ((await db('fix_releases').where({ ticket_id: second }).first()) as ReleaseRow).id;
    const waiting = await releaseIn(rel2Id, 'waiting_version');
    t.match(waiting, { strategy: 'manual', version: null, tag: null, merge_sha: /^[0-9a-f]{40}$/ });
    t.equal(
      (await call(app, owner, 'GET', `/v1/tickets/${second}`)).body.state,
      'releasing',
      'the ticket waits in releasing',
    );
    t.match(await call(app, owner, 'POST', `/v1/releases/${rel2Id}/version`, { version: 'not a version!' }), {
      status: 422,
      body: { code: 'invalid_version' },
    });
    t.match(
      await call(app, owner, 'POST', `/v1/releases/${rel2Id}/version`, { version: '0.1.0' }),
      { status: 409, body: { code: 'version_exists' } },
      'the version of an earlier release',
    );
    t.equal((await call(app, owner, 'POST', `/v1/releases/${rel2Id}/version`, {})).status, 400);

    // 3. the tag v1.0.0 exists on another commit: the release stops after the merge, retry resumes it with another version
    const set = await call(app, owner, 'POST', `/v1/releases/${rel2Id}/version`, { version: '1.0.0' });
    t.equal(set.status, 200, set.payload);
    const stopped = await releaseIn(rel2Id, 'failed');
    t.match(stopped, { failed_step: 'tagging', error_code: 'tag_exists', version: '1.0.0', tag: null });
    await ticketIn(second, 'escalated');
    t.match(
      await call(app, owner, 'POST', `/v1/releases/${rel2Id}/version`, { version: '1.0.1' }),
      { status: 409, body: { code: 'invalid_transition' } },
      'not waiting for a version any more',
    );
    const retry = await call(app, owner, 'POST', `/v1/releases/${rel2Id}/retry`, { version: '1.0.1' });
    t.equal(retry.status, 200, retry.payload);
    const done = await releaseIn(rel2Id, 'released');
    t.match(done, {
      version: '1.0.1',
      tag: 'v1.0.1',
      merge_sha: waiting.merge_sha,
      tickets: [{ ticket_id: second, state: 'customer_notified' }],
    });
    t.match((await call(app, owner, 'GET', `/v1/tickets/${second}`)).body, {
      public_state: 'resolved',
      resolved_version: '1.0.1',
    });
    t.equal(
      (await db('mail_messages').where({ template: 'fixes.release_notice', ticket_ref: second })).length,
      1,
      'one notice',
    );
    t.match(
      await call(app, owner, 'POST', `/v1/tickets/${second}/release/retry`, {}),
      { status: 409, body: { code: 'invalid_transition' } },
      'the ticket has nothing left to retry',
    );
    await releases.advance(owner.organization.id, rel2Id);
    t.equal(
      (await db('mail_messages').where({ template: 'fixes.release_notice', ticket_ref: second })).length,
      1,
      'a redelivered message sends nothing again',
    );
    t.match(
      await db('audit_entries').where({ target_id: rel2Id }).orderBy('created_at').select('action', 'actor_type'),
      [{ action: 'release.version_set' }, { action: 'release.retried' }],
    );
    const hist = (await call(app, owner, 'GET', `/v1/releases?workspace_id=${ws.id}&limit=1`)).body;
    t.match(hist.items, [{ id: rel2Id }], 'newest first');
    t.match(
      (await call(app, owner, 'GET', `/v1/releases?workspace_id=${ws.id}&limit=1&cursor=${hist.next_cursor}`)).body,
      { items: [{ id: r1.id }], next_cursor: null },
    );

    // 4. auto close: 0 never closes; otherwise resolved tickets close after auto_close_days
    await db('tickets')
      .whereIn('id', [first, second])
      .update({ released_at: new Date(Date.now() - 3 * 86_400_000) });
    t.equal((await call(app, owner, 'PATCH', `/v1/workspaces/${ws.id}`, { auto_close_days: 0 })).status, 200);
    await releases.autoClose();
    t.equal(
      (await call(app, owner, 'GET', `/v1/tickets/${first}`)).body.state,
      'customer_notified',
      'auto_close_days 0: kept',
    );
    t.equal((await call(app, owner, 'PATCH', `/v1/workspaces/${ws.id}`, { auto_close_days: 5 })).status, 200);
    await releases.autoClose();
    t.equal(
      (await call(app, owner, 'GET', `/v1/tickets/${first}`)).body.state,
      'customer_notified',
      'resolved 3 days ago, auto_close_days 5: kept',
    );
    t.equal((await call(app, owner, 'PATCH', `/v1/workspaces/${ws.id}`, { auto_close_days: 2 })).status, 200);
    await releases.autoClose();
    for (const id of [first, second])
      t.match(
        (await call(app, owner, 'GET', `/v1/tickets/${id}`)).body,
        { state: 'closed', public_state: 'resolved' },
        'closed after auto_close_days',
      );
    t.match(
      await db('audit_entries').where({ target_id: first, action: 'ticket.closed' }),
      [{ actor_type: 'system' }],
      'audited as system',
    );
    t.equal(await releases.autoClose(), 0, 'nothing twice');
  },
);
