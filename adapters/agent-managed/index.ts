import { spawn } from 'node:child_process';
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
  type FixResult,
  type JobIO,
  type JobResult,
} from '../../core/contracts/index.js';
import { CostMeter } from './cost.js';
import { chownTree, resolveSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';

export type { SandboxMode, SandboxOptions } from './sandbox.js';

export interface ManagedAgentOptions extends AgentExecutorOptions {
  /** The agent command, run by /bin/sh in the checkout (any CLI agent). Reads the job from PATCHWELL_* variables. */
  command: string;
  /** Where checkouts are made (default: the system temp directory). Each job gets a fresh one, removed afterwards. */
  workRoot?: string;
  /** Wall-clock limit of the agent command and of the tests, each, when the job's limit is longer. */
  timeoutMs: number;
  /** Lines of output kept as job events per command (the rest is counted). */
  maxEventLines: number;
  /** Where the commands run: a namespace, another account, or as the service (docs/fixes.md, agent-managed). */
  sandbox: SandboxOptions;
}

interface Ran {
  code: number | null;
  timedOut: boolean;
  cancelled: boolean;
  /** The agent's reported spend passed the job's max_cost_usd (it was killed). */
  overBudget: boolean;
}

/** How often a running command's cancellation and cost file are looked at. */
const WATCH_MS = 250;
/** After the command exits, how long its leftover children may keep its output open. */
const DRAIN_MS = 2_000;

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
    workRoot: Joi.string(),
    timeoutMs: Joi.number()
      .integer()
      .min(1000)
      .max(24 * 3_600_000)
      .default(30 * 60_000),
    maxEventLines: Joi.number().integer().min(10).max(100_000).default(2000),
    sandbox: Joi.object<SandboxOptions>({
      mode: Joi.string().valid('auto', 'user', 'namespace', 'none').default('auto'),
      user: Joi.string()
        .pattern(/^(?:[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?|\d{1,10})$/)
        .messages({ 'string.pattern.base': 'must be an account name or a numeric uid' }),
      network: Joi.boolean().default(true),
    }).default(),
  });
  readonly mode = 'managed' as const;
  readonly capabilities = { diagnose: false, fix: true };
  /** How this process runs the commands, decided once at start-up (a sandbox that cannot be had fails the boot). */
  readonly sandbox: Sandbox;

  constructor(options: ManagedAgentOptions, deps?: AdapterDeps) {
    super(options, deps);
    const log = this.deps.log as { warn?: (msg: string) => void } | undefined;
    this.sandbox = resolveSandbox(options.sandbox ?? { mode: 'auto', network: true }, (msg) =>
      log?.warn ? log.warn(msg) : process.emitWarning(msg),
    );
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
      await mkdir(env.HOME!, { recursive: true });
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

      await git(['add', '-A']);
      const changed = (await git(['status', '--porcelain'])).trim();
      if (!changed) return fail('no_changes', 'the agent changed nothing');
      await git([
        'commit',
        '--quiet',
        '-m',
        `Fix: ${job.ticket.subject.slice(0, 72)}\n\nTicket ${job.ticket.id}, job ${job.id}.`,
      ]);
      const head = (await git(['rev-parse', 'HEAD'])).trim();

      const fix: FixResult = {
        branch,
        head_sha: head,
        tests_ran: false,
        tests_passed: false,
        verify_passed: false,
        reason: 'tests_not_run_without_reason',
      };
      if (job.test_command) {
        await io.emit({ level: 'info', type: 'phase', message: `verifying: ${job.test_command}` });
        await this.handOver(dir); // the commit wrote .git as the service
        const tests = await this.sh(job.test_command, work, env, limitMs, io, 'test_output');
        if (tests.cancelled) return cancelled();
        fix.tests_ran = !tests.timedOut;
        fix.tests_passed = tests.code === 0 && !tests.timedOut;
        fix.verify_passed = fix.tests_passed;
        fix.reason = fix.verify_passed ? null : tests.timedOut ? 'verification_failed' : 'tests_failed';
      }
      await io.emit({
        level: fix.verify_passed ? 'info' : 'warn',
        type: 'verification',
        message: fix.verify_passed ? 'tests passed' : `not verified: ${fix.reason}`,
        data: { ...fix },
      });
      await git(['push', '--quiet', '--force', 'origin', `HEAD:refs/heads/${branch}`]);
      await io.emit({
        level: 'info',
        type: 'phase',
        message: `pushed ${branch} at ${head.slice(0, 12)} (base ${base.slice(0, 12)})`,
        data: { branch, head_sha: head, base_sha: base },
      });
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

  /**
   * Runs one command in the sandbox, in its own process group, streaming its output as events.
   * With a cost meter, the agent's spend is read as it goes and the group is killed once it
   * passes `maxCost`. No process of the group outlives the command.
   */
  private async sh(
    command: string,
    cwd: string,
    env: Record<string, string>,
    limitMs: number,
    io: JobIO,
    type: string,
    budget?: { meter: CostMeter; maxCost: number },
  ): Promise<Ran> {
    const [file, args] = this.sandbox.argv(command);
    const user = this.sandbox.user;
    const child = spawn(file, args, {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    let lines = 0;
    let dropped = 0;
    let timedOut = false;
    let cancelled = false;
    let overBudget = false;
    const pending: Promise<void>[] = [];
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const checkBudget = () => {
      if (budget && !overBudget && budget.meter.total > budget.maxCost) {
        overBudget = true;
        kill();
      }
    };
    const onData = (level: 'info' | 'warn') => {
      let buf = '';
      return (chunk: Buffer) => {
        buf += chunk.toString('utf8');
        const parts = buf.split('\n');
        buf = parts.pop() ?? '';
        for (const line of parts) {
          if (!line.trim()) continue;
          if (level === 'info' && budget?.meter.stdoutLine(line)) checkBudget();
          if (lines++ >= this.options.maxEventLines) dropped++;
          else pending.push(io.emit({ level, type, message: line.slice(0, 4000) }));
        }
      };
    };
    child.stdout.on('data', onData('info'));
    child.stderr.on('data', onData('warn'));
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, limitMs);
    let polling: Promise<void> | null = null;
    const watch = setInterval(() => {
      if (io.isCancelled()) {
        cancelled = true;
        kill();
      }
      if (budget && !polling)
        polling = budget.meter
          .poll()
          .then(checkBudget, () => undefined)
          .finally(() => (polling = null));
    }, WATCH_MS);
    const code = await new Promise<number | null>((resolve) => {
      let settled = false;
      const settle = (c: number | null) => {
        if (settled) return;
        settled = true;
        resolve(c);
      };
      child.on('error', () => settle(127));
      child.on('close', (c) => settle(c));
      child.on('exit', (c) => {
        // Leftovers of the group go with it; one that left the group (setsid) may hold the pipes: stop reading after a while.
        kill();
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          settle(c);
        }, DRAIN_MS).unref();
      });
    });
    clearTimeout(timer);
    clearInterval(watch);
    await polling;
    await Promise.all(pending);
    if (dropped) await io.emit({ level: 'warn', type, message: `${dropped} more line(s) not kept` });
    if (budget) {
      await budget.meter.finish();
      checkBudget();
    }
    return { code, timedOut, cancelled, overBudget };
  }

  private git(args: string[], cwd: string, access: { cloneUrl: string; token: string }): Promise<string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Patchwell',
      GIT_AUTHOR_EMAIL: 'patchwell@localhost',
      GIT_COMMITTER_NAME: 'Patchwell',
      GIT_COMMITTER_EMAIL: 'patchwell@localhost',
      LC_ALL: 'C',
    };
    // The checkout belongs to the sandbox account while its commands run: git (as the service) must still work in it.
    const config: Array<[string, string]> = [['safe.directory', '*']];
    // The token travels as an HTTP header in the environment, never in arguments or URLs.
    if (/^https?:\/\//.test(access.cloneUrl))
      config.push([
        'http.extraHeader',
        `Authorization: Basic ${Buffer.from(`x-access-token:${access.token}`).toString('base64')}`,
      ]);
    env.GIT_CONFIG_COUNT = String(config.length);
    config.forEach(([key, value], i) =>
      Object.assign(env, { [`GIT_CONFIG_KEY_${i}`]: key, [`GIT_CONFIG_VALUE_${i}`]: value }),
    );
    return new Promise((resolve, reject) => {
      const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve(out) : reject(new Error(`git ${args[0]} failed: ${err.trim().slice(0, 500)}`)),
      );
    });
  }
}

export default adapterModule('agent', ManagedAgentExecutor);
