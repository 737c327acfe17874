import type { SsoOptions } from './options.js';
import type { ConnectionService } from './services/connections.js';
import type { DnsResolver } from './services/dns-resolver.js';
import type { DomainService } from './services/domains.js';
import type { EnforcementService } from './services/enforcement.js';
import type { ApprovalGovernance } from './services/governance.js';
import type { SignInService } from './services/sign-in.js';

/** What the sso plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    ssoOptions: SsoOptions;
    dnsResolver: DnsResolver;
    ssoDomains: DomainService;
    ssoConnections: ConnectionService;
    ssoEnforcement: EnforcementService;
    ssoSignIn: SignInService;
    approvalGovernance: ApprovalGovernance;
  }
}
