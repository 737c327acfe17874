import { asValue } from 'awilix';
import { cradleView } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { runnerOptionsSchema, type RunnerOptions } from './options.js';
import { jobRoutes } from './routes/jobs.js';
import { runnerRoutes } from './routes/runner.js';
import { AgentCredentials } from './services/credentials.js';
import type { RunnerDeps } from './services/deps.js';
import { JobApi } from './services/job-api.js';
import { JobCodeHost } from './services/job-code-host.js';
import { jobTokenResolver } from './services/job-tokens.js';
import { Runners } from './services/runners.js';

/**
 * Customer runners (docs/runner.md): the runner section registers runners and hands out the
 * queued jobs of `agent-runner`; the jobs section is the API a runner drives a job through with
 * its job token. The loop itself stays in the fixes plugin (`fixJobs`, `fixPayloads`,
 * `fixPullRequests`). Container entries: `runners`, `runnerJobApi`, `runnerJobCodeHost`,
 * `runnerAgentCredentials`.
 */
export default definePlugin<RunnerOptions>({
  name: 'runner',
  version: '0.1.0',
  requires: ['accounts', 'workspaces', 'tickets', 'fixes'],
  options: runnerOptionsSchema,
  register(ctx) {
    const { container, options } = ctx;
    const deps = cradleView<RunnerDeps>(container, {
      db: 'db',
      audit: 'audit',
      secretBox: 'secretBox',
      rateLimiter: 'rateLimiter',
      log: 'log',
      options: () => options,
      jobs: 'fixJobs',
      payloads: 'fixPayloads',
      pullRequests: 'fixPullRequests',
      workspaces: 'workspaceService',
    });
    const credentials = new AgentCredentials(deps);
    const runners = new Runners(deps, credentials);
    const api = new JobApi(deps, runners, credentials);
    const codeHost = new JobCodeHost(deps);
    ctx.provide({
      runners: asValue(runners),
      runnerJobApi: asValue(api),
      runnerJobCodeHost: asValue(codeHost),
      runnerAgentCredentials: asValue(credentials),
    });
    container.cradle.authResolvers.push(jobTokenResolver(deps));
    ctx.routes([
      ...runnerRoutes(() => runners),
      ...jobRoutes(
        () => api,
        () => codeHost,
      ),
    ]);
    // An archived workspace or a closed organization keeps no working runner token.
    ctx.consume('revoke', ['workspaces.archived', 'privacy.organization_closed'], async (message, scope) => {
      if (!message.orgId) return;
      const trx = scope.cradle.trx;
      const p = message.payload as { workspace_id?: string };
      if (message.type === 'workspaces.archived' && p.workspace_id)
        await runners.revokeAll(trx, message.orgId, p.workspace_id, 'workspace_archived');
      else if (message.type === 'privacy.organization_closed')
        await runners.revokeAll(trx, message.orgId, null, 'organization_closed');
    });
  },
});
