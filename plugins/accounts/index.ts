import { asClass, asFunction, asValue } from 'awilix';
import { definePlugin } from '../../core/kernel/plugin.js';
import { SESSION_COOKIE } from '../../core/http/auth.js';
import type { Cradle } from '../../core/kernel/cradle.js';
import { accountsOptionsSchema, type AccountsOptions } from './options.js';
import { PlanCatalog } from './plans.js';
import { accountSchemas } from './schemas.js';
import { ACCOUNT_TEMPLATES } from './templates.js';
import { AccountMail } from './services/account-mail.js';
import { Credentials } from './services/access.js';
import { AuthContextBuilder } from './services/auth-context.js';
import { CredentialCache } from './services/credential-cache.js';
import { AuthService } from './services/auth-service.js';
import { EmailLinkService } from './services/email-link-service.js';
import { EmailTokens } from './services/email-tokens.js';
import { InvitationService } from './services/invitation-service.js';
import { LoginThrottle } from './services/login-throttle.js';
import { MeService } from './services/me-service.js';
import { MemberService } from './services/member-service.js';
import { OrgService } from './services/org-service.js';
import { SessionService } from './services/session-service.js';
import { TokenService } from './services/token-service.js';
import { apiTokenResolver, sessionResolver } from './auth/resolvers.js';
import { authRoutes } from './routes/auth.js';
import { meRoutes } from './routes/me.js';
import { orgRoutes } from './routes/orgs.js';
import { memberRoutes } from './routes/members.js';
import { invitationRoutes } from './routes/invitations.js';
import { tokenRoutes } from './routes/tokens.js';

const DAY = 86_400_000;

/**
 * Accounts and access: sign-in flows, sessions, the AuthContext, organizations, members,
 * invitations and API tokens. See docs/accounts.md.
 *
 * Container entries for other plugins: `sessionService` (open a session: code-host sign-in,
 * single sign-on), `authContextBuilder` (the one AuthContext builder), `accountSchemas` (the
 * shared joi shapes), `planCatalog`, `authService.findByEmail`, `memberService`, `loginThrottle`
 * (failed password checks: single sign-on's break-glass sign-in counts with the password sign-in).
 */
export default definePlugin<AccountsOptions>({
  name: 'accounts',
  version: '1.0.0',
  requires: ['mail'],
  options: accountsOptionsSchema,
  register(ctx) {
    ctx.provide({
      accountsOptions: asValue(ctx.options),
      planCatalog: asValue(new PlanCatalog()),
      accountSchemas: asValue(accountSchemas),
      accountMail: asFunction(
        ({ mailer, config }: Cradle) => new AccountMail(mailer, config.server.publicBaseUrl),
      ).singleton(),
      emailTokens: asClass(EmailTokens).singleton(),
      // Behind a transaction pooler LISTEN reaches no session: no cache, rather than a stale one.
      credentialCache: asValue(
        new CredentialCache(
          ctx.config.database.transactionPooler
            ? { ...ctx.options.credentialCache, ttlSeconds: 0 }
            : ctx.options.credentialCache,
          !!ctx.config.database.url,
        ),
      ),
      credentials: asClass(Credentials).singleton(),
      sessionService: asClass(SessionService).singleton(),
      authContextBuilder: asClass(AuthContextBuilder).singleton(),
      authService: asClass(AuthService).singleton(),
      emailLinkService: asClass(EmailLinkService).singleton(),
      loginThrottle: asClass(LoginThrottle).singleton(),
      tokenService: asClass(TokenService).singleton(),
      memberService: asClass(MemberService).singleton(),
      invitationService: asClass(InvitationService).singleton(),
      orgService: asClass(OrgService).singleton(),
      meService: asClass(MeService).singleton(),
    });

    const cradle = ctx.container.cradle;
    cradle.mailer.registerTemplates(ACCOUNT_TEMPLATES);

    // This process's credential writes empty the cache as they are issued; other processes' changes
    // arrive over LISTEN (Postgres; the cache stays off there until it listens).
    cradle.credentialCache.watch(cradle.db);
    if (ctx.config.database.url && ctx.roles.has('api')) {
      const url = ctx.config.database.url;
      ctx.onStart(() => cradle.credentialCache.follow(url, ctx.log));
      ctx.onStop(() => cradle.credentialCache.stop());
    }

    ctx.server.state(SESSION_COOKIE, {
      ttl: ctx.options.session.absoluteMinutes * 60_000,
      isSecure: ctx.config.server.publicBaseUrl.startsWith('https:'),
      isHttpOnly: true,
      isSameSite: 'Lax',
      path: '/',
      encoding: 'none',
      strictHeader: true,
      ignoreErrors: true,
      clearInvalid: false,
    });

    // An explicit Authorization header wins over a cookie the browser happens to send.
    cradle.authResolvers.push(apiTokenResolver(cradle), sessionResolver(cradle));

    ctx.routes([
      ...authRoutes(ctx.config),
      ...meRoutes(),
      ...orgRoutes(),
      ...memberRoutes(),
      ...invitationRoutes(),
      ...tokenRoutes(),
    ]);

    // Ended sessions and used or expired one-time links are kept 30 days (for support), then deleted.
    ctx.schedule('purge-expired-credentials', { everyMs: 6 * 60 * 60_000 }, async () => {
      const db = cradle.db;
      const before = new Date(Date.now() - 30 * DAY);
      await db('sessions')
        .where('absolute_expires_at', '<', before)
        .orWhere('revoked_at', '<', before)
        .orWhere('idle_expires_at', '<', before)
        .delete();
      await db('email_tokens').where('expires_at', '<', before).delete();
    });
  },
});
