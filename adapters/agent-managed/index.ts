import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Joi from 'joi';
import {
  AbstractAgentExecutor,
  adapterModule,
  agentExecutorOptionKeys,
  type AgentExecutorOptions,
  type AgentJob,
  type FixResult,
  type JobIO,
  type JobResult,
} from '../../core/contracts/index.js';

export interface ManagedAgentOptions extends AgentExecutorOptions {
  /** The agent command, run by /bin/sh in the checkout (any CLI agent). Reads the job from PATCHWELL_* variables. */
  command: string;
  /** Where checkouts are made (default: the system temp directory). Each job gets a fresh one, removed afterwards. */
  workRoot?: string;
  /** Wall-clock limit of the agent command and of the tests, each, when the job's limit is longer. */
  timeoutMs: number;
  /** Lines of output kept as job events per command (the rest is counted). */
  maxEventLines: number;
}

interface Ran {
  code: number | null;
  timedOut: boolean;
  cancelled: boolean;
}

/**
 * Runs a configured agent command in a fresh checkout of the job's repository, verifies it with
 * the workspace's test_command and pushes the service-prefixed branch. The commands run with a
 * clean environment (PATH, a private HOME inside the checkout and the job's PATCHWELL_* variables
 * only: none of the service's secrets), under a wall-clock limit, in their own process group (killed
 * whole on timeout or cancellation); their output becomes job events (masked by the loop). The
 * pull request is opened by the loop through the CodeHost, as the workspace's autonomy says.
 */
export class ManagedAgentExecutor extends AbstractAgentExecutor<ManagedAgentOptions> {
  static override identifier = 'agent-managed';
  static override optionsSchema = Joi.object<ManagedAgentOptions>({
    ...agentExecutorOptionKeys,
    command: Joi.string().min(1).max(4000).default('echo "no agent command configured (adapters.options.agent-managed.command)" >&2; exit 2'),
    workRoot: Joi.string(),
    timeoutMs: Joi.number().integer().min(1000).max(24 * 3_600_000).default(30 * 60_000),
    maxEventLines: Joi.number().integer().min(10).max(100_000).default(2000),
  });
  readonly mode = 'managed' as const;
  readonly capabilities = { diagnose: false, fix: true };

  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    if (io.isCancelled()) return io.complete({ status: 'cancelled', cost_usd: 0 });
    const fail = (code: string, detail: string): Promise<void> => io.complete({ status: 'failed', cost_usd: 0, error: { code, detail } });
    if (!job.repository || !io.tools?.gitAccess) return fail('no_repository', 'the workspace has no repository this executor can check out');
    const branch = job.branch ?? `patchwell/${job.ticket.id}`;
    const root = this.options.workRoot ?? tmpdir();
    await mkdir(root, { recursive: true });
    const dir = await mkdtemp(join(root, 'patchwell-job-'));
    const work = join(dir, 'checkout');
    try {
      const access = await io.tools.gitAccess({ write: true });
      const git = (args: string[]) => this.git(args, work, access);
      await io.emit({ level: 'info', type: 'phase', message: `checkout of ${job.repository.full_name} (${job.repository.default_branch})` });
      await this.git(['clone', '--quiet', '--depth', '50', '--branch', job.repository.default_branch, access.cloneUrl, work], dir, access);
      await git(['checkout', '--quiet', '-B', branch]);
      const base = (await git(['rev-parse', 'HEAD'])).trim();
      const limitMs = Math.min(this.options.timeoutMs, job.limits.max_minutes * 60_000);
      const env = this.jobEnv(job, branch, dir);

      await io.emit({ level: 'info', type: 'phase', message: 'agent running' });
      const agent = await this.sh(this.options.command, work, env, limitMs, io, 'agent_output');
      if (agent.cancelled) return io.complete({ status: 'cancelled', cost_usd: 0 });
      if (agent.timedOut) return fail('timed_out', `the agent ran past ${Math.round(limitMs / 1000)} s`);
      if (agent.code !== 0) return fail('agent_failed', `the agent command exited with ${agent.code}`);

      await git(['add', '-A']);
      const changed = (await git(['status', '--porcelain'])).trim();
      if (!changed) return fail('no_changes', 'the agent changed nothing');
      await git(['commit', '--quiet', '-m', `Fix: ${job.ticket.subject.slice(0, 72)}\n\nTicket ${job.ticket.id}, job ${job.id}.`]);
      const head = (await git(['rev-parse', 'HEAD'])).trim();

      const fix: FixResult = { branch, head_sha: head, tests_ran: false, tests_passed: false, verify_passed: false, reason: 'tests_not_run_without_reason' };
      if (job.test_command) {
        await io.emit({ level: 'info', type: 'phase', message: `verifying: ${job.test_command}` });
        const tests = await this.sh(job.test_command, work, env, limitMs, io, 'test_output');
        if (tests.cancelled) return io.complete({ status: 'cancelled', cost_usd: 0 });
        fix.tests_ran = !tests.timedOut;
        fix.tests_passed = tests.code === 0 && !tests.timedOut;
        fix.verify_passed = fix.tests_passed;
        fix.reason = fix.verify_passed ? null : tests.timedOut ? 'verification_failed' : 'tests_failed';
      }
      await io.emit({ level: fix.verify_passed ? 'info' : 'warn', type: 'verification', message: fix.verify_passed ? 'tests passed' : `not verified: ${fix.reason}`, data: { ...fix } });
      await git(['push', '--quiet', '--force', 'origin', `HEAD:refs/heads/${branch}`]);
      await io.emit({ level: 'info', type: 'phase', message: `pushed ${branch} at ${head.slice(0, 12)} (base ${base.slice(0, 12)})`, data: { branch, head_sha: head, base_sha: base } });
      const result: JobResult = { status: 'succeeded', fix, cost_usd: 0 };
      await io.complete(result);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
      ...(job.agent?.model ? { PATCHWELL_MODEL: job.agent.model } : {}),
    };
  }

  private async sh(command: string, cwd: string, env: Record<string, string>, limitMs: number, io: JobIO, type: string): Promise<Ran> {
    await mkdir(env.HOME!, { recursive: true });
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let lines = 0;
    let dropped = 0;
    const pending: Promise<void>[] = [];
    const onData = (level: 'info' | 'warn') => {
      let buf = '';
      return (chunk: Buffer) => {
        buf += chunk.toString('utf8');
        const parts = buf.split('\n');
        buf = parts.pop() ?? '';
        for (const line of parts) {
          if (!line.trim()) continue;
          if (lines++ >= this.options.maxEventLines) dropped++;
          else pending.push(io.emit({ level, type, message: line.slice(0, 4000) }));
        }
      };
    };
    child.stdout.on('data', onData('info'));
    child.stderr.on('data', onData('warn'));
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    let timedOut = false;
    let cancelled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, limitMs);
    const watch = setInterval(() => {
      if (io.isCancelled()) {
        cancelled = true;
        kill();
      }
    }, 250);
    const code = await new Promise<number | null>((resolve) => {
      child.on('error', () => resolve(127));
      child.on('close', (c) => resolve(c));
    });
    clearTimeout(timer);
    clearInterval(watch);
    await Promise.all(pending);
    if (dropped) await io.emit({ level: 'warn', type, message: `${dropped} more line(s) not kept` });
    return { code, timedOut, cancelled };
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
    // The token travels as an HTTP header in the environment, never in arguments or URLs.
    if (/^https?:\/\//.test(access.cloneUrl)) {
      Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`x-access-token:${access.token}`).toString('base64')}` });
    }
    return new Promise((resolve, reject) => {
      const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`git ${args[0]} failed: ${err.trim().slice(0, 500)}`))));
    });
  }
}

export default adapterModule('agent', ManagedAgentExecutor);
