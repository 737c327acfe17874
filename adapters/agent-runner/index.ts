import { RemoteAgentExecutor, adapterModule, type AgentJob } from '../../core/contracts/index.js';

/**
 * The customer's runner (a GitHub Actions workflow or a container, the workspace's
 * runner_transport) runs the job. Its jobs are not run in this process: the executor runs
 * `remote`, so the fixes worker never claims them and a job stays queued until the workspace's
 * registered runner claims it (POST /v1/runner/claim) and drives it through the jobs API
 * (payload, events, heartbeat, git-token, agent-credential, pull-request, result, token); the
 * result continues the loop exactly as an in-process one. A job no runner claims within the fixes
 * option `remoteClaimTimeoutMs` fails `not_claimed`. See docs/runner.md.
 */
export class RunnerAgentExecutor extends RemoteAgentExecutor {
  static override identifier = 'agent-runner';
  readonly mode = 'runner' as const;
  protected readonly waiting = {
    type: 'waiting_runner',
    message: (job: AgentJob) => `job ${job.id} waits for the workspace's runner`,
  };
}

export default adapterModule('agent', RunnerAgentExecutor);
