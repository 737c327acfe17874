import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface Measurement {
  name: string;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
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
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    requests: opts.requests,
    connections: opts.connections ?? 50,
    duration: opts.durationS ?? Number(process.env.BENCH_DURATION_S ?? 10),
  });
  return {
    name,
    requests_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
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
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-hapi.ts'], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await waitListening(child, 'bare hapi');
  return { url: `http://127.0.0.1:${port}/`, stop: stopper(child) };
}

/** Starts Patchwell in its own process (all roles) on a free port with a fresh data directory. */
export async function startPatchwell(env: Record<string, string> = {}): Promise<Running> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  // BENCH_PROFILE_DIR=dir writes a V8 CPU profile of the service (open it in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'bin/patchwell.ts', '--role', 'all'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'pw-bench-')),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'vs bare hapi'];
  const lines = rows.map((r) => [r.name, String(r.requests_per_s), String(r.p50_ms), String(r.p99_ms), String(r.errors), String(r.non2xx), ceiling ? `${((r.requests_per_s / ceiling.requests_per_s) * 100).toFixed(1)} %` : '']);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cols: string[]) => cols.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(fmt(header));
  for (const l of lines) console.log(fmt(l));
}
