import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

// Function properties: a migration module's exports are plain functions, called without `this`.
interface MigrationModule {
  up: (knex: Knex) => Promise<void>;
  down?: (knex: Knex) => Promise<void>;
}

/** The migrations beside this module: the sources under tsx and tap, dist/migrations when compiled. */
const migrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

/**
 * One ordered history for the whole product: every file in migrations/ named
 * `<NNNN>_<plugin>_<what>.ts`, applied in name order. Works from sources (tsx, tap) and from the
 * built dist/ alike, because names are recorded without their extension.
 */
export class DirectoryMigrationSource implements Knex.MigrationSource<string> {
  constructor(private readonly dir = migrationsDir) {}

  getMigrations(): Promise<string[]> {
    // In the executor, a directory that cannot be read rejects, as it did from an async method.
    return new Promise((resolve) =>
      resolve(
        readdirSync(this.dir)
          .filter((f) => /^\d{4}_.+\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts'))
          .sort(),
      ),
    );
  }

  getMigrationName(file: string): string {
    return file.replace(/\.(ts|js|mjs)$/, '');
  }

  async getMigration(file: string): Promise<MigrationModule> {
    const mod = (await import(pathToFileURL(resolve(this.dir, file)).href)) as MigrationModule;
    return { up: mod.up, down: mod.down ?? (async () => {}) };
  }
}

/**
 * Applies the migrations not yet applied; returns their names. A start with nothing to apply (every
 * restart) reads the applied names in one query instead of knex's table checks, lock and listing.
 */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const source = new DirectoryMigrationSource();
  if (await upToDate(db, source)) return [];
  const [, applied] = (await db.migrate.latest({
    migrationSource: source,
    tableName: 'knex_migrations',
  })) as [number, string[]];
  return applied;
}

/**
 * True when the recorded migrations are exactly the ones on disk. Anything else (a new database, a
 * pending migration, a recorded one whose file is gone) goes through knex, which applies or reports it.
 */
async function upToDate(db: Knex, source: DirectoryMigrationSource): Promise<boolean> {
  const names = (await source.getMigrations()).map((f) => source.getMigrationName(f));
  // In the current schema only, as knex looks (a test schema, not public's table); no error on a new database.
  const found = await db.raw<{ rows: { table: string | null }[] }>(
    `select to_regclass(quote_ident(current_schema()) || '.knex_migrations')::text as "table"`,
  );
  const table = found.rows[0]?.table;
  if (!table) return false;
  const rows = await db.select<{ name: string }[]>('name').from(db.raw(table));
  const recorded = new Set(rows.map((r) => r.name.replace(/\.(ts|js|mjs)$/, '')));
  return recorded.size === names.length && names.every((n) => recorded.has(n));
}
