/**
 * Chaos (issue 7): RabbitMQ becomes unreachable in the middle of the loop. The service talks to the
 * broker through a TCP proxy that cuts every connection and refuses new ones for a few seconds
 * (the real broker is shared by the whole suite and is not restarted here; test/chaos/rabbitmq.test.ts
 * does that). Events written meanwhile wait in the outbox and are published after the reconnect;
 * nothing is lost and nothing is applied twice.
 */
import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { TcpProxy } from '../../../test/helpers/tcp-proxy.js';
import { BUG_REPORT, REPO_FILES, blockingAgent, chaosDir, killAgents, release } from './fixtures/chaos.js';
import {
  call,
  receiveEmail,
  startFixesApp,
  waitFor,
  type AttemptRow,
  type CountRow,
  type DiagnosisRow,
  type JobRow,
  shopWithApprovedFixes,
  releaseNotices,
  NOTICES_TO_REPORTER_AND_FOLLOWER,
} from './helpers.js';

const AMQP_URL = process.env.AMQP_URL;
const skip = AMQP_URL
  ? false
  : 'AMQP_URL is not set: the broker-outage test needs RabbitMQ (it cuts the connections through a local TCP proxy)';

const DOCS =
  '# Exporting data\n\n## Export invoices to CSV\n\nOpen Billing, choose Invoices, then click Export and pick CSV.\n';
const count = async (q: Knex.QueryBuilder): Promise<number> =>
  Number(((await q.count('* as n').first()) as CountRow).n);
/** An event waiting in the outbox, the columns this test reads. */
interface OutboxRow {
  type: string;
  last_error: string | null;
}

t.test(
  'chaos: the broker is unreachable mid-loop; every event is published after the reconnect and handled once',
  { skip },
  async (t) => {
    const dir = chaosDir();
    t.teardown(() => {
      killAgents(dir);
      rmSync(dir, { recursive: true, force: true });
    });
    const proxy = new TcpProxy(AMQP_URL!);
    await proxy.restore();
    // Teardowns run last-registered first: the app stops (and deletes its queues) before the proxy closes.
    t.teardown(() => proxy.cut());

    const app = await startFixesApp(
      t,
      {},
      { bus: { url: proxy.url } },
      {
        list: ['agent-builtin', 'agent-managed'],
        options: { 'agent-managed': { command: blockingAgent(dir), workRoot: join(dir, 'checkouts') } },
      },
    );
    // A blocked agent would hold the app's stop (on a failure before the release below): let it go first.
    t.teardown(() => release(dir));
    const db = app.db as Knex;
    t.equal(app.bus.kind, 'rabbitmq');
    const { owner, ws, repo, host, ref, verified } = await shopWithApprovedFixes(
      app,
      { merge_method: 'squash', release_strategy: 'semver' },
      { ...REPO_FILES, 'docs/export.md': DOCS },
    );

    const bug = await receiveEmail(app, ws.inbound_address, BUG_REPORT);
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${bug}/subscribers`, { email: 'grace.hopper@example.com' })).status,
      201,
    );
    const job = await waitFor(
      async () => {
        const row = (await db('fix_jobs').where({ ticket_id: bug, kind: 'fix' }).first()) as JobRow | undefined;
        return row && (await db('fix_job_events').where({ job_id: row.id, type: 'agent_output' }).first()) ? row : null;
      },
      'the fix job to be mid-run',
      30_000,
    );
    const acceptedBefore = proxy.accepted;

    // The broker goes away: every connection is cut, new ones are refused.
    await proxy.cut();
    await waitFor(async () => !(await app.bus.health()).ok, 'the bus to notice the outage');
    t.match(await app.bus.health(), { ok: false, detail: /disconnected/ });

    // Meanwhile the fix job ends (its result and follow-up events go to the outbox) and a question arrives.
    await release(dir);
    const question = await receiveEmail(app, ws.inbound_address, {
      subject: 'Export invoices',
      body: 'How do I export my invoices to CSV?',
    });
    await waitFor(
      async () =>
        ((await db('fix_attempts').where({ ticket_id: bug }).first()) as AttemptRow | undefined)?.status === 'verified',
      'the fix verified during the outage',
      20_000,
    );
    const held = await waitFor(
      async () => {
        const rows = (await db('outbox')
          .whereIn('type', ['fixes.open_pr', 'tickets.created'])
          .whereNull('published_at')
          .where('attempts', '>', 0)) as OutboxRow[];
        return rows.length >= 2 ? rows : null;
      },
      'the relay to keep the events it could not publish',
      20_000,
    );
    t.same(
      held.map((r) => r.type).sort(),
      ['fixes.open_pr', 'tickets.created'],
      'the pull-request request and the new ticket wait in the outbox',
    );
    t.ok(
      held.every((r) => /unavailable|disconnected|timed out|closed/i.test(String(r.last_error))),
      'last_error says why',
    );
    t.notOk(
      ((await db('fix_attempts').where({ ticket_id: bug }).first()) as AttemptRow).pr_number,
      'no pull request while the broker is away',
    );
    t.equal(
      await count(db('fix_jobs').where({ ticket_id: question })),
      0,
      'the question is not diagnosed while the broker is away',
    );

    await sleep(3000); // the outage lasts a few seconds
    await proxy.restore();

    const attempt = await verified(bug, 'the pull request after the reconnect', 30_000);
    t.ok(proxy.accepted > acceptedBefore, 'the service reconnected through the proxy');
    const dx = await waitFor(
      async () => db('fix_diagnoses').where({ ticket_id: question }).first() as Promise<DiagnosisRow | undefined>,
      'the question diagnosed after the reconnect',
      20_000,
    );
    t.match(dx, { category: 'usage', outcome: 'drafted' });
    t.equal(await count(db('ticket_drafts').where({ ticket_id: question })), 1, 'one draft for the question');

    t.equal(
      (
        await call(app, owner, 'POST', `/v1/tickets/${bug}/approve`, {
          fix_attempt_id: attempt.id,
          approved_sha: attempt.head_sha,
        })
      ).status,
      200,
    );
    await waitFor(
      async () => (await call(app, owner, 'GET', `/v1/tickets/${bug}`)).body.state === 'customer_notified',
      'the release and the notice',
      30_000,
    );

    // Nothing lost: every event left the outbox, nothing was dead-lettered.
    await waitFor(async () => (await count(db('outbox').whereNull('published_at'))) === 0, 'the outbox to drain');
    t.equal(await count(db('dead_letters')), 0, 'no dead letters');
    t.equal(await count(db('outbox').where({ type: 'tickets.created' })), 2, 'two tickets announced');
    // Nothing applied twice, however often the broker redelivered.
    t.equal(
      await count(db('fix_jobs').where({ ticket_id: bug, kind: 'diagnose' })),
      1,
      'the bug report: one diagnosis job',
    );
    t.equal(
      await count(db('fix_jobs').where({ ticket_id: question, kind: 'diagnose' })),
      1,
      'the question: one diagnosis job',
    );
    t.equal(await count(db('fix_diagnoses')), 2, 'one diagnosis per ticket');
    t.equal(
      await count(db('fix_jobs').where({ id: job.id, status: 'succeeded', attempts: 1 })),
      1,
      'the fix job ran once',
    );
    t.equal(
      await count(db('codehost_local_items').where({ repo: repo.full_name, kind: 'pull_request' })),
      1,
      'one pull request',
    );
    t.equal(await count(db('fix_releases').where({ ticket_id: bug })), 1, 'one release');
    t.match(await host.getPullRequest(ref, attempt.pr_number), { state: 'merged' });
    // The customer's notice speaks of their report; a follower's quotes nobody (docs/fixes.md, "Notices").
    const notices = await releaseNotices(db);
    t.same(
      notices.map((m) => [m.template, m.to_address]),
      NOTICES_TO_REPORTER_AND_FOLLOWER,
      'one release notice per subscriber',
    );
    t.equal(
      await count(db('inbox').where({ consumer: 'fixes.diagnose' })),
      2,
      'the diagnosing consumer recorded both tickets.created messages',
    );
    t.same(await app.bus.health(), { ok: true, detail: 'connected' });
  },
);
