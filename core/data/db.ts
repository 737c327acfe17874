import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import type { AppConfig } from '../kernel/config.js';
import { extractTemplate } from './pglite-template.js';

// timestamptz and date columns come back as JS Dates from pg; numerics (bigint counts) as numbers.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export type Db = Knex;

export interface DatabaseInfo {
  engine: 'postgres' | 'pglite';
  schema: string | null;
}

/**
 * Opens the database: Postgres through pg when database.url is set, else embedded PGlite under
 * dataDir (":memory:" as dataDir keeps it in memory, for tests).
 */
export interface CreateDatabaseOptions {
  /**
   * In-memory PGlite only: start from this data directory dump (PGlite's dumpDataDir) instead of
   * an empty cluster. Tests use a migrated template, which opens ~10× faster than initdb.
   */
  pgliteTemplate?: Blob;
}

export function createDatabase(config: AppConfig, opts: CreateDatabaseOptions = {}): { db: Db; info: DatabaseInfo } {
  const schema = config.database.schema ?? null;
  if (config.database.url) {
    const db = knexFactory({
      client: 'pg',
      connection: config.database.url,
      searchPath: schema ? [schema, 'public'] : undefined,
      pool: {
        min: config.database.poolMin,
        max: config.database.poolMax,
        afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
          if (!schema) return done(null, conn);
          conn.query(`create schema if not exists "${schema}"; set search_path to "${schema}", public`, (err) => done(err ?? null, conn));
        },
      },
      acquireConnectionTimeout: 30_000,
      // Read by core/data/statements.ts (knex ignores keys it does not know).
      transactionPooler: config.database.transactionPooler,
    } as Knex.Config);
    return { db, info: { engine: 'postgres', schema } };
  }
  const inMemory = config.dataDir === ':memory:';
  let connection: Record<string, string> | (() => { pglite: PGlite }) = {};
  if (inMemory && opts.pgliteTemplate) {
    // One instance: knex may call a connection function more than once.
    const pglite = new PGlite({ loadDataDir: opts.pgliteTemplate, startParams: pgliteStartParams() });
    connection = () => ({ pglite });
  } else if (!inMemory) {
    const dir = resolve(config.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
    // A fresh directory starts from the migrated template when one is cached (core/data/pglite-template.ts).
    if (config.database.pgliteTemplate && !existsSync(join(dir, 'PG_VERSION'))) extractTemplate(dir);
    const pglite = new PGlite(dir, { startParams: pgliteStartParams() });
    connection = () => ({ pglite });
  }
  const db = knexFactory({
    client: ClientPgLite,
    dialect: 'postgres',
    connection,
    acquireConnectionTimeout: 60_000,
  } as Knex.Config);
  return { db, info: { engine: 'pglite', schema: null } };
}

/**
 * PGlite's own start parameters, plus a 16 MB buffer pool instead of the 128 MB initdb writes: PGlite zeroes the
 * whole pool in WebAssembly at every open (0.6–0.9 s of CPU per start, per test app), and its pages are a copy of
 * what the emulated or the OS file cache already holds (bench/results/2026-11-28-pglite-buffers.md).
 */
function pgliteStartParams(): string[] {
  return [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];
}
