import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { pacedLoad, type PacedRequest } from './paced.js';

export interface Measurement {
  name: string;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
  /** CPU time per request of the Patchwell processes and of PostgreSQL's processes (ms), when measured. */
  service_cpu_ms?: number;
  postgres_cpu_ms?: number;
}

/** Patchwell processes started by startPatchwell and still running (their CPU time is measured). */
const servicePids = new Set<number>();
const TICKS_PER_S = 100;

/**
 * CPU ticks per process of the service (with its children: the api processes of
 * API_PROCESSES > 1) and of every postgres process on this machine (Linux only). Kept per pid so
 * that a process ending between two snapshots (a pool closing a connection) takes its ticks out
 * of neither side instead of making the difference negative.
 */
type CpuSnapshot = { service: Map<number, number>; postgres: Map<number, number> };

function cpuSnapshot(): CpuSnapshot | null {
  try {
    const snap: CpuSnapshot = { service: new Map(), postgres: new Map() };
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const pid = Number(d);
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        // The fields after the command's name: ppid is the 2nd, utime and stime the 12th and 13th.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ppid = Number(fields[1]);
        const ticks = Number(fields[11]) + Number(fields[12]);
        if (stat.includes('(postgres)')) snap.postgres.set(pid, ticks);
        else if (servicePids.has(pid) || servicePids.has(ppid)) snap.service.set(pid, ticks);
      } catch {
        // gone
      }
    }
    return snap;
  } catch {
    return null;
  }
}

/** Ticks spent between two snapshots by the processes alive at the second (new ones from zero). */
function ticksBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return ticks;
}

/** One JSON API call (signed in with `cookie` when given): status, parsed body ({} when empty) and Set-Cookie. */
export async function api(
  base: string,
  method: string,
  path: string,
  cookie: string | null,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown>; setCookie: string | null }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(cookie ? { cookie } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    setCookie: res.headers.get('set-cookie'),
  };
}

/** The service's and PostgreSQL's CPU time per request between two snapshots (nothing when not measured). */
function cpuPerRequest(
  before: CpuSnapshot | null,
  after: CpuSnapshot | null,
  requests: number,
): Pick<Measurement, 'service_cpu_ms' | 'postgres_cpu_ms'> {
  if (!before || !after || !servicePids.size) return {};
  const cpu = (ticks: number) => (requests ? Number(((ticks * 1000) / TICKS_PER_S / requests).toFixed(2)) : undefined);
  return {
    service_cpu_ms: cpu(ticksBetween(before.service, after.service)),
    postgres_cpu_ms: cpu(ticksBetween(before.postgres, after.postgres)),
  };
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Called per request to vary the body or path. */
  requests?: autocannon.Request[];
  connections?: number;
  durationS?: number;
}

/** Drives one endpoint with autocannon and reports requests/s, p50 and p99. */
export async function measure(name: string, opts: LoadOptions): Promise<Measurement> {
  const before = cpuSnapshot();
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    requests: opts.requests,
    connections: opts.connections ?? 50,
    duration: opts.durationS ?? Number(process.env.BENCH_DURATION_S ?? 10),
  });
  const after = cpuSnapshot();
  return {
    name,
    requests_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    ...cpuPerRequest(before, after, result.requests.total),
  };
}

export type { PacedRequest } from './paced.js';

/**
 * Open-loop load at an even pace (bench/paced.ts): one request every 1/rate s, latency counted
 * from the time each request was due (no coordinated omission). autocannon's rate option sends
 * each second's requests in a burst at its start, and fetch costs the load generator ~0.7 ms of
 * CPU per request, so neither is used here. Reports the achieved rate, p50 and p99.
 */
export async function measurePaced(
  name: string,
  opts: {
    url: string;
    rate: number;
    durationS?: number;
    clients?: number;
    // Function properties: they are handed on to pacedLoad and called without `this`.
    request: () => PacedRequest;
    onResponse?: (status: number, body: string) => void;
  },
): Promise<Measurement> {
  const before = cpuSnapshot();
  const generator = process.cpuUsage();
  const r = await pacedLoad({
    url: opts.url,
    rate: opts.rate,
    durationS: opts.durationS ?? Number(process.env.BENCH_DURATION_S ?? 10),
    clients: opts.clients,
    request: opts.request,
    onResponse: opts.onResponse,
  });
  const after = cpuSnapshot();
  // The generator shares the machine: its CPU is what the service and Postgres did not get.
  const used = process.cpuUsage(generator);
  process.stderr.write(
    `  ${name}: load generator ${((used.user + used.system) / 1000 / Math.max(1, r.latencies.length)).toFixed(3)} ms CPU per request\n`,
  );
  const latencies = [...r.latencies].sort((a, b) => a - b);
  const pct = (q: number) =>
    latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]) : 0;
  let non2xx = 0;
  for (const [status, n] of r.statuses) if (status < 200 || status >= 300) non2xx += n;
  return {
    name,
    requests_per_s: Math.round(latencies.length / r.elapsedS),
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
    errors: r.errors,
    non2xx,
    ...cpuPerRequest(before, after, latencies.length),
  };
}

async function waitListening(child: ChildProcess, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 90 s:\n${out}`)), 90_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening (\d+)|"port":(\d+)|started on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1] ?? m[2] ?? m[3]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => reject(new Error(`${what} exited with ${code}:\n${out}`)));
  });
}

export interface Running {
  url: string;
  stop(): Promise<void>;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

export async function startBareHapi(): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-hapi.ts'], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await waitListening(child, 'bare hapi');
  return { url: `http://127.0.0.1:${port}/`, stop: stopper(child) };
}

/**
 * The bus exchange of this bench run: every service one `npm run bench` starts shares it, and no other run's
 * leftover messages (durable queues of the default `patchwell` exchange) reach its consumers.
 */
export const BENCH_EXCHANGE = process.env.BUS_EXCHANGE ?? `pw_bench_${process.pid}_${Date.now().toString(36)}`;

/**
 * Starts Patchwell in its own process on a free port with a fresh data directory: all roles, or the
 * roles given (a process without the api role is waited for through its start-up log line).
 */
export async function startPatchwell(env: Record<string, string> = {}, roles = 'all'): Promise<Running> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  // BENCH_PROFILE_DIR=dir writes a V8 CPU profile of the service (open it in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  // The V8 flag `npm start` runs the service with (README, Process roles).
  // BENCH_SERVICE_FLAGS adds Node/V8 flags (e.g. --trace-gc); the service's output goes to service.log in its data directory.
  const extra = (process.env.BENCH_SERVICE_FLAGS ?? '').split(' ').filter(Boolean);
  const dataDir = mkdtempSync(join(tmpdir(), 'pw-bench-'));
  const child = spawn(
    process.execPath,
    [...profile, '--max-semi-space-size=64', ...extra, '--import', 'tsx', 'bin/patchwell.ts', '--role', roles],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        BUS_EXCHANGE: BENCH_EXCHANGE,
        LOG_LEVEL: roles.split(',').includes('api') || roles === 'all' ? 'warn' : 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // Always read: a service blocked on a full stdout pipe would be measured as a slow one.
  const log = createWriteStream(join(dataDir, 'service.log'));
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  if (extra.length) process.stderr.write(`  service output: ${join(dataDir, 'service.log')}\n`);
  const pid = child.pid!;
  servicePids.add(pid);
  child.once('exit', () => servicePids.delete(pid));
  if (!(roles === 'all' || roles.split(',').includes('api'))) {
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`patchwell (${roles}) did not start in 120 s`)), 120_000);
      child.stdout.on('data', (c: Buffer) => {
        seen = (seen + c.toString('utf8')).slice(-4000);
        if (seen.includes('patchwell started')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`patchwell (${roles}) exited during start`)));
    });
    return { url: '', stop: stopper(child) };
  }
  await new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + 120_000;
    const poll = async () => {
      if (child.exitCode !== null) return reject(new Error('patchwell exited during start'));
      try {
        const res = await fetch(`http://127.0.0.1:${port}/v1/health`);
        if (res.ok) return resolve();
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) return reject(new Error('patchwell did not start in 120 s'));
      setTimeout(poll, 250);
    };
    void poll();
  });
  return { url: `http://127.0.0.1:${port}`, stop: stopper(child) };
}

export function printTable(rows: Measurement[], ceiling?: Measurement): void {
  const header = [
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'non-2xx',
    'vs bare hapi',
    'cpu ms/req: service',
    'postgres',
  ];
  const lines = rows.map((r) => [
    r.name,
    String(r.requests_per_s),
    String(r.p50_ms),
    String(r.p99_ms),
    String(r.errors),
    String(r.non2xx),
    ceiling ? `${((r.requests_per_s / ceiling.requests_per_s) * 100).toFixed(1)} %` : '',
    r.service_cpu_ms === undefined ? '' : String(r.service_cpu_ms),
    r.postgres_cpu_ms === undefined ? '' : String(r.postgres_cpu_ms),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cols: string[]) => cols.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(fmt(header));
  for (const l of lines) console.log(fmt(l));
}
