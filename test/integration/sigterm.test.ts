// SIGTERM ends a process within server.shutdownTimeoutMs plus the hard deadline's margin, also when a
// dependency hangs: Postgres stops answering (a proxy that holds every byte), RabbitMQ stops answering,
// or the embedded database's data directory is deleted under the running process.
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTestSchema, testConfig } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

const SHUTDOWN_MS = 1500;
/** bin/patchwell.ts: SHUTDOWN_MARGIN_MS. */
const MARGIN_MS = 5000;
/** Time for the process to end once it decided to (exit handlers, a slow machine). */
const SLACK_MS = 1500;

/**
 * A TCP proxy that can freeze: connections stay open but no byte goes through either way, as with
 * a server that is stopped (SIGSTOP) or a network that drops packets.
 */
class FreezingProxy {
  private server: Server | null = null;
  private readonly pairs: [Socket, Socket][] = [];
  frozen = false;
  port = 0;

  constructor(
    private readonly host: string,
    private readonly upstreamPort: number,
  ) {}

  async listen(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.upstreamPort, this.host);
      for (const s of [client, upstream]) s.on('error', () => {});
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('data', (chunk) => void (this.frozen || upstream.write(chunk)));
      upstream.on('data', (chunk) => void (this.frozen || client.write(chunk)));
      this.pairs.push([client, upstream]);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  url(upstreamUrl: string): string {
    const u = new URL(upstreamUrl);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  close(): void {
    for (const pair of this.pairs) for (const s of pair) s.destroy();
    this.server?.close();
  }
}

function proxyFor(t: Test, url: string): Promise<FreezingProxy> {
  const u = new URL(url);
  const proxy = new FreezingProxy(u.hostname, Number(u.port || (u.protocol.startsWith('amqp') ? 5672 : 5432)));
  t.teardown(() => proxy.close());
  return proxy.listen().then(() => proxy);
}

interface Running {
  child: ChildProcess;
  log: () => string;
  /** SIGTERM, then how long until the process ended and with which status. */
  terminate(): Promise<{ ms: number; code: number | null }>;
}

async function startProcess(t: Test, role: string, env: Record<string, string>, config: object): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'pw-sigterm-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(config));
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/patchwell.ts', '--role', role], {
    env: { ...process.env, CONFIG_FILE: configFile, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  await waitFor(
    () => Promise.resolve(out.includes('"msg":"patchwell started') || child.exitCode !== null),
    `the ${role} process to start`,
    60_000,
  );
  if (child.exitCode !== null) throw new Error(`the ${role} process ended at start:\n${out.slice(-3000)}`);
  return {
    child,
    log: () => out,
    async terminate() {
      const began = Date.now();
      child.kill('SIGTERM');
      const code = await exited;
      return { ms: Date.now() - began, code };
    },
  };
}

/** What the processes get besides their database and broker: testConfig's, with a short drain. */
function processConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const c = testConfig(overrides);
  return {
    server: { shutdownTimeoutMs: SHUTDOWN_MS },
    database: { schema: c.database.schema },
    bus: { exchange: c.bus.exchange, deleteQueuesOnStop: true },
    security: c.security,
    plugins: { fixes: { enabled: false }, runner: { enabled: false }, mcp: { enabled: false } },
    scheduler: { electionMs: 500 },
  };
}

/** A data directory for one process, removed when the test ends. */
function dataDirFor(t: Test): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'pw-sigterm-data-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

const limit = SHUTDOWN_MS + MARGIN_MS + SLACK_MS;
// The scenarios are separate processes: start them side by side (most of the time is boot).
t.jobs = 3;

/** The stop steps that failed or hung, as the process logged them. */
function hungSteps(log: string): string[] {
  return [
    ...log.matchAll(
      /"step":"([^"]+)"[^\n]*"msg":"(?:stop: [^"]* failed; going on|patchwell: stop still running[^"]*)"/g,
    ),
  ].map((m) => m[1]);
}

void t.test('the embedded database: SIGTERM after the data directory was deleted', async (t) => {
  const dataDir = dataDirFor(t);
  const proc = await startProcess(t, 'all', { DATABASE_URL: '', AMQP_URL: '', DATA_DIR: dataDir }, processConfig());
  rmSync(dataDir, { recursive: true, force: true });
  const { ms, code } = await proc.terminate();
  t.ok(ms <= limit, `ended ${ms} ms after SIGTERM (limit ${limit} ms), status ${code}`);
  t.match(proc.log(), /patchwell stopping/);
  t.comment(`steps that failed or hung: ${hungSteps(proc.log()).join(', ') || 'none'}`);
  if (ms > limit) t.comment(proc.log().slice(-3000));
});

const DATABASE_URL = process.env.DATABASE_URL;
const AMQP_URL = process.env.AMQP_URL;

/**
 * Starts processes of `role` on the real services, one of them (`frozen`) reached through a FreezingProxy,
 * freezes it, sends SIGTERM: the process, how long it took to end and with which status.
 */
async function stopWithFrozen(t: Test, role: string, frozen: 'DATABASE_URL' | 'AMQP_URL') {
  const config = processConfig();
  t.teardown(() => dropTestSchema(testConfig({ database: config.database })));
  const upstream = process.env[frozen]!;
  const proxy = await proxyFor(t, upstream);
  const env = { DATABASE_URL: DATABASE_URL!, AMQP_URL: AMQP_URL ?? '', DATA_DIR: dataDirFor(t) };
  const proc = await startProcess(t, role, { ...env, [frozen]: proxy.url(upstream) }, config);
  proxy.frozen = true;
  return { proc, ...(await proc.terminate()) };
}

void t.test(
  'a worker whose Postgres stops answering ends within its limit and says which step hung',
  { skip: DATABASE_URL ? false : 'needs DATABASE_URL' },
  async (t) => {
    const { proc, ms, code } = await stopWithFrozen(t, 'worker,scheduler', 'DATABASE_URL');
    t.ok(ms <= limit, `ended ${ms} ms after SIGTERM (limit ${limit} ms), status ${code}`);
    t.not(code, 0, 'a stop that could not close the database is not a clean exit');
    t.match(proc.log(), /"step":"[^"]+".*(failed; going on|hung in)/, 'the log names the step that hung');
    t.comment(`steps that failed or hung: ${hungSteps(proc.log()).join(', ') || 'none'}`);
    if (ms > limit) t.comment(proc.log().slice(-3000));
  },
);

void t.test(
  'an api and worker whose RabbitMQ stops answering ends within its limit',
  { skip: DATABASE_URL && AMQP_URL ? false : 'needs DATABASE_URL and AMQP_URL' },
  async (t) => {
    const { proc, ms, code } = await stopWithFrozen(t, 'api,worker', 'AMQP_URL');
    t.ok(ms <= limit, `ended ${ms} ms after SIGTERM (limit ${limit} ms), status ${code}`);
    t.comment(`steps that failed or hung: ${hungSteps(proc.log()).join(', ') || 'none'}`);
    if (ms > limit) t.comment(proc.log().slice(-3000));
  },
);
