import t from 'tap';
import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { countQueries } from '../../../test/helpers/queries.js';
import { addMember, onPlan, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import type { Schema } from '../../../test/helpers/api-types.js';
import { seedBusyTicket } from './fixtures/busy-ticket.js';
import {
  VERIFIED_FIRST_ATTEMPT,
  call,
  connectRepository,
  createWorkspace,
  receiveEmail,
  waitFor,
  type DiagnosisRow,
  type MailRow,
  startManagedFixesApp,
} from './helpers.js';
import { BUG_REPORT, REPO_FILES } from './fixtures/cart.js';

const app = await startManagedFixesApp(t);
const db = app.db as Knex;

/** The ticket page of a service with the fix loop on (as here): its fixes and jobs are there. */
type LoopPage = Schema<'Ticket'> & { fixes: Array<Schema<'TicketFixAttempt'>>; jobs: Schema<'TicketJobList'> };

/** A ticket answer as such a page; throws when its fixes or jobs are null (the fix loop off). */
function loopPage(tk: Schema<'Ticket'>): LoopPage {
  const { fixes, jobs } = tk;
  if (!fixes || !jobs) throw new Error(`the page has no fixes or jobs: ${JSON.stringify({ fixes, jobs })}`);
  return { ...tk, fixes, jobs };
}

/** The parts of the OpenAPI document this file reads. */
interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
}

t.test(
  'the ticket page along the whole loop: email → diagnosis → draft → managed fix → PR → approval at the SHA → release → notice',
  async (t) => {
    const owner = await signUp(app, { orgName: 'Acme' });
    await onPlan(app, owner.organization.id, 'growth'); // fix credits: a managed fix is paid for
    const ws = await createWorkspace(app, owner, 'Shop', {
      autonomy: 'approve',
      test_command: 'node test.js',
      confidence_threshold: 0.5,
      release_strategy: 'semver',
      github_release_enabled: true,
    });
    await connectRepository(app, owner, ws.id, 'shop', REPO_FILES);
    const viewer = await addMember(app, owner, { role: 'client_viewer', workspaceIds: [ws.id] });
    const page = async (who: SignedUp = owner) => {
      const res = await call(app, who, 'GET', `/v1/tickets/${id}`);
      if (res.status !== 200) throw new Error(`GET ticket: ${res.status} ${JSON.stringify(res.body)}`);
      return loopPage(res.body);
    };
    const pageWhen = (what: string, ok: (p: LoopPage) => boolean, timeoutMs = 40_000) =>
      waitFor(
        async () => {
          const p = await page();
          return ok(p) ? p : null;
        },
        what,
        timeoutMs,
      );

    // 1. The email opens the ticket; its diagnosis job shows on the page.
    const report = BUG_REPORT;
    const id = await receiveEmail(app, ws.inbound_address, report);
    const opened = await pageWhen('the diagnosis job', (p) => p.jobs.items.some((j) => j.kind === 'diagnose'));
    t.match(opened, {
      id,
      messages: [{ direction: 'in' }],
      drafts: { items: Array },
      fixes: Array,
      release: null,
      audit: Array,
    });
    const diagnosing = opened.jobs.items.find((j) => j.kind === 'diagnose')!; // the page waited for it
    t.match(
      diagnosing,
      {
        executor: 'agent-builtin',
        mode: 'builtin',
        max_attempts: 3,
        events_url: `/v1/tickets/${id}/jobs/${diagnosing.id}/events`,
      },
      'the diagnosis job',
    );

    // 2. The diagnosis: category, confidence, references into the code, the fix it queued.
    const diagnosed = await pageWhen('the diagnosis', (p) => !!p.diagnosis && p.fixes.length > 0);
    const diagnosis = diagnosed.diagnosis!; // the page waited for it
    t.match(diagnosis, {
      category: 'bug',
      outcome: 'fix_queued',
      history_count: 1,
      language: 'en',
      root_cause_md: String,
      public_summary: String,
    });
    t.ok(diagnosis.confidence >= 0.5 && diagnosis.confidence <= 1);
    t.ok(
      diagnosis.references.some((r) => r.path === 'cart.js' && 'symbol' in r && 'url' in r && 'line_start' in r),
      'references point at the code, every field present',
    );
    const diagnoseJob = diagnosed.jobs.items.find((j) => j.kind === 'diagnose')!; // there since the first page
    t.match(diagnoseJob, {
      id: diagnosis.job_id,
      status: 'succeeded',
      attempts: 1,
      error_code: null,
      cost_usd: Number,
    });
    t.ok(diagnoseJob.started_at && diagnoseJob.finished_at);
    t.match(diagnosed.fixes, [
      {
        number: 1,
        branch: `patchwell/${id}-1`,
        pull_request: null,
        approvals: [],
        approval_count: 0,
        min_approvers: 1,
      },
    ]);
    t.equal(diagnosed.fixes[0].diff.url, `/v1/tickets/${id}/fix-attempts/${diagnosed.fixes[0].id}/diff`);

    // 3. A draft to the customer while the fix is at work (the automation's interim draft when it wrote one, else the team's).
    let draft = diagnosed.drafts.items.find((d) => d.status === 'draft');
    if (!draft) {
      const written = await call(app, owner, 'POST', `/v1/tickets/${id}/drafts`, {
        kind: 'reply',
        body_md: 'We found the cause and are fixing it.',
      });
      t.equal(written.status, 201, JSON.stringify(written.body));
      draft = written.body;
    }
    const drafted = await page();
    t.match(drafted.drafts.items[0], { id: draft.id, status: 'draft', ticket_id: id }, 'the draft waits, with its id');
    const sent = await call(app, owner, 'POST', `/v1/tickets/${id}/drafts/${draft.id}/send`, {});
    t.equal(sent.status, 200, JSON.stringify(sent.body));
    t.match(sent.body.drafts.items[0], { id: draft.id, status: 'sent', sent_message_id: String, sent_at: String });
    const sentId = sent.body.drafts.items[0].sent_message_id;
    t.ok(
      sent.body.messages.some((m) => m.id === sentId && m.direction === 'out'),
      'the sent draft is in the conversation',
    );
    t.match(sent.body.audit?.[0], {
      action: 'ticket.draft_sent',
      target: { type: 'draft', id: draft.id },
      actor: { id: owner.user.id },
    });

    // 4. The managed fix: verified, its pull request open, the diff readable.
    const fixed = await pageWhen('the verified fix with its pull request', (p) => !!p.fixes[0]?.pull_request);
    t.match(fixed, { state: 'awaiting_approval' });
    const attempt = fixed.fixes[0];
    t.match(attempt, {
      ...VERIFIED_FIRST_ATTEMPT,
      head_sha: /^[0-9a-f]{40}$/,
      pull_request: { number: Number, url: String, state: 'open' },
      approvals: [],
      approval_count: 0,
      diff: { available: true, unavailable: null, source: 'pull_request', operation_id: 'getTicketFixDiff' },
    });
    const fixJob = fixed.jobs.items.find((j) => j.kind === 'fix')!; // it made the pull request the page waited for
    t.match(fixJob, {
      id: attempt.job_id,
      executor: 'agent-managed',
      mode: 'managed',
      status: 'succeeded',
      fix_attempt_id: attempt.id,
    });
    const diff = await call(app, owner, 'GET', attempt.diff.url);
    t.match(
      diff,
      { status: 200, body: { unavailable: null, source: 'pull_request', text: /i\.price \* i\.qty/ } },
      'the diff link answers the diff',
    );
    // events_url is the job's log: GET /v1/tickets/{id}/jobs/{jobId}/events.
    const events = await call(app, owner, 'GET', fixJob.events_url as `/v1/tickets/${string}/jobs/${string}/events`);
    t.equal(events.status, 200);
    t.ok(
      events.body.items.some((e) => e.type === 'test_output'),
      'the job link answers its log',
    );
    t.same((await page(viewer)).fixes, fixed.fixes, 'a client viewer reads the same page');

    // 5. Approval at the exact head SHA: the answer is the page, with the approval and the release started.
    const approval = {
      fix_attempt_id: attempt.id,
      approved_sha: attempt.head_sha,
      comment: 'LGTM',
      public_summary: 'The cart total now counts quantities.',
    };
    const approved = await call(app, owner, 'POST', `/v1/tickets/${id}/approve`, approval);
    t.equal(approved.status, 200, JSON.stringify(approved.body));
    t.match(approved.body.fixes?.[0], {
      approvals: [
        {
          user_id: owner.user.id,
          role: 'owner',
          sha: attempt.head_sha,
          comment: 'LGTM',
          voided_at: null,
          void_reason: null,
        },
      ],
      approval_count: 1,
    });
    t.match(approved.body.release, {
      kind: 'per_ticket',
      approved_sha: attempt.head_sha,
      strategy: 'semver',
      notice_sent: false,
    });
    t.equal(approved.body.release!.release_id, approved.body.release!.id, 'a per-ticket release ships itself');
    t.match(approved.body.audit?.[0], {
      action: 'fix.approved',
      target: { type: 'fix_attempt', id: attempt.id },
      metadata: { sha: attempt.head_sha },
    });

    // 6. Release and notice: merged, tagged, code-host release, CI, notice sent; the status page resolved.
    const done = await pageWhen('the release and the notice', (p) => p.state === 'customer_notified', 30_000);
    t.match(done, { public_state: 'resolved', resolved_version: '0.1.0' });
    t.match(done.release, {
      status: 'released',
      step: null,
      failed_step: null,
      version: '0.1.0',
      tag: 'v0.1.0',
      merge_sha: /^[0-9a-f]{40}$/,
      ci_state: 'none',
      url: String,
      notice_sent: true,
      notice_sent_at: String,
      error_code: null,
    });
    // The customer's notice is a release_notice Draft of the ticket, sent (the subscribers' are mails).
    const notice = done.drafts.items.find((d) => d.kind === 'release_notice');
    if (notice)
      t.match(done.release, { notice_draft_id: notice.id, notice_sent_at: notice.sent_at }, 'the notice draft, sent');
    else t.equal(done.release!.notice_sent_at, done.release!.released_at);
    t.match(done.fixes[0], { status: 'merged', pull_request: { state: 'merged' } });
    const notices = (await db('mail_messages').where({
      template: 'fixes.release_notice',
      ticket_ref: id,
    })) as MailRow[];
    t.equal(notices.length, 1, 'the notice went to the customer');

    // The page's jobs are the first page of GET /v1/tickets/{id}/jobs.
    const jobs = await call(app, owner, 'GET', `/v1/tickets/${id}/jobs`);
    t.equal(jobs.status, 200, JSON.stringify(jobs.body));
    t.same(jobs.body.items, done.jobs.items);
    t.equal(done.jobs.total, jobs.body.items.length);
    const stranger = await signUp(app, { orgName: 'Elsewhere' });
    t.equal((await call(app, stranger, 'GET', `/v1/tickets/${id}/jobs`)).status, 404, 'another organization: 404');
    t.equal((await call(app, stranger, 'GET', `/v1/tickets/${id}`)).status, 404);
  },
);

t.test(
  'one read for the page: 20 attempts and 200 messages cost the queries of one attempt and one message',
  async (t) => {
    // A workspace without a repository: the loop diagnoses and escalates, it never starts a fix of its own.
    const owner = await signUp(app, { orgName: 'Bench' });
    const ws = await createWorkspace(app, owner, 'Busy', { autonomy: 'approve' });
    const small = await receiveEmail(app, ws.inbound_address, {
      subject: 'Where is the invoice?',
      body: 'I cannot find my invoice.',
    });
    const big = await receiveEmail(app, ws.inbound_address, {
      subject: 'Export is slow',
      body: 'Exporting takes minutes.',
    });
    for (const tk of [small, big])
      await waitFor(
        async () => (await db('fix_diagnoses').where({ ticket_id: tk }).first()) as DiagnosisRow | undefined,
        'the diagnosis',
      );
    await seedBusyTicket(db, owner.organization.id, ws.id, big, { attempts: 20, messages: 200, jobs: 60 });
    await seedBusyTicket(db, owner.organization.id, ws.id, small, { attempts: 1, messages: 0, jobs: 0 });
    await call(app, owner, 'GET', `/v1/tickets/${small}`);

    const a = await countQueries(app, () => call(app, owner, 'GET', `/v1/tickets/${small}`));
    const b = await countQueries(app, () => call(app, owner, 'GET', `/v1/tickets/${big}`));
    t.equal(b.result.status, 200, JSON.stringify(b.result.body).slice(0, 500));
    const busy = loopPage(b.result.body);
    t.equal(busy.messages.length, 201);
    t.equal(busy.fixes.length, 20);
    t.equal(busy.fixes[0].number, 20, 'newest attempt first');
    t.equal(busy.fixes[0].approvals.length, 2);
    t.match(busy.fixes[0].approvals, [{ voided_at: String, void_reason: 'new_push' }, { voided_at: null }]);
    t.equal(busy.fixes[0].approval_count, 1);
    t.equal(busy.jobs.items.length, 50, 'the page carries 50 jobs');
    t.equal(busy.jobs.total, 61);
    t.equal(busy.diagnosis?.history_count, 1);
    t.equal(
      b.queries,
      a.queries,
      `${a.queries} queries for 1 attempt and 1 message, and for 20 attempts, 200 messages and 61 jobs`,
    );
    t.comment(
      `page of 20 attempts and 200 messages: ${b.queries} queries, ${b.ms.toFixed(0)} ms (1 attempt: ${a.ms.toFixed(0)} ms)`,
    );

    t.equal(busy.release, null, 'no release before an approval');

    // The fix merged into a batched release: the page follows the batch (status, version, notice), the row keeps the merge.
    const batchId = newId('rel');
    const rowId = newId('rel');
    const now = new Date();
    await db('fix_releases').insert([
      {
        id: batchId,
        org_id: owner.organization.id,
        workspace_id: ws.id,
        kind: 'batched',
        status: 'proposed',
        strategy: 'semver',
        head_sha: 'c'.repeat(40),
        created_at: now,
        updated_at: now,
      },
      {
        id: rowId,
        org_id: owner.organization.id,
        workspace_id: ws.id,
        ticket_id: big,
        kind: 'per_ticket',
        status: 'batched',
        batch_id: batchId,
        strategy: 'semver',
        approved_sha: 'a'.repeat(40),
        merge_sha: 'c'.repeat(40),
        created_at: now,
        updated_at: now,
      },
    ]);
    const proposed = (await call(app, owner, 'GET', `/v1/tickets/${big}`)).body.release;
    t.match(proposed, {
      id: rowId,
      release_id: batchId,
      kind: 'batched',
      status: 'proposed',
      step: null,
      approved_sha: 'a'.repeat(40),
      merge_sha: 'c'.repeat(40),
      version: null,
      notice_sent: false,
    });
    await db('fix_releases')
      .where({ id: batchId })
      .update({ status: 'failed', failed_step: 'tagging', error_code: 'tag_exists', version: '1.4.0' });
    t.match(
      (await call(app, owner, 'GET', `/v1/tickets/${big}`)).body.release,
      { status: 'failed', step: 'tagging', failed_step: 'tagging', error_code: 'tag_exists', version: '1.4.0' },
      'where the batch stopped',
    );
    const at = new Date();
    await db('fix_releases').where({ id: batchId }).update({
      status: 'released',
      failed_step: null,
      error_code: null,
      tag: 'v1.4.0',
      ci_state: 'success',
      release_url: 'https://code.example/releases/v1.4.0',
      released_at: at,
    });
    t.match((await call(app, owner, 'GET', `/v1/tickets/${big}`)).body.release, {
      status: 'released',
      step: null,
      tag: 'v1.4.0',
      ci_state: 'success',
      url: 'https://code.example/releases/v1.4.0',
      notice_sent: true,
      notice_sent_at: at.toISOString(),
      notice_draft_id: null,
    });
    // The customer's notice held back as a draft (white-label sending not ready): not sent yet, and which draft to send.
    const held = newId('drf');
    await db('ticket_drafts').insert({
      id: held,
      org_id: owner.organization.id,
      ticket_id: big,
      kind: 'release_notice',
      body_md: 'Fixed in 1.4.0',
      status: 'draft',
      language: 'en',
    });
    t.match((await call(app, owner, 'GET', `/v1/tickets/${big}`)).body.release, {
      status: 'released',
      notice_sent: false,
      notice_sent_at: null,
      notice_draft_id: held,
    });
    const c = await countQueries(app, () => call(app, owner, 'GET', `/v1/tickets/${big}`));
    t.equal(c.queries, a.queries, 'a release costs no query more');

    const rest = await call(app, owner, 'GET', `/v1/tickets/${big}/jobs?cursor=${busy.jobs.next_cursor}`);
    t.equal(rest.status, 200);
    t.equal(rest.body.items.length, 11, 'the list continues where the page stopped');
    t.equal(new Set([...busy.jobs.items, ...rest.body.items].map((j) => j.id)).size, 61, 'no job repeated');

    const doc = JSON.parse((await app.server.inject('/v1/openapi.json')).payload) as OpenApiDocument;
    const jobsOp = doc.paths['/v1/tickets/{id}/jobs'].get;
    t.match(jobsOp, {
      operationId: 'listTicketJobs',
      'x-extension': true,
      responses: {
        200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/TicketJobPage' } } } },
      },
    });
    t.ok(doc.components.schemas.TicketDiagnosis.properties.duplicate_of_ticket_id.description, 'every field described');
  },
);
