#!/usr/bin/env node
/**
 * Entry point: `patchwell --role api|worker|scheduler|all` (comma-separated roles allowed).
 * `npm start` runs every role in one process on the embedded defaults.
 */
import { ConfigError, loadConfig } from '../core/kernel/config.js';
import { ALL_ROLES, createApp } from '../core/kernel/app.js';
import type { Role } from '../core/kernel/plugin.js';

function parseRoles(argv: string[]): Role[] {
  const i = argv.findIndex((a) => a === '--role' || a.startsWith('--role='));
  const raw = i < 0 ? 'all' : argv[i]!.includes('=') ? argv[i]!.split('=')[1]! : argv[i + 1] ?? '';
  const roles = raw.split(',').map((s) => s.trim());
  if (roles.includes('all')) return [...ALL_ROLES];
  for (const r of roles) {
    if (!(ALL_ROLES as readonly string[]).includes(r)) throw new ConfigError(`--role must be api, worker, scheduler or all (got "${raw}")`);
  }
  return roles as Role[];
}

async function main(): Promise<void> {
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    const config = loadConfig();
    app = await createApp(config, { roles: parseRoles(process.argv.slice(2)) });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`patchwell: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  await app.start();
  const where = app.roles.has('api') ? ` on ${app.server.info.uri} (public ${app.config.server.publicBaseUrl})` : '';
  app.log.info({ roles: [...app.roles], plugins: app.plugins, database: app.dbInfo.engine, bus: app.bus.kind }, `patchwell started${where}`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'patchwell stopping');
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

main().catch((err) => {
  process.stderr.write(`patchwell: failed to start: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
