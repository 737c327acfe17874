import t from 'tap';
import type { Knex } from 'knex';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import {
  VERIFIED_FIRST_ATTEMPT,
  call,
  jobEvents,
  receiveEmail,
  waitFor,
  type AttemptRow,
  type CountRow,
  type DiagnosisRow,
  type JobRow,
  startManagedFixesApp,
  shopWithApprovedFixes,
} from './helpers.js';
import { REPO_FILES } from './fixtures/cart.js';

// The "agent": a scripted command that fixes the defect.
const AGENT = `echo "fixing cart for $PATCHWELL_TICKET_ID"; sed -i 's/sum + i.price,/sum + i.price * i.qty,/' cart.js`;

t.test('a bug report becomes a verified fix with a pull request (managed executor, codehost-local)', async (t) => {
  const app = await startManagedFixesApp(t, AGENT);
  const db = app.db as Knex;
  const { owner, ws, host, ref, verified } = await shopWithApprovedFixes(
    app,
    { execution_mode: 'managed' },
    REPO_FILES,
  );

  const id = await receiveEmail(app, ws.inbound_address, {
    subject: 'Cart total is wrong',
    body: 'The cart total is wrong since the last update: cartTotal ignores the quantity. Error 500 at checkout.',
  });
  const dx = await waitFor(
    async () => db('fix_diagnoses').where({ ticket_id: id }).first() as Promise<DiagnosisRow | undefined>,
    'the diagnosis',
  );
  t.match(dx, { category: 'bug', outcome: 'fix_queued' });
  t.ok(
    dx.references.some((r) => r.path === 'cart.js'),
    'references point at the code',
  );

  const attempt = await verified(id);
  t.match(attempt, {
    ...VERIFIED_FIRST_ATTEMPT,
    branch: `patchwell/${id}-1`,
    pr_state: 'open',
  });
  const pr = await host.getPullRequest(ref, attempt.pr_number);
  t.match(pr, {
    state: 'open',
    head: { branch: `patchwell/${id}-1`, sha: attempt.head_sha },
    base: { branch: 'main' },
  });
  const file = await host.readFile(ref, 'cart.js', attempt.head_sha);
  t.match(file?.content.toString(), /i\.price \* i\.qty/, 'the branch carries the fix');

  const tk = (await call(app, owner, 'GET', `/v1/tickets/${id}`)).body;
  t.match(tk, {
    state: 'awaiting_approval',
    public_state: 'fix_in_progress',
    needs_team_action: true,
    category: 'bug',
  });
  const job = (await db('fix_jobs').where({ ticket_id: id, kind: 'fix' }).first()) as JobRow;
  t.match(job, { status: 'succeeded', executor: 'agent-managed', fix_attempt_id: attempt.id });
  const events = await jobEvents(app, owner, id, job);
  t.ok(
    events.some((e) => e.type === 'agent_output' && e.message === `fixing cart for ${id}`),
    'agent output in the log',
  );
  t.ok(
    events.some((e) => e.type === 'test_output' && e.message === 'cart ok'),
    'test output in the log',
  );
  t.equal(
    await db('fix_jobs')
      .where({ ticket_id: id, kind: 'fix' })
      .count('* as n')
      .first()
      .then((r) => Number((r as CountRow).n)),
    1,
    'one fix job',
  );

  // The reviewer reads the diff.
  const other = await signUp(app, { orgName: 'Other' });
  const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [ws.id] });
  const diff = await call(app, reviewer, 'GET', `/v1/tickets/${id}/fix-attempts/${attempt.id}/diff`);
  t.equal(diff.status, 200, JSON.stringify(diff.body));
  t.match(diff.body, { truncated: false, unavailable: null, source: 'pull_request' });
  t.match(
    diff.body.text,
    /\+exports\.cartTotal = \(items\) => items\.reduce\(\(sum, i\) => sum \+ i\.price \* i\.qty, 0\);/,
  );
  t.equal(
    (await call(app, other, 'GET', `/v1/tickets/${id}/fix-attempts/${attempt.id}/diff`)).status,
    404,
    'another organization: 404',
  );
  t.equal((await call(app, owner, 'GET', `/v1/tickets/${id}/fix-attempts/fxa_nope/diff`)).status, 404);

  // Copilot from now on: the next attempt waits for open-pr.
  t.equal((await call(app, owner, 'PATCH', `/v1/workspaces/${ws.id}`, { autonomy: 'copilot' })).status, 200);
  t.equal(
    (await call(app, owner, 'POST', `/v1/tickets/${id}/request-changes`, { fix_attempt_id: attempt.id })).status,
    400,
    'comment is required',
  );
  const rc = await call(app, reviewer, 'POST', `/v1/tickets/${id}/request-changes`, {
    fix_attempt_id: attempt.id,
    comment: 'Please also handle a missing qty.',
  });
  t.equal(rc.status, 200, rc.payload);
  t.equal(rc.body.state, 'fixing');
  t.equal((await host.getPullRequest(ref, attempt.pr_number))?.state, 'closed', 'the old pull request is closed');
  const second = await waitFor(
    async () => {
      const a = (await db('fix_attempts').where({ ticket_id: id, number: 2 }).first()) as AttemptRow | undefined;
      return a?.status === 'verified' ? a : null;
    },
    'the second attempt',
    40_000,
  );
  t.match(second, {
    reviewer_notes: 'Please also handle a missing qty.',
    pr_number: null,
    branch: `patchwell/${id}-2`,
  });
  t.match(
    ((await db('fix_jobs').where({ id: second.job_id }).first()) as JobRow).payload.instructions,
    /Please also handle a missing qty/,
  );
  t.equal(((await db('fix_attempts').where({ id: attempt.id }).first()) as AttemptRow).status, 'superseded');
  t.equal(
    (
      await call(app, owner, 'POST', `/v1/tickets/${id}/request-changes`, {
        fix_attempt_id: attempt.id,
        comment: 'again',
      })
    ).status,
    409,
    'a superseded attempt takes no change requests',
  );

  const opened = await call(app, owner, 'POST', `/v1/tickets/${id}/open-pr`, {
    fix_attempt_id: second.id,
    draft: true,
  });
  t.equal(opened.status, 200, opened.payload);
  const second2 = (await db('fix_attempts').where({ id: second.id }).first()) as AttemptRow;
  t.ok(second2.pr_number, 'copilot: the pull request opened on request');
  t.match(await host.getPullRequest(ref, second2.pr_number!), {
    draft: true,
    head: { sha: second2.head_sha },
  });
  t.equal(
    (await call(app, owner, 'POST', `/v1/tickets/${id}/open-pr`, { fix_attempt_id: second.id })).status,
    200,
    'idempotent',
  );
  t.equal(
    await db('audit_entries')
      .where({ action: 'fix.pull_request_opened' })
      .count('* as n')
      .first()
      .then((r) => Number((r as CountRow).n)),
    1,
  );

  // Reject needs an approver role (governance default: owner, admin).
  t.equal((await call(app, reviewer, 'POST', `/v1/tickets/${id}/reject`, { fix_attempt_id: second.id })).status, 403);
  t.equal((await call(app, other, 'POST', `/v1/tickets/${id}/reject`, { fix_attempt_id: second.id })).status, 404);
  const rej = await call(app, owner, 'POST', `/v1/tickets/${id}/reject`, {
    fix_attempt_id: second.id,
    comment: 'Wrong approach',
  });
  t.equal(rej.status, 200, rej.payload);
  t.match(rej.body, { state: 'escalated', public_state: 'team_review' });
  t.equal((await host.getPullRequest(ref, second2.pr_number!))?.state, 'closed', 'the pull request is closed');
  t.equal(((await db('fix_attempts').where({ id: second.id }).first()) as AttemptRow).status, 'rejected');
  t.ok(await db('audit_entries').where({ action: 'fix.rejected', target_id: second.id }).first(), 'audited');
  t.equal(
    (await call(app, owner, 'POST', `/v1/tickets/${id}/reject`, { fix_attempt_id: second.id })).status,
    409,
    'twice: 409',
  );
});
