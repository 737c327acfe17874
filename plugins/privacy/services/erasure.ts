import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import type { PrivacyDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { ERASED, type ErasureSubject, type PersonalDataDeclaration } from './registry.js';
import { byTable, columnsOf, JSON_TYPES, regexLiteral, TEXT_TYPES, type ColumnInfo } from './schema.js';

export interface ErasureOut {
  id: string;
  status: 'completed';
  subject: 'email' | 'user_id';
  counts: Record<string, number>;
  created_at: string;
}

/** Tables an erasure never rewrites: its own evidence, and bookkeeping without personal data. */
const SKIP_SWEEP = new Set(['privacy_erasures', 'privacy_closures', 'knex_migrations', 'knex_migrations_lock']);
/** A widget user id shorter than this is only matched in declared columns, never swept as text. */
const MIN_SWEEP_ID = 8;

/**
 * Erases one end user of an organization: every declaration of the personal-data registry, then
 * a sweep of every text and JSON column of the organization's rows (all tables with org_id, the
 * ones added later included) replacing the address — and a long enough user id — with
 * `[erased]`, and of binary columns (raw emails) holding it. One transaction: all or nothing.
 */
export class ErasureService {
  constructor(private readonly d: PrivacyDeps) {}

  async erase(actor: SignedInActor, input: { email?: string; user_id?: string }): Promise<ErasureOut> {
    const subject: ErasureSubject = {
      email: input.email ? input.email.trim().toLowerCase() : null,
      userId: input.user_id?.trim() || null,
    };
    const id = newId('era');
    const now = this.d.clock();
    const counts: Record<string, number> = {};
    const add = (table: string, n: number) => {
      if (n > 0) counts[table] = (counts[table] ?? 0) + n;
    };
    const cols = byTable(await columnsOf(this.d.db));
    await this.d.db.transaction(async (trx) => {
      for (const decl of this.d.registry.declarations())
        add(decl.table, await this.applyDeclaration(trx, actor.orgId, subject, decl, cols));
      for (const [table, columns] of cols) add(table, await sweep(trx, actor.orgId, subject, table, columns));
      const kind = subject.email ? 'email' : 'user_id';
      await trx('privacy_erasures').insert({
        id,
        org_id: actor.orgId,
        subject_kind: kind,
        subject_hash: createHash('sha256')
          .update(subject.email ?? subject.userId!)
          .digest('hex'),
        counts: JSON.stringify(counts),
        requested_by_user_id: actor.userId,
        created_at: now,
      });
      await this.d.audit.record(trx, {
        actor,
        action: 'privacy.end_user_erased',
        target: { type: 'erasure', id },
        metadata: { subject: kind, counts },
      });
      await this.d.outbox.add(
        trx,
        'privacy.end_user_erased',
        { org_id: actor.orgId, erasure_id: id },
        { orgId: actor.orgId },
      );
    });
    return {
      id,
      status: 'completed',
      subject: subject.email ? 'email' : 'user_id',
      counts,
      created_at: now.toISOString(),
    };
  }

  private async applyDeclaration(
    trx: Knex.Transaction,
    orgId: string,
    s: ErasureSubject,
    d: PersonalDataDeclaration,
    cols: Map<string, ColumnInfo[]>,
  ): Promise<number> {
    const have = new Set((cols.get(d.table) ?? []).map((c) => c.column));
    const orgColumn = d.orgColumn ?? 'org_id';
    const needed = [orgColumn, ...(d.emailColumns ?? []), ...(d.userIdColumns ?? []), ...(d.columns ?? [])];
    if (!have.size || needed.some((c) => !have.has(c))) return 0;
    let n = 0;
    if (d.custom) n += await d.custom(trx, orgId, s);
    const emailCols = s.email ? (d.emailColumns ?? []) : [];
    const idCols = s.userId ? (d.userIdColumns ?? []) : [];
    if (!emailCols.length && !idCols.length) return n;
    const q = trx(d.table)
      .where(orgColumn, orgId)
      .where((w) => {
        for (const c of emailCols) w.orWhereRaw('lower(??) = ?', [c, s.email!]);
        for (const c of idCols) w.orWhere(c, s.userId);
      });
    const onMatch = d.onMatch ?? 'delete';
    // Counted by the rows returned: knex-pglite answers no row count for a delete.
    n +=
      onMatch === 'delete'
        ? ((await q.delete().returning(orgColumn)) as unknown[]).length
        : Number(await q.update(onMatch.set));
    return n;
  }
}

/** Rewrites the subject out of every text, JSON and binary column of the organization's rows of one table. */
async function sweep(
  trx: Knex.Transaction,
  orgId: string,
  s: ErasureSubject,
  table: string,
  columns: ColumnInfo[],
): Promise<number> {
  if (SKIP_SWEEP.has(table) || !columns.some((c) => c.column === 'org_id')) return 0;
  const needles = [s.email, s.userId && s.userId.length >= MIN_SWEEP_ID ? s.userId : null].filter(
    (x): x is string => !!x,
  );
  let touched = 0;
  for (const needle of needles) {
    const pattern = regexLiteral(needle);
    const like = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    for (const c of columns) {
      if (c.column === 'org_id' || c.column === 'id') continue;
      if (TEXT_TYPES.has(c.type)) {
        touched += await trx(table)
          .where('org_id', orgId)
          .whereRaw('?? ilike ?', [c.column, like])
          .update({ [c.column]: trx.raw("regexp_replace(??, ?, ?, 'gi')", [c.column, pattern, ERASED]) });
      } else if (JSON_TYPES.has(c.type)) {
        touched += await trx(table)
          .where('org_id', orgId)
          .whereRaw('??::text ilike ?', [c.column, like])
          .update({
            [c.column]: trx.raw(`regexp_replace(??::text, ?, ?, 'gi')::${c.type}`, [c.column, pattern, ERASED]),
          });
      } else if (c.type === 'bytea' && c.nullable) {
        const variants = [...new Set([needle, needle.toLowerCase(), needle.toUpperCase()])];
        touched += await trx(table)
          .where('org_id', orgId)
          .whereNotNull(c.column)
          .where((w) => {
            for (const v of variants) w.orWhereRaw('position(?::bytea in ??) > 0', [Buffer.from(v), c.column]);
          })
          .update({ [c.column]: null });
      }
    }
  }
  return touched;
}
