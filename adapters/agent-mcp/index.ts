import { RemoteAgentExecutor, adapterModule, type AgentJob } from '../../core/contracts/index.js';

/**
 * An IDE agent (Claude Code, Cursor, …) runs the job through the MCP endpoint (plugin `mcp`,
 * POST /v1/mcp): it lists its tickets, reads one with diagnosis and references, and submits a
 * diagnosis, a draft or a fix branch. Nothing runs in this process: the executor runs `remote`,
 * so the fixes worker never claims its jobs; a job stays queued until the IDE agent's submission
 * claims and answers it, as an `agent-runner` job waits for a runner. A job nobody answers within
 * the fixes option `remoteClaimTimeoutMs` fails `not_claimed` (docs/mcp.md).
 */
export class McpAgentExecutor extends RemoteAgentExecutor {
  static override identifier = 'agent-mcp';
  readonly mode = 'mcp' as const;
  protected readonly waiting = {
    type: 'waiting_mcp',
    message: (job: AgentJob) => `job ${job.id} waits for the IDE agent (MCP)`,
  };
}

export default adapterModule('agent', McpAgentExecutor);
