import type { Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, httpError, rateLimited, unauthenticated } from '../../../core/http/errors.js';
import { UserModel } from '../models.js';
import type { AuthContextJson } from './auth-context.js';
import type { AuthService } from './auth-service.js';
import type { EmailLinkService } from './email-link-service.js';
import type { AccountsDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { invalidField } from './access.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

export interface UpdateMeInput {
  name?: string;
  locale?: 'en' | 'it';
  email?: string;
  password?: string;
  current_password?: string;
}

/**
 * The caller's own profile: name and locale freely; email and password with the current
 * password (sessions only). A new password closes the other sessions; a new address must be
 * verified again, and the old one is told.
 */
export class MeService {
  constructor(private readonly d: AccountsDeps & { authService: AuthService; emailLinkService: EmailLinkService }) {}

  async update(principal: Principal, input: UpdateMeInput, actor: SignedInActor): Promise<AuthContextJson> {
    if (!principal.userId) throw unauthenticated();
    const user = await UserModel.query(this.d.db).forOrg(principal.orgId).findById(principal.userId);
    if (!user) throw unauthenticated();
    const newEmail = input.email && input.email.toLowerCase() !== user.email ? input.email.toLowerCase() : null;
    const sensitive = !!newEmail || !!input.password;
    if (sensitive && principal.kind !== 'session')
      throw forbidden('Changing email or password needs a signed-in session, not an API token');
    if (sensitive && user.password_hash) await this.checkCurrentPassword(user, input.current_password);
    if (newEmail && (await this.d.authService.findByEmail(this.d.db, newEmail)))
      throw conflict('email_taken', 'Another account uses this email address');
    const passwordHash = input.password ? await this.d.passwords.hash(input.password) : null;

    return this.d.db
      .transaction(async (trx) => {
        const patch: Partial<UserModel> = {};
        if (input.name !== undefined) patch.name = input.name;
        if (input.locale !== undefined) patch.locale = input.locale;
        if (newEmail) Object.assign(patch, { email: newEmail, email_verified_at: null });
        if (passwordHash) patch.password_hash = passwordHash;
        if (Object.keys(patch).length) await UserModel.query(trx).forOrg(user.org_id).findById(user.id).patch(patch);
        const fresh = (await UserModel.query(trx).forOrg(user.org_id).findById(user.id))!;
        const who = { orgId: user.org_id, actor, target: { type: 'user', id: user.id } };
        const link = this.d.accountMail.link('/forgot-password', {});
        if (passwordHash) {
          await this.d.sessionService.closeAllForUser(trx, user, 'password_changed', principal.sessionId);
          await this.d.emailTokens.revokeAll(trx, user, ['password_reset']);
          await this.d.accountMail.send(trx, user.org_id, 'accounts.password_changed', fresh.email, fresh.locale, {
            name: fresh.name,
            link,
          });
          await this.d.audit.record(trx, { ...who, action: 'user.password_changed' });
        }
        if (newEmail) {
          await this.d.emailTokens.revokeAll(trx, user, ['magic_link', 'password_reset', 'verify_email']);
          await this.d.emailLinkService.sendVerification(trx, fresh);
          await this.d.accountMail.send(trx, user.org_id, 'accounts.email_changed', user.email, fresh.locale, {
            name: fresh.name,
            new_email: newEmail,
          });
          await this.d.audit.record(trx, {
            ...who,
            action: 'user.email_changed',
            changes: { email: { before: user.email, after: newEmail } },
          });
        }
        if (input.name !== undefined && input.name !== user.name) {
          await this.d.audit.record(trx, {
            ...who,
            action: 'user.updated',
            changes: { name: { before: user.name, after: input.name } },
          });
        }
        return this.d.authContextBuilder.forPrincipal(principal, trx);
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) throw conflict('email_taken', 'Another account uses this email address');
        throw err;
      });
  }

  /** The current password, throttled like sign-in so a borrowed session cannot guess it. */
  private async checkCurrentPassword(user: UserModel, current: string | undefined): Promise<void> {
    if (!current)
      throw invalidField('payload.current_password', 'current_password is required to change email or password');
    const { throttle } = this.d.accountsOptions;
    // Per account: a session that guesses harms only itself (sign-in throttles are per address and client).
    const key = `password-check:user:${user.id}`;
    const window = throttle.windowMinutes * 60_000;
    const peek = await this.d.rateLimiter.peek(key, throttle.loginPerAddressAndIp, window);
    if (!peek.allowed) throw rateLimited(peek.retryAfterSeconds, 'Too many wrong passwords; retry later');
    if (!(await this.d.passwords.verify(current, user.password_hash))) {
      await this.d.rateLimiter.hit(key, throttle.loginPerAddressAndIp, window);
      throw httpError(400, 'invalid_current_password', 'The current password is wrong', {
        errors: [{ path: 'payload.current_password', message: 'wrong password' }],
      });
    }
  }
}
