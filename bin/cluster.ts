#!/usr/bin/env node
/**
 * `npm run cluster`: runs Patchwell as separate role processes on one machine, for trying scale-out
 * locally (issue 31). The same processes are what an operator runs on several machines.
 *
 *   DATABASE_URL=postgres://… AMQP_URL=amqp://… npm run cluster -- [--api 2] [--workers 2] [--schedulers 2] [--port 3000]
 *
 * dist/ is brought up to date once (bin/build.mjs), migrations run once (dist/bin/migrate.js), then
 * every process starts as `node dist/bin/patchwell.js --role <role>`. Api process i listens on port
 * `--port` + i - 1 (each its own port, as each machine behind a load balancer has its own address:
 * the group knows every api process by pid and port, can stop one and sees its health on its own).
 * Output lines are prefixed with the process's name (`api-1`, `worker-2`, …). A process is ready when
 * its /v1/health/ready answers 200 (api) or when it logged `patchwell started` (worker, scheduler,
 * which serve no HTTP; at LOG_LEVEL above info that line is not written and they count as ready
 * once spawned). SIGTERM/SIGINT go to every process; the command exits when all have ended. Nothing
 * is restarted.
 *
 * The fault suite (test/chaos/harness.ts) starts its processes through `ProcessGroup` below.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export type ClusterRole = 'api' | 'worker' | 'scheduler';

/** One process of the group. A respawn makes a new ClusterProcess with the same role, index and port. */
export interface ClusterProcess {
  role: ClusterRole;
  /** 1-based, per role. */
  index: number;
  /** `api-1`, `worker-2`… (the prefix of its output lines). */
  name: string;
  pid: number;
  /** Api processes: the port and base URL they listen on; null for the other roles. */
  port: number | null;
  url: string | null;
  child: ChildProcess;
  /** Settles when the process has ended: its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether it is still running. */
  alive: boolean;
  /** The last output lines (unprefixed), for failure messages. */
  lines: string[];
  startedAt: number;
}

export interface ProcessGroupOptions {
  /** Environment of every process (DATABASE_URL, AMQP_URL, CONFIG_FILE…); PORT and API_PROCESSES are set per process. */
  env: NodeJS.ProcessEnv;
  /** Port of api-1; api-i gets basePort + i - 1. */
  basePort: number;
  /** Host part of the api URLs the group polls. */
  host?: string;
  /** Each output line of each process; default: printed to stdout prefixed with the process's name. */
  onLine?: (proc: ClusterProcess, line: string) => void;
  /** Readiness of a non-api process: a line containing this (default: `"patchwell started`). */
  startedMarker?: string;
  /** When false, worker and scheduler processes count as ready once spawned (their start line is not logged). */
  logsStarted?: boolean;
  readyTimeoutMs?: number;
}

const checkout = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  // bin/ from the sources (tsx), dist/bin/ from the compiled tree.
  return existsSync(join(here, '..', 'package.json')) ? resolve(here, '..') : resolve(here, '..', '..');
})();

const ENTRY = join(checkout, 'dist', 'bin', 'patchwell.js');
const MIGRATE = join(checkout, 'dist', 'bin', 'migrate.js');
const KEEP_LINES = 200;

const BUILD_LOCK = '/tmp/patchwell-build.lock';
let built: Promise<void> | null = null;
/**
 * Brings dist/ up to date once per process, under a file lock (flock(1), when installed) so that a
 * cluster and a fault-suite run starting together never compile the same files at once.
 */
export function buildOnce(): Promise<void> {
  built ??= (async () => {
    const build = `const { buildDist } = await import(${JSON.stringify(pathToFileURL(join(checkout, 'bin', 'build.mjs')).href)});
const { compiled, removed, ms } = await buildDist();
if (compiled || removed) process.stderr.write('cluster: compiled ' + compiled + ' changed files into dist/ (' + ms + ' ms)\\n');`;
    const locked = spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;
    const [cmd, args] = locked
      ? ['flock', [BUILD_LOCK, process.execPath, '--input-type=module', '-e', build]]
      : [process.execPath, ['--input-type=module', '-e', build]];
    const child = spawn(cmd, args, { cwd: checkout, stdio: ['ignore', 'inherit', 'inherit'] });
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    if (code !== 0) throw new Error(`building dist/ failed (exit ${code})`);
  })();
  return built;
}

/** The environment of a child: the given one without what only this process's runner needs (tap's loaders). */
function childEnv(env: NodeJS.ProcessEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('TAP') && k !== 'NODE_OPTIONS') out[k] = v;
  return { ...out, ...extra };
}

/** Applies the migrations once (dist/bin/migrate.js), so the processes started next never race on them. */
export async function migrateOnce(env: NodeJS.ProcessEnv): Promise<string> {
  await buildOnce();
  const child = spawn(process.execPath, ['--enable-source-maps', MIGRATE], {
    cwd: checkout,
    env: childEnv(env, {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  if (code !== 0) throw new Error(`migrations failed (exit ${code}): ${out.trim()}`);
  return out.trim();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ProcessGroup {
  /** Every process started, in order (ended ones included; `live()` filters). */
  readonly processes: ClusterProcess[] = [];
  private readonly host: string;

  constructor(private readonly opts: ProcessGroupOptions) {
    this.host = opts.host ?? '127.0.0.1';
  }

  live(role?: ClusterRole): ClusterProcess[] {
    return this.processes.filter((p) => p.alive && (!role || p.role === role));
  }

  /** Api base URLs of the live api processes. */
  urls(): string[] {
    return this.live('api').map((p) => p.url!);
  }

  /** Starts one process of `role` (index: next free one of the role) and waits until it is ready. */
  async spawn(role: ClusterRole, index?: number): Promise<ClusterProcess> {
    const i = index ?? Math.max(0, ...this.processes.filter((p) => p.role === role).map((p) => p.index)) + 1;
    const port = role === 'api' ? this.opts.basePort + i - 1 : null;
    const extra: Record<string, string> = { API_PROCESSES: '1' };
    if (port !== null) extra.PORT = String(port);
    const child = spawn(process.execPath, ['--enable-source-maps', ENTRY, '--role', role], {
      cwd: checkout,
      env: childEnv(this.opts.env, extra),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc: ClusterProcess = {
      role,
      index: i,
      name: `${role}-${i}`,
      pid: child.pid ?? -1,
      port,
      url: port !== null ? `http://${this.host}:${port}` : null,
      child,
      alive: true,
      lines: [],
      startedAt: Date.now(),
      exited: new Promise((resolve) =>
        child.once('exit', (code, signal) => {
          proc.alive = false;
          resolve({ code, signal });
        }),
      ),
    };
    const onLine =
      this.opts.onLine ??
      ((p: ClusterProcess, line: string) => void process.stdout.write(`${p.name.padEnd(12)}| ${line}\n`));
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        proc.lines.push(line);
        if (proc.lines.length > KEEP_LINES) proc.lines.shift();
        onLine(proc, line);
      });
    }
    this.processes.push(proc);
    await this.waitReady(proc);
    return proc;
  }

  /** Waits until `proc` is ready (see the header); throws with its last lines when it ends first or times out. */
  async waitReady(proc: ClusterProcess, timeoutMs = this.opts.readyTimeoutMs ?? 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    const marker = this.opts.startedMarker ?? '"patchwell started';
    for (;;) {
      if (!proc.alive) throw new Error(`${proc.name} ended while starting:\n${proc.lines.slice(-30).join('\n')}`);
      if (proc.url) {
        const ok = await fetch(`${proc.url}/v1/health/ready`, { signal: AbortSignal.timeout(3000) }).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) return;
      } else if (this.opts.logsStarted === false || proc.lines.some((l) => l.includes(marker))) return;
      if (Date.now() > until)
        throw new Error(`${proc.name} not ready after ${timeoutMs} ms:\n${proc.lines.slice(-30).join('\n')}`);
      await sleep(100);
    }
  }

  /** Sends `signal` (default SIGKILL) and answers how it ended. */
  async kill(
    proc: ClusterProcess,
    signal: NodeJS.Signals = 'SIGKILL',
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (proc.alive) proc.child.kill(signal);
    return proc.exited;
  }

  /**
   * Sends SIGTERM (or `signal`) and waits up to `timeoutMs` for the end; SIGKILL after that.
   * Answers how it ended, how long it took and whether it had to be killed.
   */
  async stop(
    proc: ClusterProcess,
    timeoutMs = 20_000,
    signal: NodeJS.Signals = 'SIGTERM',
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number; killed: boolean }> {
    const t0 = Date.now();
    if (!proc.alive) return { ...(await proc.exited), ms: 0, killed: false };
    proc.child.kill(signal);
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      proc.child.kill('SIGKILL');
    }, timeoutMs);
    const end = await proc.exited;
    clearTimeout(timer);
    return { ...end, ms: Date.now() - t0, killed };
  }

  /** A new process in place of `proc` (same role, index and port), once `proc` has ended; waits until it is ready. */
  async respawn(proc: ClusterProcess): Promise<ClusterProcess> {
    if (proc.alive) await this.kill(proc);
    return this.spawn(proc.role, proc.index);
  }

  /** Stops every live process (SIGTERM, SIGKILL after `timeoutMs`), all at once. */
  async stopAll(timeoutMs = 20_000): Promise<void> {
    await Promise.all(this.live().map((p) => this.stop(p, timeoutMs)));
  }
}

export interface ClusterOptions extends ProcessGroupOptions {
  api: number;
  workers: number;
  schedulers: number;
  /** false: the caller has applied the migrations already (the fault suite's in-process app does). */
  migrate?: boolean;
}

/**
 * Builds dist/, applies the migrations once, then starts the api, worker and scheduler processes
 * (each role's processes at once) and waits until all are ready. On a failed start the processes
 * already started are stopped.
 */
export async function startCluster(opts: ClusterOptions): Promise<ProcessGroup> {
  if (opts.migrate === false) await buildOnce();
  else await migrateOnce(opts.env);
  const group = new ProcessGroup(opts);
  const plan: ClusterRole[] = [
    ...Array<ClusterRole>(opts.api).fill('api'),
    ...Array<ClusterRole>(opts.workers).fill('worker'),
    ...Array<ClusterRole>(opts.schedulers).fill('scheduler'),
  ];
  const counters: Record<ClusterRole, number> = { api: 0, worker: 0, scheduler: 0 };
  try {
    await Promise.all(plan.map((role) => group.spawn(role, ++counters[role])));
  } catch (err) {
    await group.stopAll(5000);
    throw err;
  }
  return group;
}

function parseArgs(argv: string[]): { api: number; workers: number; schedulers: number; port: number } {
  const out = { api: 2, workers: 2, schedulers: 2, port: Number(process.env.PORT ?? 3000) };
  const names: Record<string, keyof typeof out> = {
    '--api': 'api',
    '--workers': 'workers',
    '--schedulers': 'schedulers',
    '--port': 'port',
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined];
    const key = names[flag];
    if (!key) throw new UsageError(`unknown argument ${flag} (use --api N --workers N --schedulers N --port P)`);
    const raw = inline ?? argv[++i] ?? '';
    if (!/^\d+$/.test(raw)) throw new UsageError(`${flag} needs a whole number, got "${raw}"`);
    out[key] = Number(raw);
  }
  if (out.api + out.workers + out.schedulers === 0) throw new UsageError('nothing to start: every count is 0');
  return out;
}

class UsageError extends Error {}

async function main(): Promise<void> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
    const missing = ['DATABASE_URL', 'AMQP_URL'].filter((k) => !process.env[k]);
    if (missing.length)
      throw new UsageError(
        `${missing.join(' and ')} must be set: several processes need a shared Postgres and RabbitMQ (the embedded database and bus belong to one process)`,
      );
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`patchwell cluster: ${err.message}\n`);
    process.exit(78); // EX_CONFIG, as bin/patchwell.ts's configuration errors
  }
  const level = process.env.LOG_LEVEL ?? 'info';
  const t0 = Date.now();
  await buildOnce();
  process.stdout.write(`cluster: ${await migrateOnce(process.env)}\n`);
  const group = new ProcessGroup({
    env: process.env,
    basePort: args.port,
    logsStarted: ['trace', 'debug', 'info'].includes(level),
  });
  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`cluster: ${signal}: stopping ${group.live().length} processes\n`);
    for (const p of group.live()) p.child.kill(signal);
  };
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  process.on('SIGINT', () => stopAll('SIGINT'));

  const counts: [ClusterRole, number][] = [
    ['api', args.api],
    ['worker', args.workers],
    ['scheduler', args.schedulers],
  ];
  const starting: Promise<ClusterProcess>[] = [];
  for (const [role, n] of counts) for (let i = 1; i <= n; i++) starting.push(group.spawn(role, i));
  const started = await Promise.allSettled(starting);
  for (const p of group.processes) {
    void p.exited.then(({ code, signal }) => {
      process.stdout.write(
        `cluster: ${p.name} (pid ${p.pid}) ended with ${signal ?? `exit ${code}`}${stopping ? '' : '; not restarted'}\n`,
      );
    });
  }
  for (const p of group.processes)
    process.stdout.write(
      `cluster: ${p.name.padEnd(12)} pid ${String(p.pid).padEnd(8)} ${p.port !== null ? `port ${p.port}  ${p.url}` : '(no HTTP)'}\n`,
    );
  const failed = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed.length) {
    for (const f of failed) process.stderr.write(`cluster: ${(f.reason as Error).message}\n`);
    stopAll('SIGTERM');
  } else {
    process.stdout.write(
      `cluster: ready: ${args.api} api, ${args.workers} worker, ${args.schedulers} scheduler processes in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
    );
  }
  const ends = await Promise.all(group.processes.map((p) => p.exited));
  process.exit(failed.length || ends.some((e) => e.code !== 0) ? 1 : 0);
}

// Run as a command (tsx bin/cluster.ts, node dist/bin/cluster.js), not when imported by the fault suite.
if (
  process.argv[1] &&
  resolve(process.argv[1]).replace(/\.(ts|js)$/, '') === fileURLToPath(import.meta.url).replace(/\.(ts|js)$/, '')
)
  void main().catch((err: unknown) => {
    process.stderr.write(`patchwell cluster: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
