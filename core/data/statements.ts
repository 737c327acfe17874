import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import pg from 'pg';

/**
 * Hot-path statements, prepared. Through knex every query is built (~0.1 ms of CPU) and then
 * parsed and planned by Postgres again (~0.25 ms); a statement defined here is written once as
 * SQL, prepared once per connection under a name derived from its text (pg's named statements),
 * and run with its values only. On PGlite it runs as a plain parameterised query.
 * `database.transactionPooler: true` runs them all unnamed (a pooler in transaction mode hands each
 * statement to any server connection).
 *
 * Tenancy: like TenantQueryBuilder, a statement says whose rows it reads. `forOrg` statements
 * take the organization as `$1` and must filter `org_id = $1` (checked when defined);
 * `acrossOrgs(reason)` is the explicit escape hatch (credential lookups by token hash).
 *
 * Use explicit column lists, never `*`: a prepared statement whose result columns change under
 * it (a migration adding a column while the process runs) fails with "cached plan must not
 * change result type".
 */
export interface Statement {
  /**
   * The name it is prepared under on each connection (`pw_` and a hash of the text), or null
   * for a statement planned for its values on every run (see `customPlan`).
   */
  readonly name: string | null;
  readonly text: string;
  /** `org` (first value is the organization id) or the reason it reads across organizations. */
  readonly scope: 'org' | { acrossOrgs: string };
}

export class StatementError extends Error {
  override name = 'StatementError';
}

const ORG_FILTER = /\borg_id\s*=\s*\$1\b/;

export interface DefineOptions {
  /**
   * Plan it for its values on every run instead of preparing it once: for statements whose best
   * plan depends on the values (a full-text search's words). Postgres would otherwise move to a
   * generic plan after five runs when that looks as cheap on average.
   */
  customPlan?: boolean;
}

function define(text: string, scope: Statement['scope'], opts: DefineOptions): Statement {
  const name = opts.customPlan ? null : `pw_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  return Object.freeze({ name, text, scope });
}

/**
 * A tenant statement: `$1` is the organization id, and the text filters on it. Built texts
 * (filters that come and go) are cached by text, so each distinct shape is checked and named once.
 */
export function forOrg(text: string, opts: DefineOptions = {}): Statement {
  const key = opts.customPlan ? `custom:${text}` : text;
  let s = cache.get(key);
  if (!s) {
    if (!ORG_FILTER.test(text)) throw new StatementError(`statement without org_id = $1: ${text.slice(0, 120)}`);
    s = define(text, 'org', opts);
    cache.set(key, s);
  }
  return s;
}

/** A statement that reads across organizations, with the reason (greppable, like `.acrossOrgs`). */
export function acrossOrgs(reason: string, text: string, opts: DefineOptions = {}): Statement {
  if (!reason.trim()) throw new StatementError('acrossOrgs() needs a reason');
  return define(text, { acrossOrgs: reason }, opts);
}

// Every built shape of every statement: bounded by the filter combinations of the callers.
const cache = new Map<string, Statement>();

interface PoolClient {
  config?: { transactionPooler?: boolean };
  acquireConnection(): Promise<unknown>;
  releaseConnection(conn: unknown): Promise<void> | void;
}

interface PGliteLike {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Runs a statement on `db` (the pool or a transaction) and returns its rows. */
export async function run<R>(db: Knex, stmt: Statement, values: readonly unknown[]): Promise<R[]> {
  if (stmt.scope === 'org' && (typeof values[0] !== 'string' || !values[0])) throw new StatementError(`statement ${stmt.name ?? 'planned per run'} needs the organization id as $1`);
  return execute<R>(db, stmt.name, stmt.text, values);
}

/**
 * Runs SQL text (`$n` placeholders) on the pool or a transaction, prepared under `name` when one
 * is given: `run` for defined statements, and unnamed for writes composed at run time
 * (WriteBatch), whose tenancy is in the rows they write.
 */
export async function execute<R>(db: Knex, name: string | null, text: string, values: readonly unknown[]): Promise<R[]> {
  const client = db.client as unknown as PoolClient;
  const conn = await client.acquireConnection();
  try {
    if (conn instanceof pg.Client) {
      const prepare = name !== null && client.config?.transactionPooler !== true;
      const res = await conn.query({ ...(prepare ? { name } : {}), text, values: values as unknown[] });
      return res.rows as R[];
    }
    const res = await (conn as PGliteLike).query(text, values as unknown[]);
    return res.rows as R[];
  } finally {
    await client.releaseConnection(conn);
  }
}
