import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { Referral } from '../models.js';
import type { AccountStore } from './account-store.js';
import { addDays } from './periods.js';
import { BILLING, type BillingDeps } from './deps.js';
import { iso } from '../../../core/http/times.js';

const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/**
 * Referrals: each organization has a code (`organizations.referral_code`); an organization that
 * signs up with it (`referred_by_code`) credits its referrer once — and itself, if configured —
 * with `referral` credits. The unique `referrals.referred_org_id` makes the credit happen once
 * whichever path sees the signup first: `credit(trx, orgId)` (container `referrals`, for the
 * signup flow), the periodic sweep, or reading the referrer's referrals.
 */
export class Referrals {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
  ) {}

  /** The organization's own code, created on first use. */
  async code(db: Knex, orgId: string): Promise<string> {
    const org = await this.store.org(db, orgId);
    if (org.referral_code) return org.referral_code;
    for (let attempt = 0; attempt < 5; attempt++) {
      const bytes = randomBytes(8);
      const code = [...bytes].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
      const taken = await db('organizations').where({ referral_code: code }).first<{ id: string } | undefined>();
      if (taken) continue;
      const updated = await db('organizations')
        .where({ id: orgId })
        .whereNull('referral_code')
        .update({ referral_code: code });
      if (updated === 1) return code;
      return (await this.store.org(db, orgId)).referral_code!;
    }
    throw new Error('could not pick a free referral code');
  }

  /** Credits the referrer of `referredOrgId` (once). Returns the referral, or null when there is nothing to credit. */
  async credit(trx: Knex, referredOrgId: string): Promise<Referral | null> {
    const referred = await this.store.org(trx, referredOrgId);
    if (!referred.referred_by_code) return null;
    const referrer = (await trx('organizations')
      .select('id')
      .where({ referral_code: referred.referred_by_code })
      .first()) as { id: string } | undefined;
    if (!referrer || referrer.id === referred.id) return null;
    const now = this.d.clock();
    const inserted = (await trx('referrals')
      .insert({
        id: newId(Referral.idPrefix),
        org_id: referrer.id,
        referred_org_id: referred.id,
        code: referred.referred_by_code,
        fixes: 0,
        created_at: referred.created_at ?? now,
        updated_at: now,
      })
      .onConflict('referred_org_id')
      .ignore()
      .returning('id')) as unknown[];
    if (inserted.length === 0) return null;
    const { referrerFixes, referredFixes } = this.d.options.referral;
    const expiresAt = addDays(now, this.d.options.creditExpiryDays.referral);
    let balanceId: string | null = null;
    if (referrerFixes > 0) {
      const { balance } = await this.d.ledger.grant(trx, {
        orgId: referrer.id,
        source: 'referral',
        fixes: referrerFixes,
        reference: `referral:${referred.id}`,
        expiresAt,
        note: `referred ${referred.name}`,
      });
      balanceId = balance.id;
    }
    if (referredFixes > 0) {
      await this.d.ledger.grant(trx, {
        orgId: referred.id,
        source: 'referral',
        fixes: referredFixes,
        reference: `referred-by:${referrer.id}`,
        expiresAt,
        note: 'signed up with a referral code',
      });
    }
    await trx('referrals')
      .where({ referred_org_id: referred.id })
      .update({ fixes: referrerFixes, balance_id: balanceId, credited_at: now, updated_at: now });
    await this.d.audit.record(trx, {
      orgId: referrer.id,
      actor: BILLING,
      action: 'billing.referral_credited',
      target: { type: 'organization', id: referred.id },
      metadata: { fixes: referrerFixes },
    });
    return (
      (await Referral.query(trx).forOrg(referrer.id).where({ referred_org_id: referred.id }).limit(1).first()) ?? null
    );
  }

  /** Credits every referred organization not credited yet (all, or those of one referrer). */
  async sweep(db: Knex, referrerOrgId?: string): Promise<number> {
    const q = db('organizations as o')
      .leftJoin('referrals as r', 'r.referred_org_id', 'o.id')
      .whereNotNull('o.referred_by_code')
      .whereNull('r.id')
      .select('o.id')
      .orderBy('o.created_at')
      .limit(200);
    if (referrerOrgId) {
      const code = (await this.store.org(db, referrerOrgId)).referral_code;
      if (!code) return 0;
      q.where('o.referred_by_code', code);
    }
    const rows = (await q) as { id: string }[];
    let n = 0;
    for (const row of rows) {
      const done = await db.transaction((trx) => this.credit(trx, row.id));
      if (done) n++;
    }
    return n;
  }

  async view(db: Knex, orgId: string) {
    await this.sweep(db, orgId);
    const code = await this.code(db, orgId);
    const rows: Array<{
      id: string;
      name: string;
      signed_up_at: Date;
      fixes: number;
      credited_at: Date | null;
    }> = await db('referrals as r')
      .join('organizations as o', 'o.id', 'r.referred_org_id')
      .where('r.org_id', orgId)
      .orderBy([
        { column: 'r.created_at', order: 'desc' },
        { column: 'r.id', order: 'desc' },
      ])
      .limit(500)
      .select('r.id', 'o.name', 'o.created_at as signed_up_at', 'r.fixes', 'r.credited_at');
    return {
      code,
      url: `${this.d.publicBaseUrl}/signup?ref=${encodeURIComponent(code)}`,
      referrer_fixes: this.d.options.referral.referrerFixes,
      referred_fixes: this.d.options.referral.referredFixes,
      referred_count: rows.length,
      earned_fixes: rows.reduce((s, r) => s + Number(r.fixes), 0),
      items: rows.map((r) => ({
        id: r.id,
        organization_name: r.name,
        signed_up_at: new Date(r.signed_up_at).toISOString(),
        fixes: Number(r.fixes),
        credited_at: iso(r.credited_at),
      })),
    };
  }
}
