import type { Knex } from 'knex';

/** Whom an erasure is about: an end user by email address, or by the widget's user id. */
export interface ErasureSubject {
  /** Lower-case. */
  email: string | null;
  userId: string | null;
}

/**
 * A plugin's declaration of where it keeps an end user's personal data (container key
 * `personalData`, `declare(...)` in the plugin's register). An erasure applies every declaration
 * of the tables that exist, then sweeps every text and JSON column of the organization's rows for
 * the address (the safety net for what no declaration names).
 *
 * @example
 *   const registry = ctx.container.resolve('personalData', { allowUnregistered: true });
 *   registry?.declare({ plugin: 'widget', table: 'widget_reports', emailColumns: ['email'], userIdColumns: ['user_id'], onMatch: 'delete' });
 */
export interface PersonalDataDeclaration {
  /** The plugin that owns the table (documentation, logs). */
  plugin: string;
  table: string;
  /** Columns holding the person's email address (compared case-insensitively). */
  emailColumns?: string[];
  /** Columns holding the widget user id the customer's app gave. */
  userIdColumns?: string[];
  /** Matching rows are deleted, or the listed columns are set (null or a placeholder). */
  onMatch?: 'delete' | { set: Record<string, unknown> };
  /** The tenant column (default `org_id`). */
  orgColumn?: string;
  /** Columns a custom eraser reads (the declaration is skipped when one is missing). */
  columns?: string[];
  /** Custom work instead of (or besides) the column match; answers the rows it touched. */
  custom?: (trx: Knex.Transaction, orgId: string, subject: ErasureSubject) => Promise<number>;
}

export class PersonalDataRegistry {
  private readonly list: PersonalDataDeclaration[] = [];

  declare(d: PersonalDataDeclaration): void {
    if (!d.custom && !d.emailColumns?.length && !d.userIdColumns?.length)
      throw new Error(`personal data of ${d.table}: name columns or a custom eraser`);
    this.list.push(d);
  }

  declarations(): readonly PersonalDataDeclaration[] {
    return this.list;
  }
}

export const ERASED = '[erased]';
