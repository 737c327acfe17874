import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { CreditBalance, CreditLedgerEntry, type LedgerKind } from '../models.js';
import type { CreditSource } from '../options.js';

export interface GrantInput {
  orgId: string;
  source: CreditSource;
  fixes: number;
  /** What grants it; a second grant with the same (source, reference) changes nothing. */
  reference: string;
  expiresAt: Date | null;
  workspaceId?: string | null;
  note?: string | null;
  grantedAt?: Date;
}

/**
 * The credits ledger: balances by source with expiry, and an append-only list of entries
 * (grant, consume, refund, expire, adjust). A balance's fixes_remaining is the sum of its
 * entries, and a check constraint keeps it between 0 and granted_fixes.
 *
 * Consumption takes one fix from the live balance that expires first (no expiry last), locking
 * it with `select … for update` in the caller's transaction, so parallel consumers serialize on
 * the row and no balance goes negative.
 */
export class CreditLedger {
  async grant(trx: Knex, input: GrantInput): Promise<{ balance: CreditBalance; created: boolean }> {
    if (input.fixes <= 0) throw new Error('a grant needs at least one fix');
    const now = input.grantedAt ?? new Date();
    const rows = (await trx('credit_balances')
      .insert({
        id: newId(CreditBalance.idPrefix),
        org_id: input.orgId,
        workspace_id: input.workspaceId ?? null,
        source: input.source,
        granted_fixes: input.fixes,
        fixes_remaining: input.fixes,
        granted_at: now,
        expires_at: input.expiresAt,
        reference: input.reference,
        created_at: now,
        updated_at: now,
      })
      .onConflict(['org_id', 'source', 'reference'])
      .ignore()
      .returning('*')) as Record<string, unknown>[];
    if (rows.length > 0) {
      const balance = CreditBalance.fromDatabaseJson(rows[0]);
      await this.entry(trx, balance, 'grant', input.fixes, null, input.note ?? null);
      return { balance, created: true };
    }
    const existing = await CreditBalance.query(trx)
      .forOrg(input.orgId)
      .where({ source: input.source, reference: input.reference })
      .limit(1)
      .first();
    return { balance: existing!, created: false };
  }

  /**
   * Takes one fix for a job from the soonest-expiring live balance (of the organization, or of the
   * job's workspace). Null when no fix is left. A job consumes once: repeating returns its balance.
   */
  async consume(
    trx: Knex,
    input: { orgId: string; jobId: string; workspaceId?: string | null; now?: Date; note?: string },
  ): Promise<CreditBalance | null> {
    const prior = await this.entryOf(trx, input.orgId, input.jobId, 'consume');
    if (prior) return (await CreditBalance.query(trx).forOrg(input.orgId).findById(prior.balance_id)) ?? null;
    const now = input.now ?? new Date();
    const balance = await CreditBalance.query(trx)
      .forOrg(input.orgId)
      .where('fixes_remaining', '>', 0)
      .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .where((q) =>
        input.workspaceId
          ? q.whereNull('workspace_id').orWhere('workspace_id', input.workspaceId)
          : q.whereNull('workspace_id'),
      )
      .orderByRaw('expires_at asc nulls last, granted_at asc, id asc')
      .limit(1)
      .forUpdate()
      .first();
    if (!balance) return null;
    const updated = await trx('credit_balances')
      .where({ id: balance.id, org_id: input.orgId })
      .where('fixes_remaining', '>', 0)
      .update({ fixes_remaining: trx.raw('fixes_remaining - 1'), updated_at: new Date() });
    if (updated !== 1) return null;
    await this.entry(trx, balance, 'consume', -1, input.jobId, input.note ?? null);
    return { ...balance, fixes_remaining: balance.fixes_remaining - 1 } as CreditBalance;
  }

  /** Gives back the fix a job consumed (e.g. the job produced no fix). False when there is nothing to refund. */
  async refund(trx: Knex, input: { orgId: string; jobId: string; note?: string }): Promise<boolean> {
    const consumed = await this.entryOf(trx, input.orgId, input.jobId, 'consume');
    if (!consumed) return false;
    if (await this.entryOf(trx, input.orgId, input.jobId, 'refund')) return false;
    const balance = await CreditBalance.query(trx).forOrg(input.orgId).findById(consumed.balance_id).forUpdate();
    if (!balance) return false;
    await trx('credit_balances')
      .where({ id: balance.id, org_id: input.orgId })
      .update({ fixes_remaining: trx.raw('least(fixes_remaining + 1, granted_fixes)'), updated_at: new Date() });
    await this.entry(trx, balance, 'refund', 1, input.jobId, input.note ?? null);
    return true;
  }

  /** A staff correction of one balance by `fixes` (clamped to the balance's bounds). */
  async adjust(
    trx: Knex,
    input: { orgId: string; balanceId: string; fixes: number; note: string },
  ): Promise<CreditBalance | null> {
    const balance = await CreditBalance.query(trx).forOrg(input.orgId).findById(input.balanceId).forUpdate();
    if (!balance) return null;
    const next = Math.min(balance.granted_fixes, Math.max(0, balance.fixes_remaining + input.fixes));
    const delta = next - balance.fixes_remaining;
    if (delta === 0) return balance;
    await CreditBalance.query(trx)
      .forOrg(input.orgId)
      .where('id', balance.id)
      .patch({ fixes_remaining: next, updated_at: new Date() });
    await this.entry(trx, balance, 'adjust', delta, null, input.note);
    return { ...balance, fixes_remaining: next } as CreditBalance;
  }

  /** Zeroes balances past their expiry with an `expire` entry each; returns how many. */
  async expireDue(db: Knex, now = new Date(), orgId?: string): Promise<number> {
    return db.transaction(async (trx) => {
      const q = CreditBalance.query(trx)
        .where('fixes_remaining', '>', 0)
        .whereNotNull('expires_at')
        .where('expires_at', '<=', now)
        .orderBy('id')
        .limit(500)
        .forUpdate()
        .skipLocked();
      const due = await (orgId ? q.forOrg(orgId) : q.acrossOrgs('credit expiry sweep'));
      for (const b of due) {
        await CreditBalance.query(trx)
          .forOrg(b.org_id)
          .where('id', b.id)
          .patch({ fixes_remaining: 0, updated_at: now });
        await this.entry(trx, b, 'expire', -b.fixes_remaining, null, null);
      }
      return due.length;
    });
  }

  /** Live balances (fixes left, not expired), soonest expiry first. */
  async liveBalances(db: Knex, orgId: string, now = new Date()): Promise<CreditBalance[]> {
    return CreditBalance.query(db)
      .forOrg(orgId)
      .where('fixes_remaining', '>', 0)
      .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .orderByRaw('expires_at asc nulls last, granted_at asc, id asc');
  }

  async remaining(db: Knex, orgId: string, now = new Date(), workspaceId?: string | null): Promise<number> {
    const rows = await this.liveBalances(db, orgId, now);
    return rows
      .filter((b) => !b.workspace_id || b.workspace_id === workspaceId)
      .reduce((s, b) => s + b.fixes_remaining, 0);
  }

  private async entryOf(
    trx: Knex,
    orgId: string,
    jobId: string,
    kind: LedgerKind,
  ): Promise<CreditLedgerEntry | undefined> {
    return CreditLedgerEntry.query(trx).forOrg(orgId).where({ job_id: jobId, kind }).limit(1).first();
  }

  private async entry(
    trx: Knex,
    balance: CreditBalance,
    kind: LedgerKind,
    fixes: number,
    jobId: string | null,
    note: string | null,
  ): Promise<void> {
    await CreditLedgerEntry.query(trx).insert({
      org_id: balance.org_id,
      balance_id: balance.id,
      source: balance.source,
      kind,
      fixes,
      job_id: jobId,
      note,
    });
  }
}
