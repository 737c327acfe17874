import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { loadConfig, type AppConfig } from '../../core/kernel/config.js';
import { createDatabase, type Db } from '../../core/data/db.js';
import { migrateLatest } from '../../core/data/migrate.js';
import { pgliteTemplate } from '../../core/data/pglite-template.js';
import { testSandboxOptions } from './sandbox.js';

/**
 * Configuration for one test file: PGlite in memory, or (DATABASE_URL set) a schema of its own on
 * the real Postgres, and (AMQP_URL set) an exchange and queues of its own on the real RabbitMQ.
 */
export function testConfig(overrides: Record<string, unknown> = {}): AppConfig {
  const suffix = randomBytes(5).toString('hex');
  const base: Record<string, unknown> = {
    dataDir: process.env.DATABASE_URL ? `/tmp/patchwell-test-${suffix}` : ':memory:',
    database: { schema: process.env.DATABASE_URL ? `t_${suffix}` : null, poolMax: 5 },
    bus: { exchange: `pw_t_${suffix}`, deleteQueuesOnStop: true, backoffMs: [20, 50], outboxPollMs: 50 },
    security: { passwordHashCost: 12, secretKeys: 'k1:' + Buffer.alloc(32, 7).toString('base64') },
    log: { level: process.env.TEST_LOG_LEVEL ?? 'silent' },
    server: { validateResponses: true, publicBaseUrl: 'http://localhost:3000' },
    // The fix loop diagnoses every new ticket on its own (and escalates what it cannot answer);
    // tests of other plugins check their own state changes, so it is off unless a test turns it
    // on (plugins/fixes/test/helpers.ts does). The runner and mcp plugins require fixes, so they
    // are off with it: their tests turn both on (`plugins: { fixes: { enabled: true }, mcp: { enabled: true } }`).
    plugins: { fixes: { enabled: false }, runner: { enabled: false }, mcp: { enabled: false } },
    // agent-managed runs its commands sandboxed as `nobody` unless the checkout is closed to others (test/helpers/sandbox.ts).
    adapters: { options: { 'agent-managed': testSandboxOptions } },
  };
  return loadConfig({ overrides: mergeDeep(base, overrides) });
}

function mergeDeep(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    out[k] =
      cur && typeof cur === 'object' && !Array.isArray(cur) && v && typeof v === 'object' && !Array.isArray(v)
        ? mergeDeep(cur as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/** Drops a test schema on the real Postgres (no-op on PGlite). */
export async function dropTestSchema(config: AppConfig): Promise<void> {
  if (!config.database.url || !config.database.schema) return;
  const admin = knexFactory({ client: 'pg', connection: config.database.url, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`drop schema if exists "${config.database.schema}" cascade`);
  } finally {
    await admin.destroy();
  }
}

/** A migrated database for tests that need only the data layer. */
export async function createTestDb(
  overrides: Record<string, unknown> = {},
): Promise<{ db: Db; config: AppConfig; close: () => Promise<void> }> {
  const config = testConfig(overrides);
  const { db } = createDatabase(config, { pgliteTemplate: config.database.url ? undefined : await pgliteTemplate() });
  await migrateLatest(db);
  return {
    db,
    config,
    close: async () => {
      await db.destroy();
      await dropTestSchema(config);
    },
  };
}
