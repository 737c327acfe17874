import Joi from 'joi';
import type { Knex } from 'knex';
import { httpError } from './errors.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** Query keys every list accepts. Spread into a route's query schema. */
export const paginationQuery = {
  cursor: Joi.string().max(512).description('Opaque cursor from the previous page\'s next_cursor'),
  limit: Joi.number().integer().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).description(`Page size (default ${DEFAULT_LIMIT}, max ${MAX_LIMIT})`),
};

export interface SortKey {
  /** Column (qualified if joined), e.g. `tickets.created_at`. */
  column: string;
  direction: 'asc' | 'desc';
  /** How the value travels in the cursor: dates as ISO strings, numbers, strings. */
  type?: 'date' | 'number' | 'string';
  /** Property of the row holding the value, when it differs from the column's last part. */
  field?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export function encodeCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string, keys: SortKey[]): unknown[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    values = null;
  }
  if (!Array.isArray(values) || values.length !== keys.length) {
    throw httpError(400, 'invalid_request', 'cursor is not valid for this list', { errors: [{ path: 'cursor', message: 'invalid cursor' }] });
  }
  return values.map((v, i) => (keys[i]!.type === 'date' && typeof v === 'string' ? new Date(v) : v));
}

const fieldOf = (k: SortKey): string => k.field ?? k.column.split('.').pop()!;

/**
 * Keyset pagination: orders by the keys (the last must be unique, e.g. id), continues strictly
 * after the cursor's row, fetches limit+1 to know whether a next page exists. Never OFFSET.
 * Mixed directions are supported by expanding (a > x) or (a = x and b > y) …
 */
export async function paginate<T extends Record<string, unknown>>(
  query: Knex.QueryBuilder | { clone(): unknown },
  keys: SortKey[],
  opts: { cursor?: string | null; limit?: number },
): Promise<Page<T>> {
  const limit = Math.min(opts.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const q = query as Knex.QueryBuilder;
  if (opts.cursor) {
    const values = decodeCursor(opts.cursor, keys);
    const first = keys[0]!;
    if (keys.every((k) => k.direction === first.direction)) {
      // One direction: a row-value comparison `(a, b) < (x, y)`, which Postgres turns into an
      // index range condition, so a page deep in the list costs what the first page costs.
      const cols = keys.map(() => '??').join(', ');
      const params = keys.map(() => '?').join(', ');
      q.whereRaw(`(${cols}) ${first.direction === 'asc' ? '>' : '<'} (${params})`, [...keys.map((k) => k.column), ...(values as Knex.Value[])]);
    } else {
      // Mixed directions: (a > x) or (a = x and b < y) …, plus the bound on the first key the
      // expansion implies, so the index range still starts at the cursor.
      q.where(first.column, first.direction === 'asc' ? '>=' : '<=', values[0] as Knex.Value);
      q.where((outer) => {
        keys.forEach((key, i) => {
          outer.orWhere((inner) => {
            for (let j = 0; j < i; j++) inner.where(keys[j]!.column, values[j] as Knex.Value);
            inner.where(key.column, key.direction === 'asc' ? '>' : '<', values[i] as Knex.Value);
          });
        });
      });
    }
  }
  for (const key of keys) q.orderBy(key.column, key.direction);
  const rows = (await q.limit(limit + 1)) as unknown as T[];
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const next_cursor = rows.length > limit && last
    ? encodeCursor(keys.map((k) => {
        const v = last[fieldOf(k)];
        return v instanceof Date ? v.toISOString() : v;
      }))
    : null;
  return { items, next_cursor };
}
