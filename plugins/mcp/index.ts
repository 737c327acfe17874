import { asValue } from 'awilix';
import { cradleView } from '../../core/kernel/cradle.js';
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
    const deps = cradleView<McpDeps>(container, {
      db: 'db',
      log: 'log',
      jobs: 'fixJobs',
      payloads: 'fixPayloads',
      tickets: 'ticketService',
      drafts: 'draftService',
    });
    const service = new McpService(deps);
    ctx.provide({ mcpService: asValue(service) });
    ctx.routes(
      mcpRoutes(
        () => service,
        () => deps.log,
        VERSION,
      ),
    );
    mcpMethodGuard(ctx.server);
    // agent-mcp runs remote: the fixes worker leaves its jobs queued; a submission claims one itself.
  },
});
