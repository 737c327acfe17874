import {
  AbstractAgentExecutor,
  adapterModule,
  type AgentExecutorOptions,
  type AgentJob,
  type JobIO,
} from '../../core/contracts/index.js';

/**
 * The customer's runner (a GitHub Actions workflow or a container, the workspace's
 * runner_transport) runs the job. Its jobs are not run in this process: the executor runs
 * `remote`, so the fixes worker never claims them and a job stays queued until the workspace's
 * registered runner claims it (POST /v1/runner/claim) and drives it through the jobs API
 * (payload, events, heartbeat, git-token, agent-credential, pull-request, result, token); the
 * result continues the loop exactly as an in-process one. A job no runner claims within the fixes
 * option `remoteClaimTimeoutMs` fails `not_claimed`. See docs/runner.md.
 */
export class RunnerAgentExecutor extends AbstractAgentExecutor<AgentExecutorOptions> {
  static override identifier = 'agent-runner';
  readonly mode = 'runner' as const;
  override readonly runsIn = 'remote' as const;
  readonly capabilities = { diagnose: true, fix: true };

  /** Hands the job over: the runner answers later through the jobs API, so nothing completes here. */
  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    await io.emit({ level: 'info', type: 'waiting_runner', message: `job ${job.id} waits for the workspace's runner` });
  }
}

export default adapterModule('agent', RunnerAgentExecutor);
