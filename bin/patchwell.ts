#!/usr/bin/env node
/**
 * Entry point: `patchwell --role api|worker|scheduler|all` (comma-separated roles allowed).
 * `npm start` runs every role in one process on the embedded defaults. With Postgres,
 * `server.apiProcesses` (API_PROCESSES) > 1 runs the api role as that many processes on one port.
 * The composition root: it hands the shipped plugin and adapter registries to createApp, so core/
 * imports neither (test/unit/import-graph.test.ts checks it).
 */
import cluster from 'node:cluster';
import { ConfigError, loadConfig, type AppConfig } from '../core/kernel/config.js';
import type { Logger } from 'pino';
import { ALL_ROLES, createApp, type StopProgress } from '../core/kernel/app.js';
import { builtinAdapters } from '../adapters/index.js';
import { builtinPlugins } from '../plugins/index.js';
import { createLogger } from '../core/kernel/logger.js';
import { createDatabase } from '../core/data/db.js';
import { migrateLatest } from '../core/data/migrate.js';
import type { Role } from '../core/kernel/plugin.js';

function parseRoles(argv: string[]): Role[] {
  const i = argv.findIndex((a) => a === '--role' || a.startsWith('--role='));
  const raw = i < 0 ? 'all' : argv[i].includes('=') ? argv[i].split('=')[1] : (argv[i + 1] ?? '');
  const roles = raw.split(',').map((s) => s.trim());
  if (roles.includes('all')) return [...ALL_ROLES];
  for (const r of roles) {
    if (!(ALL_ROLES as readonly string[]).includes(r))
      throw new ConfigError(`--role must be api, worker, scheduler or all (got "${raw}")`);
  }
  return roles as Role[];
}

/** Runs the given roles in this process until SIGTERM/SIGINT. */
async function runApp(config: AppConfig, roles: Role[]): Promise<void> {
  const app = await createApp(config, { roles, plugins: builtinPlugins, adapters: builtinAdapters });
  await app.start();
  const where = app.roles.has('api') ? ` on ${app.server.info.uri} (public ${app.config.server.publicBaseUrl})` : '';
  const worker = cluster.isWorker ? ` (api process ${cluster.worker!.id})` : '';
  const seconds = process.uptime().toFixed(1);
  app.log.info(
    { roles: [...app.roles], plugins: app.plugins, database: app.dbInfo.engine, bus: app.bus.kind, seconds },
    `patchwell started${where}${worker}`,
  );
  if (app.roles.has('api') && !cluster.isWorker) {
    const base = app.config.server.publicBaseUrl.replace(/\/$/, '');
    const consoleOn = app.plugins.includes('console');
    app.log.info(
      { console: consoleOn ? `${base}/` : null, docs: `${base}/docs` },
      `ready: ${consoleOn ? `the console at ${base}/, ` : ''}the API docs at ${base}/docs`,
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'patchwell stopping');
    hardDeadline(app.config, app.log, () => app.stopProgress);
    try {
      await app.stop();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'patchwell: unclean stop');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Beyond the drain timeout app.stop() may use this much for its other (bounded) steps. */
const SHUTDOWN_MARGIN_MS = 5000;

/**
 * The last resort of a stop: once server.shutdownTimeoutMs plus a margin has passed, log the step
 * that hangs and exit 1 (an orchestrator would SIGKILL later, with nothing in the log).
 */
function hardDeadline(
  config: AppConfig,
  log: Pick<Logger, 'fatal'>,
  progress: () => StopProgress | null,
  extra = 0,
): void {
  const ms = config.server.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS + extra;
  setTimeout(() => {
    const state = progress();
    const step = state?.step ?? 'stopping the api processes';
    log.fatal(
      { step, done: state?.done ?? [], ms },
      `patchwell: stop still running after ${ms} ms, hung in: ${step}; exiting`,
    );
    process.stderr.write(`patchwell: stop hung in "${step}" after ${ms} ms; exiting with status 1\n`);
    process.exit(1);
  }, ms).unref();
}

/**
 * `server.apiProcesses` > 1: this process applies the migrations, runs the other roles itself and
 * forks that many api processes sharing the port (node:cluster hands out connections). A process
 * that dies is replaced (after 1 s, so a crash loop does not spin); SIGTERM stops them all.
 */
async function runPrimary(config: AppConfig, roles: Role[], processes: number): Promise<void> {
  const log = createLogger(config.log.level);
  const others = roles.filter((r) => r !== 'api');
  let app: Awaited<ReturnType<typeof createApp>> | null = null;
  if (others.length) {
    app = await createApp(config, { roles: others, logger: log, plugins: builtinPlugins, adapters: builtinAdapters });
    await app.start();
  } else {
    const { db } = createDatabase(config);
    await migrateLatest(db);
    await db.destroy();
  }
  let stopping = false;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    log.error({ pid: worker.process.pid, code, signal }, 'patchwell: an api process ended; starting another');
    setTimeout(() => !stopping && cluster.fork(), 1000).unref();
  });
  for (let i = 0; i < processes; i++) cluster.fork();
  log.info(
    { roles, apiProcesses: processes, others },
    `patchwell started: ${processes} api processes on port ${config.server.port}`,
  );

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'patchwell stopping');
    // The api processes get their own deadline first (SIGKILL below), then this process its stop.
    hardDeadline(config, log, () => app?.stopProgress ?? null, config.server.shutdownTimeoutMs + 5000);
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is NonNullable<typeof w> => !!w);
    const exited = workers.map(
      (w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))),
    );
    for (const w of workers) w.process.kill('SIGTERM');
    const timer = setTimeout(
      () => workers.forEach((w) => w.process.kill('SIGKILL')),
      config.server.shutdownTimeoutMs + 5000,
    );
    await Promise.all(exited);
    clearTimeout(timer);
    try {
      await app?.stop();
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'patchwell: unclean stop');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

async function main(): Promise<void> {
  let config: AppConfig;
  let roles: Role[];
  try {
    config = loadConfig();
    roles = parseRoles(process.argv.slice(2));
    if (roles.includes('api') && config.server.apiProcesses > 1 && !config.database.url) {
      throw new ConfigError(
        'config key server.apiProcesses (API_PROCESSES) above 1 needs Postgres (DATABASE_URL): the embedded database belongs to one process',
      );
    }
  } catch (err) {
    exitOnConfigError(err);
  }
  if (cluster.isWorker) return runApp(config, ['api']);
  const processes = roles.includes('api') ? config.server.apiProcesses : 1;
  if (processes > 1) return runPrimary(config, roles, processes);
  try {
    await runApp(config, roles);
  } catch (err) {
    exitOnConfigError(err);
  }
}

/** A configuration error ends the process with its message and EX_CONFIG (78); anything else is rethrown. */
function exitOnConfigError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`patchwell: ${err.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  throw err;
}

main().catch((err) => {
  process.stderr.write(`patchwell: failed to start: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
