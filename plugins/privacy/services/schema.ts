import type { Knex } from 'knex';

export interface ColumnInfo {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
}

/** The columns of every table of the current schema (the tables other plugins add included). */
export async function columnsOf(db: Knex): Promise<ColumnInfo[]> {
  const { rows }: { rows: ColumnInfo[] } = await db.raw(
    `select table_name as "table", column_name as "column", data_type as "type", (is_nullable = 'YES') as "nullable"
       from information_schema.columns
      where table_schema = current_schema()
      order by table_name, ordinal_position`,
  );
  return rows;
}

/** table → its columns. */
export function byTable(cols: ColumnInfo[]): Map<string, ColumnInfo[]> {
  const out = new Map<string, ColumnInfo[]>();
  for (const c of cols) out.set(c.table, [...(out.get(c.table) ?? []), c]);
  return out;
}

export const TEXT_TYPES = new Set(['text', 'character varying', 'character']);
export const JSON_TYPES = new Set(['jsonb', 'json']);

/** A Postgres regular expression matching `s` literally. */
export const regexLiteral = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
