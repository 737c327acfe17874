import { asClass, asValue } from 'awilix';
import { definePlugin } from '../../core/kernel/plugin.js';
import { ssoOptionsSchema, type SsoOptions } from './options.js';
import { authSsoRoutes } from './routes/auth-sso.js';
import { securityRoutes } from './routes/security.js';
import { BROWSER_COOKIE } from './routes/common.js';
import { ConnectionService } from './services/connections.js';
import { DnsResolver } from './services/dns-resolver.js';
import { DomainService } from './services/domains.js';
import { EnforcementService } from './services/enforcement.js';
import { ApprovalGovernance } from './services/governance.js';
import { SignInService } from './services/sign-in.js';

/**
 * Single sign-on (OIDC, SAML) and approval governance: the `sso and security` section. See
 * docs/sso.md. Password sign-in refusal for enforced organizations lives in accounts, which reads
 * `organizations.sso_enforced`; this plugin sets it.
 *
 * Container entries for other plugins: `approvalGovernance` (the fix loop's approval policy),
 * `dnsResolver` (TXT lookups), `ssoConnections`, `ssoDomains`, `ssoEnforcement`, `ssoSignIn`.
 */
export default definePlugin<SsoOptions>({
  name: 'sso',
  version: '1.0.0',
  requires: ['accounts'],
  uses: ['identity'],
  options: ssoOptionsSchema,
  register(ctx) {
    ctx.provide({
      ssoOptions: asValue(ctx.options),
      dnsResolver: asClass(DnsResolver).singleton(),
      ssoDomains: asClass(DomainService).singleton(),
      ssoConnections: asClass(ConnectionService).singleton(),
      ssoEnforcement: asClass(EnforcementService).singleton(),
      ssoSignIn: asClass(SignInService).singleton(),
      approvalGovernance: asClass(ApprovalGovernance).singleton(),
    });

    // Binds a started sign-in to the browser that started it; read back by the callback steps only.
    ctx.server.state(BROWSER_COOKIE, {
      ttl: ctx.options.signInTtlMinutes * 60_000,
      isSecure: ctx.config.server.publicBaseUrl.startsWith('https:'),
      isHttpOnly: true,
      isSameSite: 'Lax',
      path: '/v1/auth/sso',
      encoding: 'none',
      strictHeader: true,
      ignoreErrors: true,
      clearInvalid: true,
    });

    const cradle = ctx.container.cradle;
    ctx.routes([...authSsoRoutes(cradle.accountSchemas.AuthContext), ...securityRoutes(cradle.accountSchemas.Ok)]);

    // Finished or abandoned sign-ins and assertion ids past their validity.
    ctx.schedule('purge-sign-ins', { everyMs: 60 * 60_000 }, async () => {
      const db = cradle.db;
      const before = new Date(Date.now() - 24 * 60 * 60_000);
      await db('sso_sign_ins').where('expires_at', '<', before).delete();
      await db('sso_assertions')
        .where('expires_at', '<', new Date(Date.now() - 60 * 60_000))
        .delete();
    });
  },
});
