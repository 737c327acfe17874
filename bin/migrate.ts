#!/usr/bin/env node
/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded PGlite) and exits. */
import { ConfigError, loadConfig } from '../core/kernel/config.js';
import { createDatabase } from '../core/data/db.js';
import { migrateLatest } from '../core/data/migrate.js';

try {
  const config = loadConfig();
  const { db, info } = createDatabase(config);
  const applied = await migrateLatest(db);
  await db.destroy();
  process.stdout.write(`migrated ${info.engine}: ${applied.length ? applied.join(', ') : 'already up to date'}\n`);
} catch (err) {
  process.stderr.write(`patchwell migrate: ${err instanceof ConfigError ? err.message : (err as Error).stack}\n`);
  process.exit(err instanceof ConfigError ? 78 : 1);
}
