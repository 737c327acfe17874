// What the ingest benchmark reads and does on its Postgres directly (DATABASE_URL; nothing on PGlite).
import pg from 'pg';

/**
 * Ingest updates its few hot group rows on every batch (counts, last seen). Production Postgres
 * vacuums them as it goes; this machine's runs with `autovacuum = off` (a CI setting), where dead
 * versions pile up across runs (1.4 million for 520 live groups after a day of benchmarks) and
 * every upsert wades through them. So each measurement starts from a vacuumed state, as
 * autovacuum (naptime 1 min) would leave it.
 */
export async function vacuumChurned(): Promise<void> {
  await onBenchDatabase((db) =>
    db.query(
      'vacuum error_groups, error_group_users, error_group_releases, error_group_hours, connectors, rate_limits',
    ),
  );
}

/**
 * Where the server's write-ahead log stands, in bytes (server-wide). Every 16 MB of WAL opens a
 * segment; one that Postgres could not recycle at its last checkpoint is written full of zeros
 * and synced first, and every commit waits for that (docs/proactive.md, "Postgres under ingest").
 */
export async function walPosition(): Promise<number | undefined> {
  const r = await onBenchDatabase((db) =>
    db.query<{ at: string }>("select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as at"),
  );
  return r && Number(r.rows[0].at);
}

async function onBenchDatabase<T>(work: (db: pg.Client) => Promise<T>): Promise<T | undefined> {
  if (!process.env.DATABASE_URL) return undefined;
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}
