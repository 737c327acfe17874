import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Knex } from 'knex';
import { signUp } from '../../../test/helpers/accounts.js';
import { diagnosisJob, grantFixCredits } from '../../fixes/test/helpers.js';
import {
  bearer,
  call,
  connectRepository,
  createWorkspace,
  git,
  localHost,
  receiveEmail,
  sleep,
  startRunnerApp,
  waitFor,
  type AttemptRow,
  type DiagnosisRow,
  type JobEventRow,
  type JobRow,
  type ReleaseRow,
} from './helpers.js';

const CART = 'exports.cartTotal = (items) => items.reduce((sum, i) => sum + i.price, 0);\n';
const FIXED = 'exports.cartTotal = (items) => items.reduce((sum, i) => sum + i.price * i.qty, 0);\n';
const TEST =
  "const assert = require('node:assert');\nassert.strictEqual(require('./cart.js').cartTotal([{ price: 2, qty: 3 }]), 6);\nconsole.log('cart ok');\n";

t.test(
  'a runner drives a diagnosis and a fix through the jobs API, and the loop goes on (codehost-local)',
  async (t) => {
    const app = await startRunnerApp(t);
    const db = app.db as Knex;
    const owner = await signUp(app, { orgName: 'Acme' });
    await grantFixCredits(app, owner.organization.id); // fixes ask billing first (plan `none` has no credit)
    const ws = await createWorkspace(app, owner, 'Shop', {
      autonomy: 'approve',
      test_command: 'node test.js',
      confidence_threshold: 0.5,
    });
    const repo = await connectRepository(app, owner, ws.id, 'shop', {
      'README.md': '# Shop\n',
      'cart.js': CART,
      'test.js': TEST,
    });

    // register: the token is shown once and kept hashed.
    const reg = await call(app, owner, 'POST', '/v1/runner/register', { workspace_id: ws.id, name: 'ci' });
    t.equal(reg.status, 201, JSON.stringify(reg.body));
    t.match(reg.body, {
      workspace_id: ws.id,
      name: 'ci',
      runner_transport: 'github_actions',
      token: /^pw_runner_/,
      revoked_at: null,
    });
    const runnerToken = reg.body.token as string;
    const stored = await db('runners').where({ id: reg.body.id }).first<{ token_hash: string }>();
    t.not(stored.token_hash, runnerToken, 'hashed at rest');
    t.ok(await db('audit_entries').where({ action: 'runner.registered', target_id: reg.body.id }).first(), 'audited');
    t.equal((await bearer(app, runnerToken, 'POST', '/v1/runner/claim')).status, 204, 'nothing queued yet');
    t.equal((await bearer(app, null, 'POST', '/v1/runner/claim')).status, 401, 'no token: 401');

    // A bug report: the diagnosis job waits for the runner; the in-process worker leaves it alone.
    const ticketId = await receiveEmail(app, ws.inbound_address, {
      subject: 'Cart total is wrong',
      body: 'The cart total ignores the quantity since the last update. cartTotal is wrong at checkout.',
    });
    const queued = await diagnosisJob(db, ticketId);
    t.match(queued, { kind: 'diagnose', executor: 'agent-runner', mode: 'runner', status: 'queued' });
    await sleep(400);
    t.equal(
      (await db('fix_jobs').where({ id: queued.id }).first<JobRow>()).status,
      'queued',
      'not claimed by the in-process worker',
    );

    const claim = await bearer(app, runnerToken, 'POST', '/v1/runner/claim');
    t.equal(claim.status, 200, JSON.stringify(claim.body));
    t.match(claim.body, {
      job_id: queued.id,
      kind: 'diagnose',
      ticket_id: ticketId,
      attempt: 1,
      job_token: /^pw_job_/,
      agent_token: /^pw_agent_/,
    });
    const dxToken = claim.body.job_token;

    const payload = await bearer(app, claim.body.agent_token, 'GET', `/v1/jobs/${queued.id}`);
    t.equal(payload.status, 200, JSON.stringify(payload.body));
    t.match(payload.body, {
      id: queued.id,
      kind: 'diagnose',
      ticket: { id: ticketId, subject: 'Cart total is wrong' },
      repository: { full_name: repo.full_name, default_branch: 'main' },
      attempt: 1,
      token_kind: 'agent',
      agent_credential: false,
    });
    t.ok(
      await db('fix_job_events').where({ job_id: queued.id, type: 'started' }).first(),
      'the payload starts the job',
    );
    t.equal(
      (
        await bearer(app, claim.body.agent_token, 'POST', `/v1/jobs/${queued.id}/events`, {
          level: 'info',
          type: 'phase',
          message: 'reading the code',
        })
      ).status,
      200,
    );
    const beat = await bearer(app, dxToken, 'POST', `/v1/jobs/${queued.id}/heartbeat`);
    t.match(beat, { status: 200, body: { cancelled: false, status: 'running' } });
    t.equal(
      (await bearer(app, dxToken, 'POST', `/v1/jobs/${queued.id}/git-token`, { write: true })).status,
      403,
      'no push for a diagnosis',
    );
    const readToken = await bearer(app, dxToken, 'POST', `/v1/jobs/${queued.id}/git-token`);
    t.match(readToken, { status: 200, body: { write: false, clone_url: /./ } });
    t.equal(
      (
        await bearer(app, claim.body.agent_token, 'POST', `/v1/jobs/${queued.id}/result`, {
          status: 'failed',
          cost_usd: 0,
        })
      ).status,
      403,
      'the agent token posts no result',
    );
    t.equal(
      (
        await bearer(app, dxToken, 'POST', `/v1/jobs/${queued.id}/pull-request`, {
          head_sha: 'a'.repeat(40),
          tests_ran: true,
          tests_passed: true,
          verify_passed: true,
        })
      ).status,
      409,
      'no pull request for a diagnosis',
    );

    const dxResult = {
      status: 'succeeded',
      cost_usd: 0.12,
      diagnosis: {
        category: 'bug',
        confidence: 0.92,
        root_cause_md: 'cartTotal ignores `qty`.',
        references: [{ path: 'cart.js', line_start: 1, line_end: 1, symbol: 'cartTotal' }],
      },
    };
    const res = await bearer(app, dxToken, 'POST', `/v1/jobs/${queued.id}/result`, dxResult);
    t.equal(res.status, 200, JSON.stringify(res.body));
    t.match(res.body, { job_id: queued.id, status: 'succeeded', next_job_id: /^job_/ });
    const again = await bearer(app, dxToken, 'POST', `/v1/jobs/${queued.id}/result`, {
      ...dxResult,
      diagnosis: { ...dxResult.diagnosis },
    });
    t.same(
      { status: again.status, body: again.body },
      { status: res.status, body: res.body },
      'the same result again answers the same',
    );
    t.match(await bearer(app, dxToken, 'POST', `/v1/jobs/${queued.id}/result`, { ...dxResult, cost_usd: 0.5 }), {
      status: 409,
      body: { code: 'result_conflict' },
    });
    t.match(await bearer(app, dxToken, 'POST', `/v1/jobs/${queued.id}/events`, { type: 'late', message: 'x' }), {
      status: 409,
      body: { code: 'job_not_running' },
    });

    const dx = await db('fix_diagnoses').where({ ticket_id: ticketId }).first<DiagnosisRow>();
    t.match(dx, { job_id: queued.id, category: 'bug', outcome: 'fix_queued' });
    t.equal((await db('fix_jobs').where({ id: queued.id }).first<JobRow>()).status, 'succeeded');
    const fixJob = await db('fix_jobs').where({ id: res.body.next_job_id }).first<JobRow>();
    t.match(fixJob, { kind: 'fix', executor: 'agent-runner', status: 'queued', ticket_id: ticketId });
    t.match((await call(app, owner, 'GET', `/v1/tickets/${ticketId}`)).body, { state: 'fixing', category: 'bug' });

    // The chained fix job, claimed by id.
    const fc = await bearer(app, runnerToken, 'POST', '/v1/runner/claim', { job_id: fixJob.id });
    t.equal(fc.status, 200, JSON.stringify(fc.body));
    const fixToken = fc.body.job_token;
    const fp = (await bearer(app, fixToken, 'GET', `/v1/jobs/${fixJob.id}`)).body;
    const branch = `patchwell/${ticketId}-1`;
    t.match(fp, { kind: 'fix', branch, test_command: 'node test.js', instructions: /cartTotal ignores/ });
    if (!fp.repository) throw new Error(`the fix job names no repository: ${JSON.stringify(fp)}`);
    const access = await bearer(app, fixToken, 'POST', `/v1/jobs/${fixJob.id}/git-token`);
    t.match(access, { status: 200, body: { write: true } });

    // The runner's own work: clone, fix, verify, push the service-prefixed branch.
    const dir = await mkdtemp(join(tmpdir(), 'pw-runner-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const work = join(dir, 'w');
    await git(dir, ['clone', '--quiet', '--branch', fp.repository.default_branch, access.body.clone_url, work]);
    await git(work, ['checkout', '--quiet', '-B', branch]);
    await writeFile(join(work, 'cart.js'), FIXED);
    await git(work, ['commit', '--quiet', '-am', 'Fix cart total']);
    const head = (await git(work, ['rev-parse', 'HEAD'])).trim();
    await git(work, ['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`]);
    const ev = await bearer(app, fixToken, 'POST', `/v1/jobs/${fixJob.id}/events`, {
      events: [
        { level: 'info', type: 'test_output', message: 'cart ok' },
        { level: 'info', type: 'command', message: `git push with ${access.body.token}` },
      ],
    });
    t.match(ev, { status: 200, body: { accepted: 2 } });
    const logged = await db('fix_job_events').where({ job_id: fixJob.id, type: 'command' }).first<JobEventRow>();
    t.equal(logged.message, 'git push with ***', 'the git token is masked by value');

    const prInput = { branch, head_sha: head, tests_ran: true, tests_passed: true, verify_passed: true };
    t.match(
      await bearer(app, fixToken, 'POST', `/v1/jobs/${fixJob.id}/pull-request`, {
        ...prInput,
        head_sha: 'b'.repeat(40),
      }),
      { status: 409, body: { code: 'sha_mismatch', details: { head_sha: head } } },
    );
    t.match(
      await bearer(app, fixToken, 'POST', `/v1/jobs/${fixJob.id}/pull-request`, { ...prInput, tests_passed: false }),
      { status: 409, body: { code: 'fix_not_verified' } },
    );
    const pr = await bearer(app, fixToken, 'POST', `/v1/jobs/${fixJob.id}/pull-request`, prInput);
    t.equal(pr.status, 200, JSON.stringify(pr.body));
    t.match(pr.body, { branch, head_sha: head, state: 'open', number: Number });
    t.same(
      (await bearer(app, fixToken, 'POST', `/v1/jobs/${fixJob.id}/pull-request`, prInput)).body,
      pr.body,
      'found, not opened twice',
    );

    const fixResult = {
      status: 'succeeded',
      cost_usd: 0.4,
      fix: { branch, head_sha: head, tests_ran: true, tests_passed: true, verify_passed: true, reason: null },
    };
    const fr = await bearer(app, fixToken, 'POST', `/v1/jobs/${fixJob.id}/result`, fixResult);
    t.match(fr, { status: 200, body: { job_id: fixJob.id, status: 'succeeded', next_job_id: null } });

    const attempt = await waitFor(async () => {
      const a = await db('fix_attempts').where({ ticket_id: ticketId }).first<AttemptRow | undefined>();
      return a?.status === 'verified' ? a : null;
    }, 'the verified attempt');
    t.match(attempt, {
      number: 1,
      branch,
      head_sha: head,
      tests_ran: true,
      tests_passed: true,
      verify_passed: true,
      pr_number: pr.body.number,
      job_id: fixJob.id,
    });
    // The loop's own open-pr step (approve autonomy) runs after the result and finds the same pull request.
    await waitFor(
      async () =>
        db('outbox')
          .where({ type: 'fixes.open_pr', org_id: owner.organization.id })
          .whereNotNull('published_at')
          .first<{ published_at: Date } | undefined>(),
      'the open-pr signal',
    );
    await sleep(500);
    const prs = (await db('codehost_local_items').where({ kind: 'pull_request', head_branch: branch })) as unknown[];
    t.equal(prs.length, 1, 'one pull request');
    t.match(await localHost(app).getPullRequest({ installationId: null, fullName: repo.full_name }, pr.body.number), {
      state: 'open',
      head: { branch, sha: head },
    });
    t.match((await call(app, owner, 'GET', `/v1/tickets/${ticketId}`)).body, { state: 'awaiting_approval' });
    t.equal(
      Number((await db('fix_jobs').where({ id: fixJob.id }).first<JobRow>()).cost_usd),
      0.4,
      'cost recorded on the job',
    );
    t.match(
      await bearer(app, fixToken, 'POST', `/v1/jobs/${fixJob.id}/result`, fixResult),
      { status: 200, body: { next_job_id: null } },
      'replayed',
    );

    // The rest of the loop does not depend on who wrote the fix: approval at the runner's SHA, merge,
    // tag and release, the notice to the customer, the status page resolved.
    const ok = await call(app, owner, 'POST', `/v1/tickets/${ticketId}/approve`, {
      fix_attempt_id: attempt.id,
      approved_sha: head,
      public_summary: 'Cart totals count quantities.',
    });
    t.equal(ok.status, 200, JSON.stringify(ok.body));
    const done = await waitFor(
      async () => {
        const tk = (await call(app, owner, 'GET', `/v1/tickets/${ticketId}`)).body;
        return tk.state === 'customer_notified' ? tk : null;
      },
      'the release and the notice',
      30_000,
    );
    t.match(done, { public_state: 'resolved', resolved_version: String });
    const releases = (await db('fix_releases').where({ ticket_id: ticketId })) as ReleaseRow[];
    t.equal(releases.length, 1, 'one release');
    t.match(releases[0], { status: 'released', approved_sha: head });
    t.match(await localHost(app).getPullRequest({ installationId: null, fullName: repo.full_name }, pr.body.number), {
      state: 'merged',
    });
    t.equal(
      (await db('mail_messages').where({ template: 'fixes.release_notice' })).length,
      1,
      'one notice to the customer',
    );
    const page = await app.server.inject({ method: 'GET', url: new URL(done.public_status_url).pathname });
    t.match(page.payload, /Cart totals count quantities\./, 'the status page says what was fixed');
  },
);
