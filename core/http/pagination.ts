import Joi from 'joi';
import type { Knex } from 'knex';
import { httpError } from './errors.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** Query keys every list accepts. Spread into a route's query schema. */
export const paginationQuery = {
  cursor: Joi.string().max(512).description("Opaque cursor from the previous page's next_cursor"),
  limit: Joi.number()
    .integer()
    .min(1)
    .max(MAX_LIMIT)
    .default(DEFAULT_LIMIT)
    .description(`Page size (default ${DEFAULT_LIMIT}, max ${MAX_LIMIT})`),
};

export interface SortKey {
  /** Column (qualified if joined), e.g. `tickets.created_at`. */
  column: string;
  direction: 'asc' | 'desc';
  /**
   * How the value travels in the cursor: numbers, strings, or dates, which travel as Postgres'
   * own text of the value (microseconds; a JS Date keeps milliseconds, and a cursor cut to them
   * skipped or repeated rows written within the same millisecond).
   */
  type?: 'date' | 'number' | 'string';
  /** Property of the row holding the value, when it differs from the column's last part. */
  field?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** The answer schema of a list: `{ items, next_cursor }` (null on the last page); name it with `.id()`. */
export const pageSchema = (item: Joi.Schema): Joi.ObjectSchema<Page<unknown>> =>
  Joi.object({ items: Joi.array().items(item).required(), next_cursor: Joi.string().allow(null).required() });

export function encodeCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

const TIMESTAMP_TEXT = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d{1,6})?(Z|[+-](\d\d)(:?\d\d)?)$/;

/**
 * A timestamptz as cursors carry it: Postgres' text form (`2026-11-26 15:11:18.123456+00`) or
 * ISO 8601 (cursors written before they kept microseconds), with fields Postgres accepts, so that
 * a forged cursor is a 400 and never a database error.
 */
export function isTimestampText(value: unknown): value is string {
  const m = typeof value === 'string' ? TIMESTAMP_TEXT.exec(value) : null;
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  return (
    year >= 1 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 15
  );
}

export function invalidCursor(): Error {
  return httpError(400, 'invalid_request', 'cursor is not valid for this list', {
    errors: [{ path: 'cursor', message: 'invalid cursor' }],
  });
}

/** A cursor value its key can compare: a date's text, or a scalar (the type of other keys is a hint). */
function fitsKey(v: unknown, key: SortKey): boolean {
  if (v === null) return true; // a nullable sort column's last value
  if (key.type === 'date') return isTimestampText(v);
  return (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.length <= 512);
}

/** The cursor's values, one per key and each one its key can compare, or 400 invalid_request. */
export function decodeCursor(cursor: string, keys: SortKey[]): unknown[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    values = null;
  }
  if (!Array.isArray(values) || values.length !== keys.length || !values.every((v, i) => fitsKey(v, keys[i])))
    throw invalidCursor();
  return values;
}

const fieldOf = (k: SortKey): string => k.field ?? k.column.split('.').pop()!;

/** The builders paginate takes: knex's, or objection's (which selects `table.*` when told nothing). */
type Builder = Knex.QueryBuilder & {
  hasSelects?(): boolean;
  modelClass?(): unknown;
  tableRefFor?(modelClass: unknown): string;
  knex?(): Knex;
};

/**
 * Selects each date key's exact text next to what the query selects (a query that named no
 * columns keeps selecting all of them). Returns, per key, the row property its cursor value is
 * read from: the alias of that text for a date, the key's field otherwise.
 */
function selectCursorFields(q: Builder, keys: SortKey[]): string[] {
  const fields = keys.map((k, i) => (k.type === 'date' ? `_pw_cursor_${i}` : fieldOf(k)));
  if (!keys.some((k) => k.type === 'date')) return fields;
  const objection = typeof q.hasSelects === 'function';
  const hasSelects = objection
    ? q.hasSelects!()
    : (q as unknown as { _statements: { grouping: string }[] })._statements.some((s) => s.grouping === 'columns');
  if (!hasSelects) q.select(objection ? `${q.tableRefFor!(q.modelClass!())}.*` : '*');
  const knex = objection ? q.knex!() : (q as unknown as { client: Knex }).client;
  keys.forEach((k, i) => k.type === 'date' && q.select(knex.raw('??::text as ??', [k.column, fields[i]])));
  return fields;
}

/**
 * Keyset pagination: orders by the keys (the last must be unique, e.g. id), continues strictly
 * after the cursor's row, fetches limit+1 to know whether a next page exists. Never OFFSET.
 * Mixed directions are supported by expanding (a > x) or (a = x and b > y) …
 * A date key's cursor value is the row's exact timestamp (see SortKey.type).
 */
export async function paginate<T extends Record<string, unknown>>(
  query: Knex.QueryBuilder | { clone(): unknown },
  keys: SortKey[],
  opts: { cursor?: string | null; limit?: number },
): Promise<Page<T>> {
  const limit = Math.min(opts.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const q = query as Builder;
  if (opts.cursor) {
    const values = decodeCursor(opts.cursor, keys);
    const first = keys[0];
    if (keys.every((k) => k.direction === first.direction)) {
      // One direction: a row-value comparison `(a, b) < (x, y)`, which Postgres turns into an
      // index range condition, so a page deep in the list costs what the first page costs.
      const cols = keys.map(() => '??').join(', ');
      const params = keys.map((k) => (k.type === 'date' ? '?::timestamptz' : '?')).join(', ');
      q.whereRaw(`(${cols}) ${first.direction === 'asc' ? '>' : '<'} (${params})`, [
        ...keys.map((k) => k.column),
        ...(values as Knex.Value[]),
      ]);
    } else {
      // Mixed directions: (a > x) or (a = x and b < y) …, plus the bound on the first key the
      // expansion implies, so the index range still starts at the cursor.
      q.where(first.column, first.direction === 'asc' ? '>=' : '<=', values[0] as Knex.Value);
      q.where((outer) => {
        keys.forEach((key, i) => {
          outer.orWhere((inner) => {
            for (let j = 0; j < i; j++) inner.where(keys[j].column, values[j] as Knex.Value);
            inner.where(key.column, key.direction === 'asc' ? '>' : '<', values[i] as Knex.Value);
          });
        });
      });
    }
  }
  const fields = selectCursorFields(q, keys);
  for (const key of keys) q.orderBy(key.column, key.direction);
  const rows = (await q.limit(limit + 1)) as unknown as T[];
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const next_cursor = rows.length > limit && last ? encodeCursor(fields.map((f) => last[f] ?? null)) : null;
  const selected = fields.filter((_, i) => keys[i].type === 'date');
  for (const row of rows) for (const f of selected) delete (row as Record<string, unknown>)[f];
  return { items, next_cursor };
}
