import { spawn } from 'node:child_process';
import type { AgentJob, FixResult, JobIO } from '../../core/contracts/index.js';
import { cleanGitEnv } from '../../core/security/git-env.js';
import type { CostMeter } from './cost.js';
import type { Sandbox } from './sandbox.js';

/**
 * The pieces of a sandboxed fix job every in-process fix executor shares (agent-managed runs a CLI
 * agent in the checkout, agent-model a model's tool loop): git with a short-lived token, commands
 * in the sandbox streamed as job events, and commit → verify → push of the service-prefixed branch.
 */

export interface GitAccess {
  cloneUrl: string;
  token: string;
}

export interface Ran {
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

/** Runs git as the service in `cwd`; the token travels as an HTTP header in the environment, never in arguments or URLs. */
export function runGit(args: string[], cwd: string, access: GitAccess): Promise<string> {
  const env = cleanGitEnv(cwd);
  // The checkout belongs to the sandbox account while its commands run: git (as the service) must still work in it.
  const config: Array<[string, string]> = [['safe.directory', '*']];
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

export interface SandboxedCommand {
  sandbox: Sandbox;
  command: string;
  cwd: string;
  env: Record<string, string>;
  limitMs: number;
  io: JobIO;
  /** Event type of its output lines. */
  type: string;
  /** Lines of output kept as events (the rest is counted). */
  maxEventLines: number;
  /** With a cost meter, the group is killed once the reported spend passes `maxCost`. */
  budget?: { meter: CostMeter; maxCost: number };
  /** Receives every output line too (e.g. to hand the tests' output back to a model). */
  onLine?: (line: string) => void;
}

/**
 * Runs one command in the sandbox, in its own process group, streaming its output as events.
 * No process of the group outlives the command (timeout, cancellation, overspend kill the group).
 */
export async function runSandboxed(c: SandboxedCommand): Promise<Ran> {
  const { io, budget } = c;
  const [file, args] = c.sandbox.argv(c.command);
  const user = c.sandbox.user;
  const child = spawn(file, args, {
    cwd: c.cwd,
    env: c.env,
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
        c.onLine?.(line);
        if (level === 'info' && budget?.meter.stdoutLine(line)) checkBudget();
        if (lines++ >= c.maxEventLines) dropped++;
        else pending.push(io.emit({ level, type: c.type, message: line.slice(0, 4000) }));
      }
    };
  };
  child.stdout.on('data', onData('info'));
  child.stderr.on('data', onData('warn'));
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, c.limitMs);
  // Assigned in the interval callback: without the wider type, TS narrows it to null here.
  let polling: Promise<void> | null = null as Promise<void> | null;
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
    const settle = (n: number | null) => {
      if (settled) return;
      settled = true;
      resolve(n);
    };
    child.on('error', () => settle(127));
    child.on('close', (n) => settle(n));
    child.on('exit', (n) => {
      // Leftovers of the group go with it; one that left the group (setsid) may hold the pipes: stop reading after a while.
      kill();
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        settle(n);
      }, DRAIN_MS).unref();
    });
  });
  clearTimeout(timer);
  clearInterval(watch);
  await polling;
  await Promise.all(pending);
  if (dropped) await io.emit({ level: 'warn', type: c.type, message: `${dropped} more line(s) not kept` });
  if (budget) {
    await budget.meter.finish();
    checkBudget();
  }
  return { code, timedOut, cancelled, overBudget };
}

export interface VerifyAndPush {
  job: AgentJob;
  io: JobIO;
  branch: string;
  base: string;
  git: (args: string[]) => Promise<string>;
  /** Runs the workspace's test_command in the sandbox (output as `test_output` events). */
  runTests: (command: string) => Promise<Ran>;
  /** Called between the commit and the tests (agent-managed hands the checkout back to the sandbox account). */
  beforeTests?: () => Promise<void>;
}

/**
 * Commits what changed, runs the job's test_command and pushes the branch: the same verification
 * and push for every fix executor. `no_changes` when nothing changed, `cancelled` when the tests were.
 */
export async function commitVerifyPush(v: VerifyAndPush): Promise<FixResult | 'no_changes' | 'cancelled'> {
  const { job, io, branch, git } = v;
  await git(['add', '-A']);
  const changed = (await git(['status', '--porcelain'])).trim();
  if (!changed) return 'no_changes';
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
    await v.beforeTests?.();
    const tests = await v.runTests(job.test_command);
    if (tests.cancelled) return 'cancelled';
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
    message: `pushed ${branch} at ${head.slice(0, 12)} (base ${v.base.slice(0, 12)})`,
    data: { branch, head_sha: head, base_sha: v.base },
  });
  return fix;
}
