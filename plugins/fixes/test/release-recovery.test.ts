import t from 'tap';
import type { Knex } from 'knex';
import { signUp } from '../../../test/helpers/accounts.js';
import {
  call,
  localHost,
  receiveEmail,
  type ReleaseRow,
  startManagedFixesApp,
  fixWithPullRequest,
  shopWithRepository,
  ticketInState,
} from './helpers.js';
import { BUG_REPORT, REPO_FILES } from './fixtures/cart.js';

t.test(
  'a release stopped by failing CI: back to approval, approve again, then release retry resumes with the same commit',
  async (t) => {
    const app = await startManagedFixesApp(t);
    const db = app.db as Knex;
    const { owner, ws, repo } = await shopWithRepository(
      app,
      { test_command: 'node test.js', confidence_threshold: 0.5, release_strategy: 'calver' },
      REPO_FILES,
    );
    const other = await signUp(app, { orgName: 'Other' });
    const host = localHost(app);
    const id = await receiveEmail(app, ws.inbound_address, BUG_REPORT);
    const attempt = await fixWithPullRequest(db, id, 'the fix');
    const state = (want: string) => ticketInState(app, owner, id, want, want);

    await host.setCommitStatus(repo.full_name, attempt.head_sha, { context: 'ci', state: 'failure' });
    const approve = () =>
      call(app, owner, 'POST', `/v1/tickets/${id}/approve`, {
        fix_attempt_id: attempt.id,
        approved_sha: attempt.head_sha,
      });
    t.equal((await approve()).status, 200);
    const stopped = await state('escalated');
    t.match(stopped, { public_state: 'team_review' });
    t.match(await db('fix_releases').where({ ticket_id: id }).first(), {
      status: 'failed',
      failed_step: 'merging',
      error_code: /./,
    });

    t.equal(
      (await call(app, other, 'POST', `/v1/tickets/${id}/back-to-approval`, { fix_attempt_id: attempt.id })).status,
      404,
      'another organization: 404',
    );
    const back = await call(app, owner, 'POST', `/v1/tickets/${id}/back-to-approval`, {
      fix_attempt_id: attempt.id,
      comment: 'CI was red',
    });
    t.equal(back.status, 200, back.payload);
    t.equal(back.body.state, 'awaiting_approval');
    t.match(
      await db('fix_approvals').where({ fix_attempt_id: attempt.id }),
      [{ void_reason: 'back_to_approval' }],
      'earlier approvals are void',
    );
    t.equal(
      (await host.getPullRequest({ installationId: null, fullName: repo.full_name }, attempt.pr_number))?.state,
      'open',
      'the pull request is kept',
    );
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${id}/back-to-approval`, { fix_attempt_id: attempt.id })).status,
      409,
      'not escalated any more: 409',
    );

    t.equal((await approve()).status, 200, 'approved again');
    await state('escalated');
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${id}/release/retry`, {})).status,
      200,
      'retry while CI is red',
    );
    await state('escalated');

    await host.setCommitStatus(repo.full_name, attempt.head_sha, { context: 'ci', state: 'success' });
    const retry = await call(app, owner, 'POST', `/v1/tickets/${id}/release/retry`, {});
    t.equal(retry.status, 200, retry.payload);
    t.equal(retry.body.state, 'releasing');
    const done = await state('customer_notified');
    t.match(done.resolved_version, /^\d{4}\.\d{2}\.\d{2}$/, 'calver');
    const rels = (await db('fix_releases').where({ ticket_id: id }).orderBy('created_at')) as ReleaseRow[];
    t.equal(rels.filter((r) => r.status === 'released').length, 1, 'released once');
    t.equal(rels.at(-1)!.approved_sha, attempt.head_sha, 'at the approved commit');
    t.equal((await db('mail_messages').where({ template: 'fixes.release_notice' })).length, 1, 'one notice');
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${id}/release/retry`, {})).status,
      409,
      'nothing left to retry',
    );
  },
);
