import { asValue } from 'awilix';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { CodeHost } from '../../core/contracts/index.js';
import { KEYS } from '../../core/kernel/keys.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { mcpMethodGuard, mcpRoutes } from './routes/mcp.js';
import { McpService, type McpDeps } from './services/mcp-service.js';

const VERSION = '0.1.0';

/**
 * The MCP endpoint (docs/mcp.md): an IDE agent with the user's API token lists its tickets, reads
 * one with diagnosis and references, and submits a diagnosis, a draft or a fix branch. Jobs of
 * `agent-mcp` (workspaces in execution_mode mcp) wait queued for it (the executor runs remote); its results go through the fixes
 * plugin's JobQueue, so the loop continues as for any executor. Container entry: `mcpService`.
 */
export default definePlugin({
  name: 'mcp',
  version: VERSION,
  requires: ['accounts', 'workspaces', 'tickets', 'fixes'],
  register(ctx) {
    const { container } = ctx;
    const cradle = () => container.cradle as Record<string, unknown>;
    const optional = <T>(key: string): T | null => (container.resolve(key, { allowUnregistered: true }) as T | undefined) ?? null;
    const deps: McpDeps = {
      get db() { return cradle()[KEYS.db] as Knex; },
      get log() { return cradle()[KEYS.log] as Logger; },
      get jobs() { return cradle().fixJobs as McpDeps['jobs']; },
      get payloads() { return cradle().fixPayloads as McpDeps['payloads']; },
      get tickets() { return cradle().ticketService as McpDeps['tickets']; },
      get drafts() { return cradle().draftService as McpDeps['drafts']; },
      get codeHost() { return optional<CodeHost>(KEYS.codeHost); },
      get repositories() { return optional<McpDeps['repositories'] & object>('codehostRepositories'); },
    };
    const service = new McpService(deps);
    ctx.provide({ mcpService: asValue(service) });
    ctx.routes(mcpRoutes(() => service, () => deps.log, VERSION));
    mcpMethodGuard(ctx.server);
    // agent-mcp runs remote: the fixes worker leaves its jobs queued; a submission claims one itself.
  },
});
