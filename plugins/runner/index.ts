import { asValue } from 'awilix';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../core/audit/audit-writer.js';
import type { CodeHost } from '../../core/contracts/index.js';
import type { AuthResolver } from '../../core/http/auth.js';
import type { RateLimiter } from '../../core/http/rate-limit.js';
import { KEYS } from '../../core/kernel/keys.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import type { SecretBox } from '../../core/security/secret-box.js';
import { runnerOptionsSchema, type RunnerOptions } from './options.js';
import { jobRoutes } from './routes/jobs.js';
import { runnerRoutes } from './routes/runner.js';
import { AgentCredentials } from './services/credentials.js';
import type { JobQueuePort, PayloadPort, PullRequestPort, RepositoriesPort, RunnerDeps, WorkspacePort } from './services/deps.js';
import { JobApi } from './services/job-api.js';
import { jobTokenResolver } from './services/job-tokens.js';
import { Runners } from './services/runners.js';

/**
 * Customer runners (docs/runner.md): the runner section registers runners and hands out the
 * queued jobs of `agent-runner`; the jobs section is the API a runner drives a job through with
 * its job token. The loop itself stays in the fixes plugin (`fixJobs`, `fixPayloads`,
 * `fixPullRequests`). Container entries: `runners`, `runnerJobApi`, `runnerAgentCredentials`.
 */
export default definePlugin<RunnerOptions>({
  name: 'runner',
  version: '0.1.0',
  requires: ['accounts', 'workspaces', 'tickets', 'fixes'],
  options: runnerOptionsSchema,
  register(ctx) {
    const { container, options } = ctx;
    const cradle = () => container.cradle as Record<string, unknown>;
    const optional = <T>(key: string): T | null => (container.resolve(key, { allowUnregistered: true }) as T | undefined) ?? null;
    const deps: RunnerDeps = {
      get db() { return cradle()[KEYS.db] as Knex; },
      get audit() { return cradle()[KEYS.audit] as AuditWriter; },
      get secretBox() { return cradle()[KEYS.secretBox] as SecretBox; },
      get rateLimiter() { return cradle()[KEYS.rateLimiter] as RateLimiter; },
      get log() { return cradle()[KEYS.log] as Logger; },
      options,
      get jobs() { return cradle().fixJobs as JobQueuePort; },
      get payloads() { return cradle().fixPayloads as PayloadPort; },
      get pullRequests() { return cradle().fixPullRequests as PullRequestPort; },
      get workspaces() { return cradle().workspaceService as WorkspacePort; },
      get codeHost() { return optional<CodeHost>(KEYS.codeHost); },
      get repositories() { return optional<RepositoriesPort>('codehostRepositories'); },
    };
    const credentials = new AgentCredentials(deps);
    const runners = new Runners(deps, credentials);
    const api = new JobApi(deps, runners, credentials);
    ctx.provide({ runners: asValue(runners), runnerJobApi: asValue(api), runnerAgentCredentials: asValue(credentials) });
    (cradle()[KEYS.authResolvers] as AuthResolver[]).push(jobTokenResolver(deps));
    ctx.routes([...runnerRoutes(() => runners), ...jobRoutes(() => api)]);
    // An archived workspace or a closed organization keeps no working runner token.
    ctx.consume('revoke', ['workspaces.archived', 'privacy.organization_closed'], async (message, scope) => {
      if (!message.orgId) return;
      const trx = (scope.cradle as { trx: Knex }).trx;
      const p = message.payload as { workspace_id?: string };
      if (message.type === 'workspaces.archived' && p.workspace_id) await runners.revokeAll(trx, message.orgId, p.workspace_id, 'workspace_archived');
      else if (message.type === 'privacy.organization_closed') await runners.revokeAll(trx, message.orgId, null, 'organization_closed');
    });
  },
});
