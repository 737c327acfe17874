import type { Knex } from 'knex';
import { requestDetails, userActor } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, httpError } from '../../../core/http/errors.js';
import { hashToken } from '../../../core/security/tokens.js';
import { OrganizationModel, UserModel } from '../models.js';
import { assertPasswordSignIn, callerIp, type AuthService, type CallInfo, type SignedIn } from './auth-service.js';
import type { AccountsDeps } from './deps.js';

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sign-in and account flows through an emailed link: magic link, password reset, email
 * verification. Requests answer alike whether or not the address has an account; following a
 * link signs in through AuthService.
 */
export class EmailLinkService {
  constructor(private readonly d: AccountsDeps & { authService: AuthService }) {}

  /** Same answer and similar time whether or not the address has an account. */
  async requestMagicLink(email: string, redirectTo: string | null, call: CallInfo): Promise<void> {
    await this.uniformly(call, email, async () => {
      const user = await this.mailableUser(email);
      if (!user) return;
      await this.d.db.transaction(async (trx) => {
        const token = await this.d.emailTokens.issue(trx, user, 'magic_link', { redirectTo });
        const link = this.d.accountMail.link('/magic-link', { token, redirect_to: redirectTo });
        await this.d.accountMail.send(trx, user.org_id, 'accounts.magic_link', user.email, user.locale, {
          name: user.name,
          link,
        });
      });
    });
  }

  async requestPasswordReset(email: string, call: CallInfo): Promise<void> {
    await this.uniformly(call, email, async () => {
      const user = await this.mailableUser(email);
      if (!user) return;
      await this.d.db.transaction(async (trx) => {
        const token = await this.d.emailTokens.issue(trx, user, 'password_reset');
        const link = this.d.accountMail.link('/reset-password', { token });
        await this.d.accountMail.send(trx, user.org_id, 'accounts.password_reset', user.email, user.locale, {
          name: user.name,
          link,
        });
      });
    });
  }

  private async mailableUser(email: string): Promise<UserModel | null> {
    const user = await this.d.authService.findByEmail(this.d.db, email);
    if (!user || user.disabled_at) return null;
    const org = await OrganizationModel.query(this.d.db).findById(user.org_id);
    return org && !org.sso_enforced ? user : null;
  }

  /** Throttles per address and client, runs `work`, then waits out the uniform answer time. */
  private async uniformly(call: CallInfo, email: string, work: () => Promise<void>): Promise<void> {
    const started = Date.now();
    const { throttle, uniformAnswerMs } = this.d.accountsOptions;
    await this.d.rateLimiter.consume(
      `mail:ip:${callerIp(call.request, this.d.config.server.trustProxy)}`,
      throttle.mailPerIp,
      this.d.accountsOptions.throttle.windowMinutes * MINUTE,
      'Too many requests from this address; retry later',
    );
    await this.d.rateLimiter.consume(
      `mail:addr:${hashToken(email.toLowerCase())}`,
      throttle.mailPerAddress,
      this.d.accountsOptions.throttle.windowMinutes * MINUTE,
      'Too many emails asked for this address; retry later',
    );
    await work();
    const left = uniformAnswerMs - (Date.now() - started);
    if (left > 0) await sleep(left);
  }

  async verifyMagicLink(token: string, call: CallInfo): Promise<SignedIn> {
    return this.d.db.transaction(async (trx) => {
      const row = await this.d.emailTokens.find(trx, token, 'magic_link');
      const user = await this.tokenUser(trx, row);
      await assertPasswordSignIn(trx, user);
      await this.d.emailTokens.markUsed(trx, row);
      await this.markVerified(trx, user);
      return this.d.authService.signIn(trx, user, call);
    });
  }

  async confirmPasswordReset(token: string, password: string, call: CallInfo): Promise<SignedIn> {
    const passwordHash = await this.d.passwords.hash(password);
    return this.d.db.transaction(async (trx) => {
      const row = await this.d.emailTokens.find(trx, token, 'password_reset');
      const user = await this.tokenUser(trx, row);
      await assertPasswordSignIn(trx, user);
      await this.d.emailTokens.markUsed(trx, row);
      await this.d.emailTokens.revokeAll(trx, user, ['password_reset', 'magic_link']);
      await UserModel.query(trx).forOrg(user.org_id).findById(user.id).patch({ password_hash: passwordHash });
      await this.markVerified(trx, user);
      await this.d.sessionService.closeAllForUser(trx, user, 'password_reset');
      await this.d.audit.record(trx, {
        actor: userActor(user, requestDetails(call.request, this.d.config.server.trustProxy)),
        action: 'user.password_reset',
        target: { type: 'user', id: user.id },
      });
      return this.d.authService.signIn(trx, user, call);
    });
  }

  /**
   * Confirms the address. Signs in only when nobody is signed in; the same user keeps their
   * session (token null); someone else signed in gets 409 signed_in_as_other_user, and the link
   * stays usable.
   */
  async verifyEmail(token: string, principal: Principal | null, call: CallInfo): Promise<SignedIn> {
    return this.d.db.transaction(async (trx) => {
      const row = await this.d.emailTokens.find(trx, token, 'verify_email');
      const user = await this.tokenUser(trx, row);
      if (principal && principal.userId !== user.id) {
        throw conflict(
          'signed_in_as_other_user',
          'You are signed in as someone else; sign out, then open the link again',
        );
      }
      if (!principal) await assertPasswordSignIn(trx, user);
      await this.d.emailTokens.markUsed(trx, row);
      await this.markVerified(trx, user);
      if (principal) return { context: await this.d.authContextBuilder.forPrincipal(principal, trx), token: null };
      return this.d.authService.signIn(trx, user, call);
    });
  }

  /** Emails a new verification link; nothing is sent for a verified address. */
  async resendVerification(principal: Principal): Promise<void> {
    if (!principal.userId) throw forbidden('Only a person can verify an email address');
    await this.d.rateLimiter.consume(
      `verify-resend:user:${principal.userId}`,
      this.d.accountsOptions.throttle.resendPerUser,
      60 * MINUTE,
      'Too many verification emails; retry later',
    );
    const user = await UserModel.query(this.d.db).forOrg(principal.orgId).findById(principal.userId);
    if (!user || user.email_verified_at) return;
    await this.d.db.transaction((trx) => this.sendVerification(trx, user));
  }

  async sendVerification(trx: Knex, user: UserModel): Promise<void> {
    const token = await this.d.emailTokens.issue(trx, user, 'verify_email');
    const link = this.d.accountMail.link('/verify-email', { token });
    await this.d.accountMail.send(trx, user.org_id, 'accounts.verify_email', user.email, user.locale, {
      name: user.name,
      link,
    });
  }

  /** The token's user, still active and still at the address the token was sent to. */
  private async tokenUser(trx: Knex, row: { org_id: string; user_id: string; email: string }): Promise<UserModel> {
    const user = await UserModel.query(trx).forOrg(row.org_id).findById(row.user_id);
    if (!user || user.removed_at || user.email !== row.email)
      throw httpError(400, 'invalid_token', 'This link is not valid (any more); ask for a new one', {
        reason: 'revoked',
      });
    if (user.disabled_at)
      throw httpError(403, 'account_disabled', 'This account is disabled; ask an administrator of your organization');
    return user;
  }

  /** An emailed link proves the address. */
  private async markVerified(trx: Knex, user: UserModel): Promise<void> {
    if (user.email_verified_at) return;
    const now = new Date();
    await UserModel.query(trx).forOrg(user.org_id).findById(user.id).patch({ email_verified_at: now });
    user.email_verified_at = now;
  }
}
