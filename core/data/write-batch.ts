import type { Knex } from 'knex';
import { execute } from './statements.js';

/** What WriteBatch needs of an objection model class: its table and its JSON columns. */
export interface TableOf {
  tableName: string;
  jsonAttributes?: string[] | null;
}

interface Insert {
  table: string;
  json: ReadonlySet<string>;
  rows: Record<string, unknown>[];
}

/**
 * Inserts of several tables written as one statement (`with w1 as (insert …), w2 as (insert …)`):
 * one round trip and one plan instead of one per insert, and atomic on its own, so a write that
 * is nothing but inserts needs no BEGIN and COMMIT either. The intake paths (a new ticket with its
 * opening message, files and events; the inbound email's log row) write this way.
 *
 * Rows are written as given: ids, timestamps and defaults are the caller's (nothing comes back
 * with RETURNING). JSON columns (the model's jsonAttributes, or `json`) are stringified here.
 * Foreign keys between the inserts hold: Postgres checks them at the end of the statement.
 */
export class WriteBatch {
  private readonly inserts: Insert[] = [];
  private readonly committed: (() => void)[] = [];

  /** Queues rows for `model`'s table (a model class, or a table name with its JSON columns). */
  insert(model: TableOf | string, rows: Record<string, unknown>[], json: readonly string[] = []): this {
    if (rows.length === 0) return this;
    const table = typeof model === 'string' ? model : model.tableName;
    const jsonColumns = new Set([...json, ...(typeof model === 'string' ? [] : model.jsonAttributes ?? [])]);
    this.inserts.push({ table, json: jsonColumns, rows });
    return this;
  }

  /** Runs after the batch is committed: at once when it ran on its own, else when the caller's transaction commits (see afterCommit). */
  onCommitted(fn: () => void): this {
    this.committed.push(fn);
    return this;
  }

  /** The rows queued so far for `table`. */
  rowsOf(table: string): Record<string, unknown>[] {
    return this.inserts.filter((i) => i.table === table).flatMap((i) => i.rows);
  }

  get isEmpty(): boolean {
    return this.inserts.length === 0;
  }

  /** The statement and its values (exposed for tests and EXPLAIN). */
  toSql(): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const statements = this.inserts.map(({ table, json, rows }) => {
      const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
      const tuples = rows.map((r) => `(${columns.map((c) => {
        if (!(c in r)) return 'default';
        const v = r[c];
        values.push(json.has(c) && v !== null && v !== undefined ? JSON.stringify(v) : v === undefined ? null : v);
        return `$${values.length}`;
      }).join(', ')})`);
      return `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${tuples.join(', ')}`;
    });
    if (statements.length === 1) return { text: statements[0], values };
    return { text: `with ${statements.map((s, i) => `w${i} as (${s})`).join(', ')} select 1`, values };
  }

  /** Writes everything in one statement on `db` (the pool, or the caller's transaction). */
  async run(db: Knex): Promise<void> {
    if (this.isEmpty) return;
    const { text, values } = this.toSql();
    await execute(db, null, text, values);
    afterCommit(db, () => {
      for (const fn of this.committed) fn();
    });
  }
}

const quote = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

/**
 * Runs `fn` once `db`'s outermost transaction has committed, or at once outside a transaction.
 * Not when the transaction fails (its handler throws). knex resolves its transaction promise
 * also on an explicit `trx.rollback()` without an error, so callbacks must be harmless then:
 * the outbox's is a kick of the relay, which finds nothing new.
 */
export function afterCommit(db: Knex, fn: () => void): void {
  const outer = outermostTransaction(db);
  if (!outer) return fn();
  outer.executionPromise.then(fn, () => {});
}

/** The transaction whose commit makes `db`'s writes visible, or null when `db` is not a transaction. */
export function outermostTransaction(db: Knex): Knex.Transaction | null {
  let trx = db as Knex.Transaction;
  if (trx.isTransaction !== true) return null;
  while (trx.parentTransaction) trx = trx.parentTransaction;
  return trx;
}
