import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Joi from 'joi';
import {
  AbstractAgentExecutor,
  adapterModule,
  agentExecutorOptionKeys,
  type AdapterDeps,
  type AgentExecutorOptions,
  type AgentJob,
  type JobIO,
  type JobResult,
} from '../../core/contracts/index.js';
import { commitVerifyPush, runGit, runSandboxed, type Ran } from './checkout.js';
import { CostMeter } from './cost.js';
import { checkoutOptionKeys, chownTree, sandboxAtStart, type CheckoutOptions, type Sandbox } from './sandbox.js';

export type { SandboxMode, SandboxOptions } from './sandbox.js';

export interface ManagedAgentOptions extends AgentExecutorOptions, CheckoutOptions {
  /** The agent command, run by /bin/sh in the checkout (any CLI agent). Reads the job from PATCHWELL_* variables. */
  command: string;
  /** Wall-clock limit of the agent command and of the tests, each, when the job's limit is longer. */
  timeoutMs: number;
}

const usd = (n: number): number => Math.round(n * 1e6) / 1e6;

/**
 * Runs a configured agent command in a fresh checkout of the job's repository, verifies it with
 * the workspace's test_command and pushes the service-prefixed branch. The commands run in a
 * sandbox (a user, PID and mount namespace and, when configured, no network; or another account;
 * see `sandbox`) with a clean environment (PATH, a private HOME and the job's PATCHWELL_* variables
 * only: none of the service's secrets), under the job's wall-clock and cost limits, in their own
 * process group (killed whole on timeout, cancellation or overspend); their output becomes job
 * events (masked by the loop). The agent reports its spend through PATCHWELL_COST_FILE or
 * `::patchwell-cost` lines (cost.ts). The pull request is opened by the loop through the
 * CodeHost, as the workspace's autonomy says.
 */
export class ManagedAgentExecutor extends AbstractAgentExecutor<ManagedAgentOptions> {
  static override identifier = 'agent-managed';
  static override optionsSchema = Joi.object<ManagedAgentOptions>({
    ...agentExecutorOptionKeys,
    command: Joi.string()
      .min(1)
      .max(4000)
      .default('echo "no agent command configured (adapters.options.agent-managed.command)" >&2; exit 2'),
    timeoutMs: Joi.number()
      .integer()
      .min(1000)
      .max(24 * 3_600_000)
      .default(30 * 60_000),
    ...checkoutOptionKeys,
  });
  readonly mode = 'managed' as const;
  readonly capabilities = { diagnose: false, fix: true };
  /** How this process runs the commands, decided once at start-up (a sandbox that cannot be had fails the boot). */
  readonly sandbox: Sandbox;

  constructor(options: ManagedAgentOptions, deps?: AdapterDeps) {
    super(options, deps);
    this.sandbox = sandboxAtStart(options.sandbox, this.deps.log, 'agent-managed');
  }

  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    if (io.isCancelled()) return io.complete({ status: 'cancelled', cost_usd: 0 });
    if (!job.repository || !io.tools?.gitAccess)
      return io.complete({
        status: 'failed',
        cost_usd: 0,
        error: { code: 'no_repository', detail: 'the workspace has no repository this executor can check out' },
      });
    const branch = job.branch ?? `patchwell/${job.ticket.id}`;
    const root = this.options.workRoot ?? tmpdir();
    await mkdir(root, { recursive: true });
    const dir = await mkdtemp(join(root, 'patchwell-job-'));
    const work = join(dir, 'checkout');
    // Outside the checkout, so the agent's spend reports are never committed.
    const meter = new CostMeter(join(dir, 'cost.jsonl'));
    const maxCost = job.limits.max_cost_usd;
    const cost = () => usd(meter.total);
    const fail = (code: string, detail: string): Promise<void> =>
      io.complete({ status: 'failed', cost_usd: cost(), error: { code, detail } });
    const cancelled = (): Promise<void> => io.complete({ status: 'cancelled', cost_usd: cost() });
    try {
      const access = await io.tools.gitAccess({ write: true });
      const git = (args: string[]) => this.git(args, work, access);
      await io.emit({
        level: 'info',
        type: 'phase',
        message: `checkout of ${job.repository.full_name} (${job.repository.default_branch})`,
      });
      await this.git(
        ['clone', '--quiet', '--depth', '50', '--branch', job.repository.default_branch, access.cloneUrl, work],
        dir,
        access,
      );
      await git(['checkout', '--quiet', '-B', branch]);
      const base = (await git(['rev-parse', 'HEAD'])).trim();
      const limitMs = Math.min(this.options.timeoutMs, job.limits.max_minutes * 60_000);
      const env = this.jobEnv(job, branch, dir);
      await mkdir(env.HOME, { recursive: true });
      await writeFile(meter.file, '');
      await this.handOver(dir);
      const sb = this.sandbox;
      await io.emit({
        level: 'info',
        type: 'sandbox',
        message: `sandbox: ${sb.describe()}`,
        data: {
          kind: sb.kind,
          uid: sb.user?.uid ?? process.getuid?.() ?? null,
          user: sb.user?.name ?? null,
          network: sb.network,
        },
      });

      await io.emit({ level: 'info', type: 'phase', message: 'agent running' });
      const agent = await this.sh(
        this.options.command,
        work,
        { ...env, PATCHWELL_COST_FILE: meter.file },
        limitMs,
        io,
        'agent_output',
        { meter, maxCost },
      );
      await this.reportCost(io, meter, maxCost);
      if (agent.cancelled) return cancelled();
      if (agent.overBudget)
        return fail('cost_limit_reached', `the agent reported $${cost()} spent, above the job's limit of $${maxCost}`);
      if (agent.timedOut) return fail('timed_out', `the agent ran past ${Math.round(limitMs / 1000)} s`);
      if (agent.code !== 0) return fail('agent_failed', `the agent command exited with ${agent.code}`);

      const fix = await commitVerifyPush({
        job,
        io,
        branch,
        base,
        git,
        runTests: (command) => this.sh(command, work, env, limitMs, io, 'test_output'),
        beforeTests: () => this.handOver(dir), // the commit wrote .git as the service
      });
      if (fix === 'cancelled') return cancelled();
      if (fix === 'no_changes') return fail('no_changes', 'the agent changed nothing');
      const result: JobResult = { status: 'succeeded', fix, cost_usd: cost() };
      await io.complete(result);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The sandbox account owns the job's directory (checkout, HOME, cost file) while its commands run. */
  private async handOver(dir: string): Promise<void> {
    if (this.sandbox.user) await chownTree(dir, this.sandbox.user);
  }

  /** One line with the agent's reported spend (and the reports that could not be read). */
  private async reportCost(io: JobIO, meter: CostMeter, maxCost: number): Promise<void> {
    if (meter.ignored)
      await io.emit({
        level: 'warn',
        type: 'cost',
        message: `${meter.ignored} cost report(s) not understood (expected {"cost_usd": <total>} lines or "::patchwell-cost <total>")`,
      });
    if (meter.total === 0) return;
    const over = meter.total > maxCost;
    await io.emit({
      level: over ? 'error' : 'info',
      type: over ? 'cost_limit' : 'cost',
      message: `the agent reported $${usd(meter.total)} spent (limit $${maxCost})`,
      data: { cost_usd: usd(meter.total), max_cost_usd: maxCost },
    });
  }

  /** The only variables the agent and the tests see. */
  private jobEnv(job: AgentJob, branch: string, dir: string): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: join(dir, 'home'),
      LANG: 'C.UTF-8',
      CI: '1',
      PATCHWELL_JOB_ID: job.id,
      PATCHWELL_TICKET_ID: job.ticket.id,
      PATCHWELL_TICKET_SUBJECT: job.ticket.subject,
      PATCHWELL_TICKET_BODY: job.ticket.body,
      PATCHWELL_INSTRUCTIONS: job.instructions,
      PATCHWELL_BRANCH: branch,
      PATCHWELL_AGENT_ID: job.agent?.agent_id ?? 'other',
      PATCHWELL_MAX_MINUTES: String(job.limits.max_minutes),
      PATCHWELL_MAX_COST_USD: String(job.limits.max_cost_usd),
      ...(job.agent?.model ? { PATCHWELL_MODEL: job.agent.model } : {}),
      ...(job.agent?.effort ? { PATCHWELL_EFFORT: job.agent.effort } : {}),
    };
  }

  /** Runs one command in the sandbox (checkout.ts), with this executor's event-line cap. */
  private sh(
    command: string,
    cwd: string,
    env: Record<string, string>,
    limitMs: number,
    io: JobIO,
    type: string,
    budget?: { meter: CostMeter; maxCost: number },
  ): Promise<Ran> {
    return runSandboxed({
      sandbox: this.sandbox,
      command,
      cwd,
      env,
      limitMs,
      io,
      type,
      maxEventLines: this.options.maxEventLines,
      ...(budget ? { budget } : {}),
    });
  }

  private git(args: string[], cwd: string, access: { cloneUrl: string; token: string }): Promise<string> {
    return runGit(args, cwd, access);
  }
}

export default adapterModule('agent', ManagedAgentExecutor);
