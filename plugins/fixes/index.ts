import { asValue } from 'awilix';
import { actorOfPrincipal } from '../../core/contracts/index.js';
import type { Principal } from '../../core/http/auth.js';
import { cradleView, optional } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { fixesOptionsSchema, type FixesOptions } from './options.js';
import { ticketJobRoutes } from './routes/ticket-jobs.js';
import type { FixesDeps } from './services/deps.js';
import { JobPayloads } from './services/job-payload.js';
import { JOB_REQUESTED, JobQueue } from './services/job-queue.js';
import { JobWorker } from './services/job-worker.js';
import { AUTOPILOT_SEND, FixLoop, OPEN_PR } from './services/loop.js';
import { PullRequests } from './services/pull-requests.js';
import { FixActions } from './services/fix-actions.js';
import { FixRecords } from './services/fix-records.js';
import { FixesTicketPageSection } from './services/ticket-page.js';
import { AUTO_CLOSE_EVERY_MS } from './services/release-auto-close.js';
import { RELEASE_TEMPLATES } from './services/release-notices.js';
import { RELEASE_REQUESTED } from './services/release-steps.js';
import { Releases } from './services/releases.js';
import { ticketFixRoutes } from './routes/ticket-fixes.js';
import { approvalRoutes } from './routes/approvals.js';
import { releaseRoutes } from './routes/releases.js';

/**
 * The fix loop (docs/fixes.md): jobs leased in Postgres and run by the configured agent
 * executors (`adapters.agent`), the diagnosis of every new ticket with drafts and autonomy, and
 * the fix operations of the tickets section. Container entries: `fixJobs` (JobQueue),
 * `fixWorker` (JobWorker), `fixLoop` (FixLoop).
 */
export default definePlugin<FixesOptions>({
  name: 'fixes',
  version: '0.1.0',
  requires: ['accounts', 'workspaces', 'tickets'],
  uses: ['agent'],
  options: fixesOptionsSchema,
  register(ctx) {
    const { container, config, options } = ctx;
    const deps = cradleView<FixesDeps>(container, {
      db: 'db',
      outbox: 'outbox',
      audit: 'audit',
      config: () => config,
      log: 'log',
      options: () => options,
      executors: 'agentExecutors',
      tickets: 'ticketService',
      drafts: 'draftService',
      subscribers: 'subscriberService',
      ticketActions: 'ticketActions',
      workspaces: 'workspaceService',
      codeIndex: () => optional(container, 'codeIndex') ?? null,
      codeHost: 'codeHost',
      repositories: () => optional(container, 'codehostRepositories') ?? null,
      governance: () => optional(container, 'approvalGovernance') ?? null,
      mailer: 'mailer',
      billingGate: () => optional(container, 'billingGate') ?? null,
      patternMatcher: () => optional(container, 'patternMatcher') ?? null,
    });
    const queue = new JobQueue(deps);
    const loop = new FixLoop(deps, queue);
    queue.hooks = {
      onResult: (trx, job, result) => loop.onResult(trx, job, result),
      onDead: (trx, job) => loop.onDead(trx, job),
    };
    const payloads = new JobPayloads(deps);
    const worker = new JobWorker(deps, queue, payloads);
    ctx.provide({
      fixJobs: asValue(queue),
      fixWorker: asValue(worker),
      fixLoop: asValue(loop),
      fixPayloads: asValue(payloads),
      fixRecords: asValue(new FixRecords(() => deps.db)),
    });
    // The ticket page's diagnosis, fixes, release and jobs (the tickets plugin reads `ticketPageSection:*`).
    ctx.provide({ 'ticketPageSection:fixes': asValue(new FixesTicketPageSection(deps)) });

    // A new ticket is diagnosed (in the inbox transaction of the message: one job per ticket).
    ctx.consume('diagnose', ['tickets.created'], async (message, scope) => {
      const p = message.payload as { ticket_id?: string };
      if (!p.ticket_id || !message.orgId) return;
      await loop.onTicketReceived(scope.cradle.trx, message.orgId, p.ticket_id);
    });
    // The bus only signals; the job itself is claimed from Postgres.
    ctx.consume(
      'jobs',
      [JOB_REQUESTED],
      () => {
        worker.kick();
        return Promise.resolve();
      },
      { idempotent: false },
    );
    // Autopilot: the automation clicks send; a draft a person sent, edited away or discarded meanwhile is left alone.
    ctx.consume(
      'autopilot',
      [AUTOPILOT_SEND],
      async (message) => {
        const p = message.payload as { ticket_id: string; draft_id: string; job_id: string };
        if (!message.orgId) return;
        const principal: Principal = {
          kind: 'job',
          userId: null,
          orgId: message.orgId,
          role: 'admin',
          staff: false,
          email: null,
          locale: 'en',
          workspaceIds: null,
          jobId: p.job_id,
        };
        try {
          await deps.drafts.send(actorOfPrincipal(principal), p.ticket_id, p.draft_id, {});
        } catch (err) {
          const code =
            (err as { data?: { code?: string } }).data?.code ??
            (err as { output?: { payload?: { code?: string } } }).output?.payload?.code;
          if (code === 'invalid_transition' || code === 'not_found') return;
          throw err;
        }
      },
      { idempotent: false },
    );

    const pullRequests = new PullRequests(deps);
    const actions = new FixActions(deps, loop, pullRequests, queue);
    const releases = new Releases(deps);
    ctx.provide({
      fixPullRequests: asValue(pullRequests),
      fixActions: asValue(actions),
      fixReleases: asValue(releases),
    });
    const jobPageSchema = optional(container, 'ticketPageSchemas')?.TicketJobPage ?? null;
    ctx.routes([
      ...ticketJobRoutes({ db: () => deps.db, tickets: () => deps.tickets }, jobPageSchema),
      ...ticketFixRoutes(
        () => actions,
        () => releases,
        optional(container, 'ticketSchema') ?? null,
      ),
      ...approvalRoutes({ db: () => deps.db, governance: () => deps.governance }),
      ...releaseRoutes(() => releases),
    ]);
    deps.mailer.registerTemplates(RELEASE_TEMPLATES);
    // The release runs step by step from its row (merge, tag, release, notice); a retry resumes it.
    ctx.consume(
      'release',
      [RELEASE_REQUESTED],
      async (message) => {
        const p = message.payload as { release_id: string };
        if (message.orgId) await releases.advance(message.orgId, p.release_id);
      },
      { idempotent: false },
    );
    // A closed ticket's fix work stops: jobs cancelled, open attempts superseded, their pull requests closed (a duplicate's too).
    ctx.consume(
      'close-fixes',
      ['tickets.closed'],
      async (message) => {
        const p = message.payload as { ticket_id?: string; reason?: string };
        if (message.orgId && p.ticket_id)
          await actions.closeForTicket(message.orgId, p.ticket_id, p.reason ?? 'closed');
      },
      { idempotent: false },
    );
    // CI of a released commit changed on the code host: the release history shows the new state.
    ctx.consume(
      'release-ci',
      ['codehost.ci_updated'],
      async (message) => {
        const p = message.payload as { repository_id?: string; sha?: string };
        if (message.orgId && p.repository_id && p.sha)
          await releases.onCiUpdated(message.orgId, p.repository_id, p.sha);
      },
      { idempotent: false },
    );
    // Jobs of remote executors (runner, mcp) that nobody claims in time fail `not_claimed` (visible on the ticket).
    ctx.schedule(
      'unclaimed-remote-jobs',
      { everyMs: Math.min(5 * 60_000, Math.max(1_000, Math.floor(options.remoteClaimTimeoutMs / 4))) },
      async () => {
        const remote = deps.executors.filter((e) => e.runsIn === 'remote').map((e) => e.identifier);
        const ended = await queue.expireUnclaimed(remote, options.remoteClaimTimeoutMs);
        if (ended) deps.log.warn({ ended }, 'fixes: remote jobs nobody claimed failed not_claimed');
      },
    );
    // Resolved tickets close after their workspace's auto_close_days (audited as system).
    ctx.schedule('auto-close', { everyMs: AUTO_CLOSE_EVERY_MS }, async () => {
      await releases.autoClose();
    });
    // A verified fix's pull request (approve and autopilot at once; copilot on request). Outside the
    // inbox transaction: the code host is called; opening is idempotent by branch.
    ctx.consume(
      'open-pr',
      [OPEN_PR],
      async (message) => {
        const p = message.payload as { fix_attempt_id: string; draft?: boolean };
        if (!message.orgId) return;
        await pullRequests.openFor(message.orgId, p.fix_attempt_id, p.draft ?? false);
      },
      { idempotent: false },
    );

    if (ctx.roles.has('worker')) {
      ctx.onStart(() => worker.start());
      ctx.onStop(() => worker.stop());
    }
  },
});
