import { randomBytes } from 'node:crypto';
import {
  AdapterError,
  pkceChallenge,
  safeEqual,
  type AuthorizeInput,
  type CodeHostUser,
  type ExchangeInput,
} from '../../core/contracts/index.js';
import { hash, type LocalHostContext, type LocalUser } from './options.js';

const CODE_TTL_MS = 10 * 60_000;

/** Sign-in through the local host: an OAuth-like authorize page with configured accounts, PKCE codes exchanged once. */
export class LocalSignIn {
  constructor(private readonly ctx: LocalHostContext) {}

  authorizeUrl(input: AuthorizeInput): string {
    const q = new URLSearchParams({
      client_id: 'patchwell',
      redirect_uri: input.redirectUri,
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    });
    return `${this.ctx.publicUrl}/codehost/local/login/oauth/authorize?${q}`;
  }

  /**
   * The local sign-in page's check: a configured account's password, then a single-use code for
   * the redirect. Null for a wrong login or password.
   */
  async authorizeWithPassword(input: {
    login: string;
    password: string;
    codeChallenge: string;
    redirectUri: string;
  }): Promise<string | null> {
    let match: LocalUser | null = null;
    for (const u of this.ctx.options.users) {
      const sameLogin = u.login.toLowerCase() === input.login.toLowerCase();
      const samePassword = safeEqual(hash(u.password), hash(input.password));
      if (sameLogin && samePassword) match = u;
    }
    if (!match) return null;
    const code = randomBytes(24).toString('base64url');
    await this.ctx.db('codehost_local_oauth_codes').insert({
      code_hash: hash(code),
      login: match.login,
      email: match.email ?? null,
      code_challenge: input.codeChallenge,
      redirect_uri: input.redirectUri,
      expires_at: new Date(Date.now() + CODE_TTL_MS),
    });
    return code;
  }

  async exchangeCode(input: ExchangeInput): Promise<CodeHostUser> {
    const used = await this.ctx
      .db('codehost_local_oauth_codes')
      .where({ code_hash: hash(input.code) })
      .whereNull('used_at')
      .where('expires_at', '>', new Date())
      .update({ used_at: new Date() })
      .returning(['login', 'email', 'code_challenge', 'redirect_uri']);
    const row = used[0] as
      { login: string; email: string | null; code_challenge: string; redirect_uri: string } | undefined;
    if (!row) throw new AdapterError('invalid_grant', 'the code is unknown, used or expired');
    if (row.redirect_uri !== input.redirectUri || !safeEqual(row.code_challenge, pkceChallenge(input.codeVerifier))) {
      throw new AdapterError('invalid_grant', 'the code verifier or redirect URI does not match');
    }
    return { login: row.login, email: row.email, token: `lut_${randomBytes(24).toString('base64url')}` };
  }
}
