import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { hashToken, newToken } from '../../../core/security/tokens.js';

export type StatePurpose = 'install' | 'signin' | 'link';

export interface StateRow {
  id: string;
  purpose: StatePurpose;
  org_id: string | null;
  user_id: string | null;
  browser_hash: string | null;
  verifier_sealed: string | null;
  redirect_to: string | null;
  expires_at: Date;
  used_at: Date | null;
}

/**
 * Single-use states of the install and sign-in flows: a 256-bit token, stored as its SHA-256,
 * consumed atomically (a second use finds nothing).
 */
export class StateStore {
  constructor(private readonly db: Knex) {}

  async create(
    trx: Knex | null,
    purpose: StatePurpose,
    ttlMinutes: number,
    fields: Partial<Omit<StateRow, 'id' | 'purpose' | 'expires_at' | 'used_at'>>,
  ): Promise<{ state: string; expiresAt: Date }> {
    const { token, hash } = newToken(purpose === 'install' ? 'chs' : 'chl');
    const expiresAt = new Date(Date.now() + ttlMinutes * 60_000);
    await (trx ?? this.db)('codehost_states').insert({
      id: newId('chst'),
      purpose,
      state_hash: hash,
      expires_at: expiresAt,
      ...fields,
    });
    return { state: token, expiresAt };
  }

  /** Marks the state used and returns it; null for unknown, used, expired or another purpose. */
  async consume(trx: Knex | null, state: string, purposes: StatePurpose[]): Promise<StateRow | null> {
    if (!state || state.length > 200) return null;
    const rows = (await (trx ?? this.db)('codehost_states')
      .where({ state_hash: hashToken(state) })
      .whereIn('purpose', purposes)
      .whereNull('used_at')
      .where('expires_at', '>', new Date())
      .update({ used_at: new Date() })
      .returning('*')) as StateRow[];
    return rows[0] ?? null;
  }

  /** Deletes states that expired a day ago (scheduled). */
  async purge(): Promise<number> {
    return this.db('codehost_states')
      .where('expires_at', '<', new Date(Date.now() - 86_400_000))
      .delete();
  }
}
