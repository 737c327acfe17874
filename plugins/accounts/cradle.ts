import type { AccountsOptions } from './options.js';
import type { PlanCatalogPort } from './plans.js';
import type { accountSchemas } from './schemas.js';
import type { AccountMail } from './services/account-mail.js';
import type { Credentials, FoundCredential } from './services/access.js';
import type { AuthContextBuilder } from './services/auth-context.js';
import type { AuthService } from './services/auth-service.js';
import type { CredentialCache } from './services/credential-cache.js';
import type { EmailLinkService } from './services/email-link-service.js';
import type { EmailTokens } from './services/email-tokens.js';
import type { InvitationService } from './services/invitation-service.js';
import type { LoginThrottle } from './services/login-throttle.js';
import type { MeService } from './services/me-service.js';
import type { MemberService } from './services/member-service.js';
import type { OrgService } from './services/org-service.js';
import type { SessionService } from './services/session-service.js';
import type { TokenService } from './services/token-service.js';

/** What the accounts plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    accountsOptions: AccountsOptions;
    /** The billing plugin, when on, registers its catalogue (its configured numbers) over this one. */
    planCatalog: PlanCatalogPort;
    accountSchemas: typeof accountSchemas;
    accountMail: AccountMail;
    emailTokens: EmailTokens;
    credentialCache: CredentialCache<FoundCredential>;
    credentials: Credentials;
    sessionService: SessionService;
    authContextBuilder: AuthContextBuilder;
    authService: AuthService;
    emailLinkService: EmailLinkService;
    loginThrottle: LoginThrottle;
    tokenService: TokenService;
    memberService: MemberService;
    invitationService: InvitationService;
    orgService: OrgService;
    meService: MeService;
  }
}
