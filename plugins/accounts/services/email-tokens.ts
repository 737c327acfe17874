import type { Knex } from 'knex';
import { httpError } from '../../../core/http/errors.js';
import { hashToken, newToken } from '../../../core/security/tokens.js';
import { EmailTokenModel, type EmailTokenPurpose, type UserModel } from '../models.js';

const MINUTE = 60_000;

/** Lifetimes of emailed one-time tokens. Invitations (7 days) live in their own table. */
export const EMAIL_TOKEN_TTL_MS: Record<EmailTokenPurpose, number> = {
  magic_link: 15 * MINUTE,
  password_reset: 30 * MINUTE,
  verify_email: 48 * 60 * MINUTE,
};

const PREFIX: Record<EmailTokenPurpose, string> = { magic_link: 'pwm', password_reset: 'pwr', verify_email: 'pwv' };

export type TokenProblem = 'unknown' | 'used' | 'expired' | 'revoked';

/** 400 invalid_token: the link is unknown, used, expired or revoked (details.reason says which). */
export const invalidToken = (reason: TokenProblem) =>
  httpError(
    400,
    'invalid_token',
    reason === 'expired'
      ? 'This link has expired; ask for a new one'
      : 'This link is not valid (any more); ask for a new one',
    { reason },
  );

/** Single-use, short-lived tokens sent by email; only their SHA-256 is stored. */
export class EmailTokens {
  async issue(
    trx: Knex,
    user: UserModel,
    purpose: EmailTokenPurpose,
    opts: { redirectTo?: string | null } = {},
  ): Promise<string> {
    const { token, hash } = newToken(PREFIX[purpose]);
    await EmailTokenModel.query(trx).insert({
      org_id: user.org_id,
      user_id: user.id,
      purpose,
      email: user.email,
      token_hash: hash,
      redirect_to: opts.redirectTo ?? null,
      expires_at: new Date(Date.now() + EMAIL_TOKEN_TTL_MS[purpose]),
    });
    return token;
  }

  /** The live token row (locked in `trx`), or 400 invalid_token. Does not use it up. */
  async find(trx: Knex, token: string, purpose: EmailTokenPurpose): Promise<EmailTokenModel> {
    if (!token.startsWith(`${PREFIX[purpose]}_`)) throw invalidToken('unknown');
    const row = await EmailTokenModel.query(trx)
      .acrossOrgs('one-time token lookup by hash')
      .where({ token_hash: hashToken(token), purpose })
      .forUpdate()
      .limit(1)
      .first();
    if (!row) throw invalidToken('unknown');
    if (row.used_at) throw invalidToken('used');
    if (new Date(row.expires_at).getTime() <= Date.now()) throw invalidToken('expired');
    return row;
  }

  async markUsed(trx: Knex, row: EmailTokenModel): Promise<void> {
    await EmailTokenModel.query(trx).forOrg(row.org_id).findById(row.id).patch({ used_at: new Date() });
  }

  /** find + markUsed. */
  async consume(trx: Knex, token: string, purpose: EmailTokenPurpose): Promise<EmailTokenModel> {
    const row = await this.find(trx, token, purpose);
    await this.markUsed(trx, row);
    return row;
  }

  /** Uses up every outstanding token of a purpose for a user (after a reset, an email change). */
  async revokeAll(trx: Knex, user: { id: string; org_id: string }, purposes: EmailTokenPurpose[]): Promise<void> {
    await EmailTokenModel.query(trx)
      .forOrg(user.org_id)
      .where('user_id', user.id)
      .whereIn('purpose', purposes)
      .whereNull('used_at')
      .patch({ used_at: new Date() });
  }
}
