import t from 'tap';
import type { Knex } from 'knex';
import { addMember } from '../../../test/helpers/accounts.js';
import {
  call,
  receiveEmail,
  startManagedFixesApp,
  type ReleaseRow,
  type SubscriberRow,
  shopWithApprovedFixes,
  ticketInState,
  releaseNotices,
  NOTICES_TO_REPORTER_AND_FOLLOWER,
} from './helpers.js';
import { BUG_REPORT, REPO_FILES } from './fixtures/cart.js';

t.test(
  'acceptance (issue 7, offline defaults): email → diagnosis → managed fix → PR with passing tests → approval at its SHA → merge, tag, release → notice to subscribers → status page resolved',
  async (t) => {
    const app = await startManagedFixesApp(t);
    const db = app.db as Knex;
    const { owner, ws, repo, host, ref, verified } = await shopWithApprovedFixes(
      app,
      { merge_method: 'squash', release_strategy: 'semver', github_release_enabled: true },
      REPO_FILES,
    );

    const id = await receiveEmail(app, ws.inbound_address, BUG_REPORT);
    const sub = await call(app, owner, 'POST', `/v1/tickets/${id}/subscribers`, { email: 'grace.hopper@example.com' });
    t.equal(sub.status, 201, 'a second person follows the ticket');
    const attempt = await verified(id);
    t.match(attempt, { status: 'verified', tests_passed: true, verify_passed: true });
    t.match((await call(app, owner, 'GET', `/v1/tickets/${id}`)).body, { state: 'awaiting_approval' });

    const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [ws.id] });
    t.equal(
      (
        await call(app, reviewer, 'POST', `/v1/tickets/${id}/approve`, {
          fix_attempt_id: attempt.id,
          approved_sha: attempt.head_sha,
        })
      ).status,
      403,
      'not an approver role',
    );
    const wrong = await call(app, owner, 'POST', `/v1/tickets/${id}/approve`, {
      fix_attempt_id: attempt.id,
      approved_sha: 'a'.repeat(40),
    });
    t.match(wrong, { status: 409, body: { code: 'sha_mismatch', details: { head_sha: attempt.head_sha } } });
    t.equal(
      (
        await call(app, owner, 'POST', `/v1/tickets/${id}/approve`, {
          fix_attempt_id: attempt.id,
          approved_sha: 'nope',
        })
      ).status,
      400,
    );

    const queue = await call(app, owner, 'GET', '/v1/approvals');
    t.equal(queue.status, 200, queue.payload);
    t.match(
      queue.body.items,
      [
        {
          kind: 'fix',
          ticket_id: id,
          fix_attempt_id: attempt.id,
          head_sha: attempt.head_sha,
          approvals: 0,
          min_approvers: 1,
        },
      ],
      'the approval queue',
    );
    t.same((await call(app, reviewer, 'GET', '/v1/approvals')).body.items, [], 'a reviewer approves nothing');
    const ok = await call(app, owner, 'POST', `/v1/tickets/${id}/approve`, {
      fix_attempt_id: attempt.id,
      approved_sha: attempt.head_sha,
      comment: 'LGTM',
      public_summary: 'The cart total now counts quantities.',
    });
    t.equal(ok.status, 200, ok.payload);
    t.equal(ok.body.state, 'releasing');
    const done = await ticketInState(app, owner, id, 'customer_notified', 'the release and the notice');
    t.match(done, { public_state: 'resolved', resolved_version: '0.1.0' });
    t.ok(done.released_at);

    const rel = (await db('fix_releases').where({ ticket_id: id })) as ReleaseRow[];
    t.equal(rel.length, 1, 'one release');
    t.match(rel[0], {
      status: 'released',
      strategy: 'semver',
      version: '0.1.0',
      tag: 'v0.1.0',
      approved_sha: attempt.head_sha,
    });
    const pr = await host.getPullRequest(ref, attempt.pr_number);
    t.match(pr, { state: 'merged', mergeSha: rel[0].merge_sha });
    const merged = await host.readFile(ref, 'cart.js', 'main');
    t.match(merged?.content.toString(), /i\.price \* i\.qty/, 'main carries the fix (squash at the approved commit)');
    const releases = await host.listReleases(repo.full_name);
    t.match(releases, [{ tag: 'v0.1.0' }], 'a code-host release');
    t.match(await db('fix_approvals').where({ fix_attempt_id: attempt.id }), [
      { sha: attempt.head_sha, role: 'owner', voided_at: null },
    ]);

    // The customer's notice speaks of their own report; the follower's quotes nobody's subject.
    const notices = await releaseNotices(db);
    t.same(
      notices.map((m) => [m.template, m.to_address]),
      NOTICES_TO_REPORTER_AND_FOLLOWER,
      'one notice each',
    );
    t.match(notices[0].subject, 'Fixed: Cart total is wrong');
    t.notMatch(notices[1].text, /Cart total is wrong/, "the follower is not told another customer's subject");
    t.match(notices[1].text, /\/unsubscribe\//, 'every notice carries its unsubscribe link');
    t.match(
      await db('ticket_drafts').where({ ticket_id: id, kind: 'release_notice' }),
      [{ status: 'sent' }],
      "the customer's notice is a release_notice draft, sent",
    );
    t.ok(
      ((await db('ticket_subscribers').where({ ticket_id: id }).first()) as SubscriberRow).notified_at,
      'the subscriber is marked notified',
    );

    const page = await app.server.inject({ method: 'GET', url: new URL(done.public_status_url).pathname });
    t.equal(page.statusCode, 200);
    t.match(page.payload, /0\.1\.0/);
    t.match(page.payload, /The cart total now counts quantities\./);

    t.equal(
      (
        await call(app, owner, 'POST', `/v1/tickets/${id}/approve`, {
          fix_attempt_id: attempt.id,
          approved_sha: attempt.head_sha,
        })
      ).status,
      409,
      'approving again: 409',
    );
    t.equal((await db('fix_releases').where({ ticket_id: id })).length, 1, 'still one release');
    t.same((await call(app, owner, 'GET', '/v1/approvals')).body.items, [], 'nothing waits any more');
  },
);
