import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { projectRoot } from '../kernel/config.js';

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

/**
 * One ordered history for the whole product: every file in migrations/ named
 * `<NNNN>_<plugin>_<what>.ts`, applied in name order. Works from sources (tsx, tap) and from the
 * built dist/ alike, because names are recorded without their extension.
 */
export class DirectoryMigrationSource implements Knex.MigrationSource<string> {
  constructor(private readonly dir = resolve(projectRoot, 'migrations')) {}

  async getMigrations(): Promise<string[]> {
    return readdirSync(this.dir)
      .filter((f) => /^\d{4}_.+\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts'))
      .sort();
  }

  getMigrationName(file: string): string {
    return file.replace(/\.(ts|js|mjs)$/, '');
  }

  async getMigration(file: string): Promise<MigrationModule> {
    const mod = (await import(pathToFileURL(resolve(this.dir, file)).href)) as MigrationModule;
    return { up: mod.up, down: mod.down ?? (async () => {}) };
  }
}

export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({
    migrationSource: new DirectoryMigrationSource(),
    tableName: 'knex_migrations',
  })) as [number, string[]];
  return applied;
}
