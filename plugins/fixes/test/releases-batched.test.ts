import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { call, receiveEmail, waitFor } from './helpers.js';
import { BUG_REPORT } from './fixtures/cart.js';
import { TAX_REPORT, releaseShop, startReleases } from './fixtures/releases.js';

const { app, db, releases } = await startReleases(t);

t.test(
  'batched: two merged fixes make one proposal, approved at the head SHA (a stale SHA is refused), one tag and release cover both tickets, each gets its notice',
  async (t) => {
    const { owner, ws, repo, host, ref, verified } = await releaseShop(app, {
      release_strategy: 'semver',
      release_batching: 'batched',
      changelog_enabled: true,
      github_release_enabled: true,
    });
    const other = await signUp(app, { orgName: 'Other' });

    const cart = await receiveEmail(app, ws.inbound_address, BUG_REPORT);
    const tax = await receiveEmail(app, ws.inbound_address, TAX_REPORT);
    const [a1, a2] = await Promise.all([verified(cart), verified(tax)]);
    const proposal = () => call(app, owner, 'GET', `/v1/releases?workspace_id=${ws.id}&status=proposed`);

    t.equal(
      (
        await call(app, owner, 'POST', `/v1/tickets/${cart}/approve`, {
          fix_attempt_id: a1.id,
          approved_sha: a1.head_sha,
          public_summary: 'The cart total now counts quantities.',
        })
      ).status,
      200,
    );
    const p1 = await waitFor(async () => (await proposal()).body.items.at(0), 'the proposal');
    t.match(p1, {
      kind: 'batched',
      status: 'proposed',
      version: null,
      tickets: [{ ticket_id: cart, fix_attempt_id: a1.id, state: 'releasing' }],
      approvals: 0,
      min_approvers: 1,
      changelog: '- The cart total now counts quantities.',
    });
    t.equal(
      (await call(app, owner, 'GET', `/v1/tickets/${cart}`)).body.public_state,
      'releasing',
      'merged, waiting for the release',
    );

    t.equal(
      (
        await call(app, owner, 'POST', `/v1/tickets/${tax}/approve`, {
          fix_attempt_id: a2.id,
          approved_sha: a2.head_sha,
        })
      ).status,
      200,
    );
    const p2 = await waitFor(async () => {
      const item = (await proposal()).body.items.at(0);
      return item?.tickets.length === 2 ? item : null;
    }, 'the second fix in the proposal');
    t.equal(p2.id, p1.id, 'one open proposal');
    t.not(p2.head_sha, p1.head_sha, 'its head moved to the second merge');
    t.equal(p2.head_sha, (await host.getBranch(ref, 'main'))!.sha, 'the head of the default branch');
    t.equal(p2.changelog, '- The cart total now counts quantities.\n- A reported problem is fixed.');
    t.match(
      (await call(app, owner, 'GET', '/v1/releases')).body.items,
      [{ id: p1.id }],
      'the merges are listed inside the proposal only',
    );

    // The approval queue lists the proposal at its head (issue 25): one approval releases both tickets.
    const queue = await call(app, owner, 'GET', '/v1/approvals');
    t.equal(queue.status, 200, queue.payload);
    t.match(queue.body.items, [
      {
        kind: 'release',
        release_id: p1.id,
        ticket_id: null,
        fix_attempt_id: null,
        subject: null,
        head_sha: p2.head_sha,
        pull_request_url: null,
        tickets: 2,
        approvals: 0,
        min_approvers: 1,
      },
    ]);
    const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [ws.id] });
    t.same(
      (await call(app, reviewer, 'GET', '/v1/approvals')).body.items,
      [],
      'nothing for a role that does not approve',
    );
    t.same(
      (await call(app, other, 'GET', '/v1/approvals')).body.items,
      [],
      "another organization's proposal is not listed",
    );
    t.match(
      await call(app, reviewer, 'POST', `/v1/releases/${p1.id}/approve`, { sha: p2.head_sha }),
      { status: 403 },
      'not an approver role',
    );
    t.equal(
      (await call(app, other, 'POST', `/v1/releases/${p1.id}/approve`, { sha: p2.head_sha })).status,
      404,
      'another organization',
    );
    t.match(
      await call(app, owner, 'POST', `/v1/releases/${p1.id}/approve`, { sha: p1.head_sha }),
      { status: 409, body: { code: 'sha_mismatch', details: { head_sha: p2.head_sha } } },
      'a stale SHA',
    );
    t.equal((await call(app, owner, 'POST', `/v1/releases/${p1.id}/approve`, { sha: 'nope' })).status, 400);
    t.match(
      await call(app, owner, 'POST', `/v1/releases/${p1.id}/version`, { version: '2.0.0' }),
      { status: 409, body: { code: 'invalid_transition' } },
      'a proposal does not wait for a version',
    );

    const ok = await call(app, owner, 'POST', `/v1/releases/${p1.id}/approve`, {
      sha: p2.head_sha,
      comment: 'ship it',
    });
    t.equal(ok.status, 200, ok.payload);
    t.match(ok.body, { id: p1.id, approved_sha: p2.head_sha });
    const done = await waitFor(
      async () => {
        const r = (await call(app, owner, 'GET', `/v1/releases/${p1.id}`)).body;
        return r.status === 'released' ? r : null;
      },
      'the batched release',
      30_000,
    );
    t.match(done, {
      version: '0.1.0',
      tag: 'v0.1.0',
      merge_sha: p2.head_sha,
      ci_state: 'none',
      release_url: /releases\/tag\/v0\.1\.0/,
      tickets: [{ state: 'customer_notified' }, { state: 'customer_notified' }],
    });
    for (const id of [cart, tax]) {
      t.match((await call(app, owner, 'GET', `/v1/tickets/${id}`)).body, {
        public_state: 'resolved',
        resolved_version: '0.1.0',
      });
      t.equal(
        (await db('mail_messages').where({ template: 'fixes.release_notice', ticket_ref: id })).length,
        1,
        'one notice per ticket',
      );
    }
    t.match(
      await host.listReleases(repo.full_name),
      [{ tag: 'v0.1.0', body: '- The cart total now counts quantities.\n- A reported problem is fixed.' }],
      'one code-host release with the changelog',
    );
    t.equal((await db('fix_releases').where({ kind: 'batched', workspace_id: ws.id })).length, 1, 'one release');

    await releases.advance(owner.organization.id, p1.id);
    t.equal(
      (await db('mail_messages').where({ template: 'fixes.release_notice' }).whereIn('ticket_ref', [cart, tax])).length,
      2,
      'a redelivered release message sends nothing again',
    );
    t.match(
      await call(app, owner, 'POST', `/v1/releases/${p1.id}/approve`, { sha: p2.head_sha }),
      { status: 409, body: { code: 'invalid_transition' } },
      'approved once',
    );
    t.match(await db('audit_entries').where({ target_id: p1.id }), [
      { action: 'release.approved', actor_type: 'user' },
    ]);
    t.same((await proposal()).body.items, [], 'no open proposal left');
    t.same((await call(app, owner, 'GET', '/v1/approvals')).body.items, [], 'approved: the queue is empty');
  },
);
