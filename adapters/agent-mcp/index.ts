import {
  AbstractAgentExecutor,
  adapterModule,
  type AgentExecutorOptions,
  type AgentJob,
  type JobIO,
} from '../../core/contracts/index.js';

/**
 * An IDE agent (Claude Code, Cursor, …) runs the job through the MCP endpoint (plugin `mcp`,
 * POST /v1/mcp): it lists its tickets, reads one with diagnosis and references, and submits a
 * diagnosis, a draft or a fix branch. Nothing runs in this process: the executor runs `remote`,
 * so the fixes worker never claims its jobs; a job stays queued until the IDE agent's submission
 * claims and answers it, as an `agent-runner` job waits for a runner. A job nobody answers within
 * the fixes option `remoteClaimTimeoutMs` fails `not_claimed` (docs/mcp.md).
 */
export class McpAgentExecutor extends AbstractAgentExecutor<AgentExecutorOptions> {
  static override identifier = 'agent-mcp';
  readonly mode = 'mcp' as const;
  override readonly runsIn = 'remote' as const;
  readonly capabilities = { diagnose: true, fix: true };

  /** Hands the job over: the IDE agent answers later through MCP, so nothing completes here. */
  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    await io.emit({ level: 'info', type: 'waiting_mcp', message: `job ${job.id} waits for the IDE agent (MCP)` });
  }
}

export default adapterModule('agent', McpAgentExecutor);
