import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

export type LocalKind =
  | 'customer'
  | 'checkout'
  | 'portal'
  | 'subscription'
  | 'invoice'
  | 'account'
  | 'account_link'
  | 'idempotency'
  | 'transfer';

const PREFIX: Record<LocalKind, string> = {
  customer: 'cus_local_',
  checkout: 'cs_local_',
  portal: 'bps_local_',
  subscription: 'sub_local_',
  invoice: 'in_local_',
  account: 'acct_local_',
  account_link: 'al_local_',
  idempotency: 'idem_',
  transfer: 'tr_local_',
};

/** An unguessable id: hosted page URLs carry them and are the only credential of those pages. */
export function localId(kind: LocalKind): string {
  return PREFIX[kind] + randomBytes(12).toString('hex');
}

/**
 * The simulated provider's objects, as JSON documents in `payment_local_objects` (migration
 * 0750). Each call is its own statement: the provider never holds a transaction while the service
 * handles one of its webhooks.
 */
export class LocalStore {
  constructor(private readonly db: Knex) {}

  async get<T>(kind: LocalKind, id: string): Promise<T | null> {
    const row = (await this.db('payment_local_objects').where({ id, kind }).first()) as
      { data: T | string } | undefined;
    if (!row) return null;
    return (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as T;
  }

  async put<T extends { id: string }>(kind: LocalKind, doc: T): Promise<T> {
    const now = new Date();
    await this.db('payment_local_objects')
      .insert({ id: doc.id, kind, data: JSON.stringify(doc), created_at: now, updated_at: now })
      .onConflict('id')
      .merge({ data: JSON.stringify(doc), updated_at: now });
    return doc;
  }

  /** Inserts unless the id exists; answers the stored document either way. */
  async putIfAbsent<T extends { id: string }>(kind: LocalKind, doc: T): Promise<T> {
    const now = new Date();
    await this.db('payment_local_objects')
      .insert({ id: doc.id, kind, data: JSON.stringify(doc), created_at: now, updated_at: now })
      .onConflict('id')
      .ignore();
    return (await this.get<T>(kind, doc.id))!;
  }

  /**
   * Documents of a kind, oldest first: those whose top-level fields equal `where` (compared in
   * SQL as text), those whose `dueField` (an ISO time) is at or before `dueBefore`, then `filter`.
   */
  async list<T>(
    kind: LocalKind,
    opts: { where?: Record<string, string>; in?: [string, string[]]; dueField?: string; dueBefore?: Date } = {},
    filter?: (doc: T) => boolean,
  ): Promise<T[]> {
    const q = this.db('payment_local_objects').where({ kind });
    for (const [k, v] of Object.entries(opts.where ?? {})) q.whereRaw('data->>? = ?', [k, v]);
    if (opts.in) q.whereRaw(`data->>? in (${opts.in[1].map(() => '?').join(', ')})`, [opts.in[0], ...opts.in[1]]);
    if (opts.dueField && opts.dueBefore) q.whereRaw('(data->>?)::timestamptz <= ?', [opts.dueField, opts.dueBefore]);
    const rows = (await q.orderBy([{ column: 'created_at' }, { column: 'id' }])) as { data: T | string }[];
    const docs = rows.map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as T);
    return filter ? docs.filter(filter) : docs;
  }

  async count(kind: LocalKind): Promise<number> {
    const row = (await this.db('payment_local_objects').where({ kind }).count({ n: '*' }).first()) as
      { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }
}
