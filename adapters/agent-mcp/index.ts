import { AbstractAgentExecutor, adapterModule, type AgentExecutorOptions, type AgentJob, type JobIO } from '../../core/contracts/index.js';

/** Parks a job the worker handed over for the IDE agent; true when it was parked. */
export type McpHandover = (jobId: string) => Promise<boolean>;

/**
 * An IDE agent (Claude Code, Cursor, …) runs the job through the MCP endpoint (plugin `mcp`,
 * POST /v1/mcp): it lists its tickets, reads one with diagnosis and references, and submits a
 * diagnosis, a draft or a fix branch. Nothing runs in this process: a job of this executor waits
 * for the IDE agent, as an `agent-runner` job waits for a runner. When an in-process worker hands
 * the job over anyway, the mcp plugin's handover parks it for the agent until its wall-clock
 * deadline (docs/mcp.md).
 */
export class McpAgentExecutor extends AbstractAgentExecutor<AgentExecutorOptions> {
  static override identifier = 'agent-mcp';
  readonly mode = 'mcp' as const;
  readonly capabilities = { diagnose: true, fix: true };
  private handover: McpHandover | null = null;

  /** The mcp plugin attaches its handover (a job of a worker becomes the IDE agent's). */
  attachHandover(fn: McpHandover | null): void {
    this.handover = fn;
  }

  /** Hands the job over: the IDE agent answers later through MCP, so nothing completes here. */
  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    await io.emit({ level: 'info', type: 'waiting_mcp', message: `job ${job.id} waits for the IDE agent (MCP)` });
    if (this.handover) await this.handover(job.id);
  }
}

export default adapterModule('agent', McpAgentExecutor);
