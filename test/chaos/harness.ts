/**
 * The fault suite's harness (issue 31): a cluster of real role processes on the real Postgres and
 * RabbitMQ, faults done to them, load while the fault happens, and the database to state invariants.
 * Test files are test/chaos/*.test.ts, run by `npm run chaos` (one file at a time; never by `npm test`).
 *
 * API (kept backwards compatible; helpers A and C write scenarios on it):
 *
 *   servicesSkip: string | false
 *     The skip reason when DATABASE_URL or AMQP_URL is not set: `t.test(name, { skip: servicesSkip }, …)`.
 *
 *   withServices<T>(exclusive: boolean, fn: () => Promise<T>): Promise<T>
 *     Runs fn under the flock on /tmp/pw-services.lock: exclusive for scenarios that stop, block or kill
 *     Postgres/RabbitMQ, shared otherwise. When an ancestor process already holds the lock (the run is
 *     wrapped in `flock -x /tmp/pw-services.lock npm run chaos`), fn runs at once; a shared outer lock
 *     with exclusive asked is an error (it could never be upgraded). Wrap the whole scenario, cluster
 *     start included, and make fn leave both services running (also on failure).
 *
 *   startChaosCluster(t, opts?): Promise<ChaosCluster>
 *     opts: { api = 1, workers = 1, schedulers = 0,
 *             config?: overrides merged into the processes' configuration (testConfig's shape),
 *             fixes?: options of the fixes plugin (default pollMs 200, leaseMs 3000, backoffMs [50, 100]),
 *             prepare?: (db, schema) => Promise<void>, run on the migrated schema before any process starts }
 *     Starts the processes on a schema and exchange of their own (test/helpers/db.ts testConfig; the
 *     whole configuration goes to them in CONFIG_FILE), log level info, agent-managed running the
 *     holding agent below, codehost-local. Stops everything and drops the schema in t.teardown.
 *     ChaosCluster:
 *       config: AppConfig          the processes' configuration (database.schema, bus.exchange…)
 *       db: Knex                   a direct connection to the schema, for invariants
 *       app: App                   an in-process app (api role, not listening, no consumers) on the same
 *                                  schema: its container (codehost-local, credit ledger) for setup only
 *       http: App                  an App whose server.inject goes over HTTP to the live api processes
 *                                  (round robin; a refused connection tries the next): pass it to
 *                                  call()/signUp()/receiveEmail() of the test helpers
 *       group: ProcessGroup        bin/cluster.ts's group (processes, live(role), urls())
 *       dir: string                a directory of the test (logs in cluster.log, the agent's files)
 *       procs(role?): ClusterProcess[]     the live processes (of a role)
 *       kill(proc, signal = 'SIGKILL')     → { code, signal }
 *       stop(proc, timeoutMs?)             SIGTERM, SIGKILL after timeoutMs → { code, signal, ms, killed }
 *       respawn(proc)                      a new process of the same role/index/port, once ready
 *       spawn(role)                        one more process of the role, once ready
 *       waitForLine(proc, re, timeoutMs?)  → the first output line of proc matching re
 *       tail(lines = 12): string           the last output lines of every process, cut at 400 characters (failure messages)
 *       holdNextFix(): void                the next fix job's agent blocks (until releaseHold) …
 *       heldJob(timeoutMs?): Promise<{ jobId, ticketId }>   … and this answers which job it is
 *       releaseHold(): void                lets the held agent (and any later one) go on
 *       killAgents(): number               kills agent commands left by a killed worker
 *       say(what): void                    t.comment with the seconds since the cluster began starting
 *       onTeardown(hook): void             runs hook first at teardown (startLoad stops its load there)
 *
 *   setupShop(cluster): Promise<Shop>
 *     Over HTTP: an owner with fix credits, a workspace with the fix loop (autonomy approve, test
 *     command, semver releases), the cart repository connected (index ready), an endpoint connector.
 *     Shop: { owner: SignedUp, workspace: Schema<'Workspace'>, repo: Schema<'Repository'>, connector: { id, token },
 *             inbound: string }
 *
 *   startLoad(cluster, shop, opts?): Load
 *     Sends until stopped, every `everyMs` (default 150): a batch of `eventsPerTick` (2) error events
 *     (POST /v1/ingest/{connector}, unique external_id); every `emailEvery` (3; 0 = none) ticks an inbound
 *     email (signed mime webhook, unique Message-ID; each is a ticket the workers diagnose), and every
 *     `bugReportEvery` ticks (0 = never) a bug report instead, which starts a fix loop.
 *     A request that fails without an answer or with 5xx is retried as a client would (same
 *     Message-ID / external_id) up to `retries` (6) times, 300 ms apart.
 *     Load.stop(): Promise<LoadReport> (also stops on teardown)
 *     LoadReport: { events: { sent, accepted, externalIds (answered 202), refused },
 *                   emails: { sent, messageIds (answered 200 processed, or duplicate on a retry), tickets, refused, outcomes (status + reason of the answers) },
 *                   bugReports: string[] (ticket ids), retried: number, lost: string[] (requests that
 *                   never got an answer), statuses: Record<string, number>, ms }
 *
 *   sendEmail(cluster, to, { subject, body, from?, messageId? }): Promise<Call<Answer<'POST', '/v1/webhooks/email/mime'>>>
 *                                                 one signed inbound email over HTTP
 *   countRows(db): Promise<Counts>
 *     Counts: { tickets, messages, events, jobs, pullRequests, releases, notices, outboxUnpublished, deadLetters }
 *   count(query): Promise<number>                 count(*) of a knex query
 *   waitFor(fn, what, timeoutMs?)                 test/helpers/wait.ts
 *   approveAndRelease(cluster, owner, ticketId, attempt: AttemptRow): Promise<Schema<'Ticket'>>
 *                                                 approves the fix's PR over HTTP and waits until the ticket is
 *                                                 customer_notified (answers the ticket)
 *   sh(cmd, args, timeoutMs?): string              execFileSync (rabbitmqctl, pg_ctlcluster…) for scenarios under withServices(true)
 *
 * test/chaos/load.ts: loadInvariants(t, cluster, shop, report) asserts what every scenario's load must leave:
 *   every request answered; every event answered 202 stored once; every email answered 200 in exactly one ticket
 *   message; no ticket without its first message or its tickets.created outbox row; the outbox drained; no dead letter.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import knexFactory from 'knex';
import type { Test } from 'tap';
import { ProcessGroup, startCluster, type ClusterProcess, type ClusterRole } from '../../bin/cluster.js';
export type { ClusterProcess, ClusterRole };
import { createApp, type App } from '../../core/kernel/app.js';
import { mergeConfig, type AppConfig } from '../../core/kernel/config.js';
import { builtinAdapters } from '../../adapters/index.js';
import { builtinPlugins } from '../../plugins/index.js';
import { dropTestSchema, testConfig } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { onPlan, signUp, type SignedUp } from '../helpers/accounts.js';
import { call, type Call } from '../helpers/call.js';
import type { Answer, Schema } from '../helpers/api-types.js';
import { deliverMime, inboundEmail } from '../helpers/mail.js';
import {
  MAIL_SECRET,
  connectRepository,
  createWorkspace,
  fixLoopAdapters,
  grantFixCredits,
  type AttemptRow,
  type CountRow,
} from '../../plugins/fixes/test/helpers.js';
import { BUG_REPORT, REPO_FILES } from '../../plugins/fixes/test/fixtures/cart.js';
import { killAgents } from '../../plugins/fixes/test/fixtures/chaos.js';

export { waitFor, call, type Call };

export const servicesSkip: string | false =
  process.env.DATABASE_URL && process.env.AMQP_URL
    ? false
    : 'DATABASE_URL and AMQP_URL are not set: the fault suite runs processes on the real Postgres and RabbitMQ';

const LOCK = '/tmp/pw-services.lock';

/** The mode of the services lock an ancestor of this process holds (flock(1) keeps it), or null. */
function heldByAncestor(): 'shared' | 'exclusive' | null {
  if (!existsSync(LOCK)) return null;
  const ino = statSync(LOCK).ino;
  const ancestors = new Set<number>();
  for (let pid = process.pid; pid > 1;) {
    ancestors.add(pid);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  // /proc/locks: "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
  for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[1] !== 'FLOCK' || !ancestors.has(Number(f[4]))) continue;
    if (Number(f[5]?.split(':')[2]) !== ino) continue;
    return f[3] === 'WRITE' ? 'exclusive' : 'shared';
  }
  return null;
}

export async function withServices<T>(exclusive: boolean, fn: () => Promise<T>): Promise<T> {
  const held = heldByAncestor();
  if (held === 'exclusive' || (held === 'shared' && !exclusive)) return fn();
  if (held === 'shared')
    throw new Error(`this scenario disturbs the services: run it under \`flock -x ${LOCK}\`, not -s`);
  const holder = spawn('flock', [exclusive ? '-x' : '-s', LOCK, 'sh', '-c', 'echo locked; read _'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.on('data', (c: Buffer) => c.toString().includes('locked') && resolve());
    holder.once('exit', (code) => reject(new Error(`flock ${LOCK} ended (${code})`)));
  });
  try {
    return await fn();
  } finally {
    holder.stdin.end();
  }
}

export interface Counts {
  tickets: number;
  messages: number;
  events: number;
  jobs: number;
  pullRequests: number;
  releases: number;
  notices: number;
  outboxUnpublished: number;
  deadLetters: number;
}

export const count = async (q: Knex.QueryBuilder): Promise<number> =>
  Number(((await q.clone().clearSelect().count('* as n').first()) as CountRow | undefined)?.n ?? 0);

export async function countRows(db: Knex): Promise<Counts> {
  const [tickets, messages, events, jobs, pullRequests, releases, notices, outboxUnpublished, deadLetters] =
    await Promise.all([
      count(db('tickets')),
      count(db('ticket_messages')),
      count(db('error_events')),
      count(db('fix_jobs')),
      count(db('codehost_local_items').where({ kind: 'pull_request' })),
      count(db('fix_releases')),
      count(db('mail_messages').where('template', 'like', 'fixes.release_notice%')),
      count(db('outbox').whereNull('published_at')),
      count(db('dead_letters')),
    ]);
  return { tickets, messages, events, jobs, pullRequests, releases, notices, outboxUnpublished, deadLetters };
}

export interface ChaosClusterOptions {
  api?: number;
  workers?: number;
  schedulers?: number;
  config?: Record<string, unknown>;
  fixes?: Record<string, unknown>;
  /** Runs on the migrated schema before any process starts (test instrumentation: triggers, rows). */
  prepare?: (db: Knex, schema: string) => Promise<void>;
}

export interface ChaosCluster {
  config: AppConfig;
  db: Knex;
  app: App;
  http: App;
  group: ProcessGroup;
  dir: string;
  procs(role?: ClusterRole): ClusterProcess[];
  kill(proc: ClusterProcess, signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(
    proc: ClusterProcess,
    timeoutMs?: number,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number; killed: boolean }>;
  respawn(proc: ClusterProcess): Promise<ClusterProcess>;
  spawn(role: ClusterRole): Promise<ClusterProcess>;
  waitForLine(proc: ClusterProcess, re: RegExp, timeoutMs?: number): Promise<string>;
  tail(lines?: number): string;
  holdNextFix(): void;
  heldJob(timeoutMs?: number): Promise<{ jobId: string; ticketId: string }>;
  releaseHold(): void;
  killAgents(): number;
  /** t.comment with the seconds since the cluster began starting: `[+12.3 s] what happened`. */
  say(what: string): void;
  /** Runs `hook` first when the cluster is torn down (before the processes stop). */
  onTeardown(hook: () => Promise<unknown>): void;
}

/**
 * The agent-managed command of the cluster. While `<dir>/release` is missing (holdNextFix), the first
 * agent to start (mkdir is atomic across processes) writes its job and ticket ids and waits until the
 * file is back (releaseHold); every other run fixes cart.js at once. The command line names
 * `<dir>/release`, which is how killAgents (plugins/fixes/test/fixtures/chaos.ts) finds it.
 */
function holdingAgent(dir: string): string {
  const go = join(dir, 'release');
  const held = join(dir, 'held');
  return [
    'echo "agent attempt started for $PATCHWELL_JOB_ID"',
    `if [ ! -f '${go}' ] && mkdir '${held}' 2>/dev/null; then echo "$PATCHWELL_JOB_ID $PATCHWELL_TICKET_ID" > '${held}/job';` +
      ` while [ ! -f '${go}' ]; do [ -d '${dir}' ] || exit 3; sleep 0.1; done; fi`,
    'echo "agent fixing cart.js"',
    "sed -i 's/sum + i.price,/sum + i.price * i.qty,/' cart.js",
  ].join('; ');
}

let nextPort = 0;
/**
 * A base port for a cluster's `count` api processes, each port free now. Ports come from 20000-32499, below
 * Linux's ephemeral range (32768+): a port there can be taken by any outgoing connection between this check and
 * the process's listen (CI saw EADDRINUSE on 34460). A block of 50 per test process, in steps of 10.
 */
async function basePort(count: number): Promise<number> {
  nextPort ||= 20_000 + (process.pid % 250) * 50;
  for (let tries = 0; tries < 250; tries++) {
    const p = nextPort;
    nextPort = nextPort + 10 > 32_490 ? 20_000 : nextPort + 10;
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portIsFree(p + i)));
    if (free.every(Boolean)) return p;
  }
  throw new Error('no free block of ports in 20000-32499');
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

export async function startChaosCluster(t: Test, opts: ChaosClusterOptions = {}): Promise<ChaosCluster> {
  const began = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'patchwell-chaos-'));
  chmodSync(dir, 0o777);
  writeFileSync(join(dir, 'release'), 'go\n', { mode: 0o644 }); // agents run through until holdNextFix
  const fixes = { pollMs: 200, leaseMs: 3000, backoffMs: [50, 100], ...(opts.fixes ?? {}) };
  const config = testConfig(
    mergeConfig<Record<string, unknown>>(
      {
        adapters: fixLoopAdapters({
          command: holdingAgent(dir),
          workRoot: join(dir, 'checkouts'),
          sandbox: { mode: 'none' },
        }),
        // A mail whose sender was killed stays leased for sendLeaseMs: the bus's retries must outlast that
        // lease (attempts at 0, 0.25, 1.25, 3.25, 5.25 s), or the message is dead-lettered (see the report of issue 31).
        plugins: { fixes: { enabled: true, options: fixes }, mail: { options: { sendLeaseMs: 2000 } } },
        bus: { backoffMs: [250, 1000, 2000] },
      },
      opts.config ?? {},
    ),
  );
  // The processes: log at info (their output is the log file and failure messages), and the topology
  // stays when one of them stops (the others use it); the in-process app below deletes it at the end.
  const processConfig = mergeConfig(config, {
    log: { level: 'info' },
    bus: { deleteQueuesOnStop: false },
  });
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(processConfig, null, 2));
  const logFile = join(dir, 'cluster.log');

  const db = knexFactory({
    client: 'pg',
    connection: config.database.url!,
    searchPath: [config.database.schema!],
    pool: { min: 0, max: 4 },
  });
  // Migrates the schema (once, before any process starts) and serves the setup helpers.
  const app = await createApp(config, { roles: ['api'], plugins: builtinPlugins, adapters: builtinAdapters });
  await app.start({ listen: false, scheduler: false });
  t.comment(`schema ${config.database.schema} migrated in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  if (opts.prepare) await opts.prepare(db, config.database.schema!);

  /** Run first at teardown (loads still running when a test failed). */
  const hooks: (() => Promise<unknown>)[] = [];
  const env: NodeJS.ProcessEnv = { ...process.env, CONFIG_FILE: configFile };
  delete env.LOG_LEVEL;
  delete env.PORT;
  let group: ProcessGroup | null = null;
  let stopped = false;
  const teardown = async () => {
    if (stopped) return;
    stopped = true;
    for (const hook of hooks) await hook().catch(() => undefined);
    killAgents(dir);
    await group?.stopAll(15_000);
    killAgents(dir);
    await app.stop().catch(() => undefined);
    await db.destroy();
    await dropTestSchema(config).catch(() => undefined);
    rmSync(config.dataDir, { recursive: true, force: true });
    if (!process.env.CHAOS_KEEP) rmSync(dir, { recursive: true, force: true });
  };
  t.teardown(teardown);
  try {
    group = await startCluster({
      api: opts.api ?? 1,
      workers: opts.workers ?? 1,
      schedulers: opts.schedulers ?? 0,
      env,
      basePort: await basePort(opts.api ?? 1),
      migrate: false, // done by the in-process app above
      onLine: (p, line) => appendFileSync(logFile, `${p.name} ${p.pid} | ${line}\n`),
    });
  } catch (err) {
    await teardown();
    throw err;
  }
  const g = group;
  t.comment(`cluster started in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  t.comment(
    `cluster: ${g
      .live()
      .map((p) => `${p.name} pid ${p.pid}${p.port ? ` port ${p.port}` : ''}`)
      .join(', ')} (schema ${config.database.schema})`,
  );

  const cluster: ChaosCluster = {
    config,
    db,
    app,
    http: undefined as unknown as App,
    group: g,
    dir,
    procs: (role) => g.live(role),
    kill: (proc, signal = 'SIGKILL') => g.kill(proc, signal),
    stop: (proc, timeoutMs) => g.stop(proc, timeoutMs),
    respawn: (proc) => g.respawn(proc),
    spawn: (role) => g.spawn(role),
    async waitForLine(proc, re, timeoutMs = 30_000) {
      return waitFor(
        () => Promise.resolve(proc.lines.find((l) => re.test(l))),
        `${proc.name}: a line matching ${re}`,
        timeoutMs,
      );
    },
    tail(lines = 12) {
      const cut = (l: string) => (l.length > 400 ? `${l.slice(0, 400)}…` : l);
      return g.processes
        .map((p) => `--- ${p.name} (pid ${p.pid})\n${p.lines.slice(-lines).map(cut).join('\n')}`)
        .join('\n');
    },
    holdNextFix() {
      rmSync(join(dir, 'held'), { recursive: true, force: true });
      rmSync(join(dir, 'release'), { force: true });
    },
    async heldJob(timeoutMs = 60_000) {
      const raw = await waitFor(
        () =>
          Promise.resolve(
            existsSync(join(dir, 'held', 'job')) ? readFileSync(join(dir, 'held', 'job'), 'utf8').trim() : null,
          ),
        'a fix job to be held by its agent',
        timeoutMs,
      );
      const [jobId, ticketId] = raw.split(' ') as [string, string];
      return { jobId, ticketId };
    },
    releaseHold: () => writeFileSync(join(dir, 'release'), 'go\n', { mode: 0o644 }),
    killAgents: () => killAgents(dir),
    say: (what) => t.comment(`[+${((Date.now() - began) / 1000).toFixed(1)} s] ${what}`),
    onTeardown: (hook) => void hooks.push(hook),
  };
  cluster.http = httpApp(cluster);
  return cluster;
}

/** Whether a failed fetch never reached a server (nothing was sent: safe to try another process). */
const refused = (err: unknown): boolean =>
  /ECONNREFUSED/.test(String((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message));

/**
 * An App for the test helpers whose server.inject goes over HTTP to the cluster's live api processes,
 * round robin; db and container are the in-process app's.
 */
function httpApp(cluster: ChaosCluster): App {
  let turn = 0;
  const inject = async (opts: {
    method: string;
    url: string;
    payload?: unknown;
    headers?: Record<string, string>;
  }): Promise<{ statusCode: number; payload: string; rawPayload: Buffer; headers: Record<string, unknown> }> => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    let body: string | Blob | undefined;
    if (Buffer.isBuffer(opts.payload)) body = new Blob([new Uint8Array(opts.payload)]);
    else if (typeof opts.payload === 'string') body = opts.payload;
    else if (opts.payload !== undefined) {
      body = JSON.stringify(opts.payload);
      headers['content-type'] ??= 'application/json';
    }
    let lastErr: unknown = null;
    for (let i = 0; i < 6; i++) {
      const urls = cluster.group.urls();
      if (!urls.length) throw new Error('no api process is running');
      const base = urls[turn++ % urls.length];
      try {
        const res = await fetch(base + opts.url, {
          method: opts.method,
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(30_000),
        });
        const raw = Buffer.from(await res.arrayBuffer());
        const out: Record<string, unknown> = {};
        res.headers.forEach((v, k) => (out[k] = v));
        const cookies = res.headers.getSetCookie();
        if (cookies.length) out['set-cookie'] = cookies;
        return { statusCode: res.status, payload: raw.toString('utf8'), rawPayload: raw, headers: out };
      } catch (err) {
        if (!refused(err)) throw err;
        lastErr = err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw lastErr as Error;
  };
  return {
    server: { inject },
    db: cluster.app.db,
    container: cluster.app.container,
    config: cluster.config,
  } as unknown as App;
}

export interface Shop {
  owner: SignedUp;
  workspace: Schema<'Workspace'>;
  repo: Schema<'Repository'>;
  connector: { id: string; token: string };
  inbound: string;
}

export async function setupShop(cluster: ChaosCluster): Promise<Shop> {
  const http = cluster.http;
  const owner = await signUp(http, { orgName: `Acme ${randomBytes(3).toString('hex')}` });
  // A paid plan: the load's tickets and emails must not meet the limits of plan `none`.
  await onPlan(cluster.app, owner.organization.id, 'growth');
  await grantFixCredits(cluster.app, owner.organization.id, 200);
  const workspace = await createWorkspace(http, owner, 'Shop', {
    autonomy: 'approve',
    test_command: 'node test.js',
    confidence_threshold: 0.5,
    merge_method: 'squash',
    release_strategy: 'semver',
    github_release_enabled: true,
  });
  // connectRepository creates the repository on the in-process code host (same tables), then goes over HTTP.
  const repo = await connectRepository(http, owner, workspace.id, 'shop', REPO_FILES);
  const conn = await call(http, owner, 'POST', '/v1/connectors', {
    workspace_id: workspace.id,
    kind: 'endpoint',
    name: 'Backend',
  });
  if (conn.status !== 201) throw new Error(`connector: ${conn.status} ${conn.payload}`);
  return {
    owner,
    workspace,
    repo,
    connector: { id: conn.body.connector.id, token: conn.body.token! },
    inbound: workspace.inbound_address!,
  };
}

/** One signed inbound email (POST /v1/webhooks/email/mime) over HTTP; `messageId` without angle brackets. */
export async function sendEmail(
  cluster: ChaosCluster,
  to: string,
  m: { subject: string; body: string; from?: string; messageId?: string },
): Promise<Call<Answer<'POST', '/v1/webhooks/email/mime'>>> {
  const raw = inboundEmail({ to, ...m, id: m.messageId === undefined ? undefined : `<${m.messageId}>` });
  return deliverMime(cluster.http, raw, to, MAIL_SECRET);
}

export interface LoadOptions {
  everyMs?: number;
  eventsPerTick?: number;
  /** An inbound email every this many ticks (0 = none). */
  emailEvery?: number;
  bugReportEvery?: number;
  retries?: number;
}

export interface LoadReport {
  /** externalIds: of the batches answered 202 (stored); refused: events of batches answered otherwise. */
  events: { sent: number; accepted: number; externalIds: string[]; refused: number };
  /** messageIds: of the emails answered 200 processed (or duplicate, on a retry); refused: the others. */
  emails: { sent: number; messageIds: string[]; tickets: string[]; refused: number; outcomes: Record<string, number> };
  bugReports: string[];
  retried: number;
  lost: string[];
  statuses: Record<string, number>;
  ms: number;
}

export interface Load {
  report: LoadReport;
  stop(): Promise<LoadReport>;
}

export function startLoad(cluster: ChaosCluster, shop: Shop, opts: LoadOptions = {}): Load {
  const everyMs = opts.everyMs ?? 150;
  const perTick = opts.eventsPerTick ?? 2;
  const retries = opts.retries ?? 6;
  const t0 = Date.now();
  const report: LoadReport = {
    events: { sent: 0, accepted: 0, externalIds: [], refused: 0 },
    emails: { sent: 0, messageIds: [], tickets: [], refused: 0, outcomes: {} },
    bugReports: [],
    retried: 0,
    lost: [],
    statuses: {},
    ms: 0,
  };
  let running = true;
  const inflight = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };
  /** Sends until an answer below 500 (and not 429) comes, as a client retrying the same request would. */
  const withRetry = async <B>(what: string, send: () => Promise<Call<B>>): Promise<Call<B> | null> => {
    for (let i = 0; i <= retries; i++) {
      if (i) report.retried++;
      try {
        const res = await send();
        report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1;
        if (res.status < 500 && res.status !== 429) return res;
        if (res.status === 429) await new Promise((r) => setTimeout(r, 1000 * Number(res.headers['retry-after'] ?? 1)));
      } catch (err) {
        const key = `network: ${String((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name)}`;
        report.statuses[key] = (report.statuses[key] ?? 0) + 1;
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    report.lost.push(what);
    return null;
  };
  let tick = 0;
  const once = () => {
    tick++;
    const batch = Array.from({ length: perTick }, () => ({
      message: `TypeError: total is undefined (${tick % 5})`,
      external_id: `ev-${randomBytes(6).toString('hex')}`,
    }));
    report.events.sent += batch.length;
    track(
      withRetry(`events ${batch[0].external_id}…`, () =>
        call(cluster.http, null, 'POST', `/v1/ingest/${shop.connector.id}`, batch, {
          authorization: `Bearer ${shop.connector.token}`,
        }),
      ).then((res) => {
        if (res?.status === 202) {
          report.events.accepted += Number(res.body.accepted ?? 0);
          report.events.externalIds.push(...batch.map((e) => e.external_id));
        } else report.events.refused += batch.length;
      }),
    );
    const emailEvery = opts.emailEvery ?? 3;
    if (emailEvery > 0 && tick % emailEvery === 0) {
      const bug = opts.bugReportEvery ? tick % opts.bugReportEvery === 0 : false;
      const messageId = `load-${randomBytes(6).toString('hex')}@mail.example.com`;
      report.emails.sent++;
      const mail = bug
        ? { ...BUG_REPORT, subject: `${BUG_REPORT.subject} (${tick})`, from: `buyer${tick}@example.com` }
        : {
            subject: `Where is my order ${tick}?`,
            body: `I ordered a blue kettle (order ${tick}) last week and it has not arrived yet. Can you check?`,
            from: `Shopper ${tick} <shopper${tick}@example.com>`,
          };
      track(
        withRetry(`email <${messageId}>`, () => sendEmail(cluster, shop.inbound, { ...mail, messageId })).then(
          (res) => {
            const r0 = res?.body.results?.[0];
            const outcome = r0 ? [r0.status, r0.reason].filter(Boolean).join(' ') : 'none';
            report.emails.outcomes[outcome] = (report.emails.outcomes[outcome] ?? 0) + 1;
            // A retry of an email that was taken before its answer was lost is a duplicate: still one ticket message.
            if (res?.status === 200 && (outcome === 'processed' || outcome === 'ignored duplicate'))
              report.emails.messageIds.push(messageId);
            else report.emails.refused++;
            const id = r0?.ticket_id;
            if (id) {
              report.emails.tickets.push(id);
              if (bug) report.bugReports.push(id);
            }
          },
        ),
      );
    }
  };
  const loop = (async () => {
    while (running) {
      once();
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  let done: Promise<LoadReport> | null = null;
  const stop = () =>
    (done ??= (async () => {
      running = false;
      await loop;
      while (inflight.size) await Promise.allSettled([...inflight]);
      report.ms = Date.now() - t0;
      return report;
    })());
  cluster.onTeardown(stop);
  return { report, stop };
}

/** Approves the ticket's verified fix attempt over HTTP and waits until the release's notice went out. */
export async function approveAndRelease(
  cluster: ChaosCluster,
  owner: SignedUp,
  ticketId: string,
  attempt: AttemptRow,
  timeoutMs = 40_000,
): Promise<Schema<'Ticket'>> {
  const ok = await call(cluster.http, owner, 'POST', `/v1/tickets/${ticketId}/approve`, {
    fix_attempt_id: attempt.id,
    approved_sha: attempt.head_sha!,
    public_summary: 'The cart total now counts quantities.',
  });
  if (ok.status !== 200) throw new Error(`approve: ${ok.status} ${ok.payload}`);
  return waitFor(
    async () => {
      const tk = (await call(cluster.http, owner, 'GET', `/v1/tickets/${ticketId}`)).body;
      return tk.state === 'customer_notified' ? tk : null;
    },
    `ticket ${ticketId}: the release and its notice`,
    timeoutMs,
  );
}

/** Used by scenarios that keep their own files next to the cluster's. */
export function scenarioDir(cluster: ChaosCluster, name: string): string {
  const d = join(cluster.dir, name);
  mkdirSync(d, { recursive: true });
  return d;
}

/** rabbitmqctl / pg_ctlcluster and similar, for scenarios that disturb the services (under withServices(true)). */
export function sh(cmd: string, args: string[], timeoutMs = 60_000): string {
  return execFileSync(cmd, args, { timeout: timeoutMs, encoding: 'utf8' });
}
