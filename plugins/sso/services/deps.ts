import type { Knex } from 'knex';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { ClientRequest, IdentityProvider } from '../../../core/contracts/index.js';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { PasswordHasher } from '../../../core/security/passwords.js';
import type { Role } from '../../../core/http/auth.js';
import type { SsoOptions } from '../options.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { DnsResolver } from './dns-resolver.js';

/**
 * What this plugin uses of the accounts plugin, reached through the container (never by import):
 * `planCatalog`, `authService.signIn` (opens the session, answers the AuthContext),
 * `authService.memberFor` (JIT provisioning), `sessionService.closeAllForUser`,
 * `memberService.close` (an address released to the organization that verified its domain).
 */
export type PlanCatalogPort = Pick<Cradle['planCatalog'], 'hasFeature'>;
export type AuthServicePort = Pick<Cradle['authService'], 'signIn' | 'memberFor'>;
export type SessionServicePort = Pick<Cradle['sessionService'], 'closeAllForUser'>;
export type MemberServicePort = Pick<Cradle['memberService'], 'close'>;
/** The accounts plugin's counter of failed password checks. */
export type LoginThrottlePort = Pick<Cradle['loginThrottle'], 'admit' | 'failed' | 'succeeded'>;

/** A user as the accounts plugin stores it. */
export type UserRow = NonNullable<Awaited<ReturnType<AuthServicePort['memberFor']>>>['user'];

export interface OrgRow {
  id: string;
  name: string;
  plan: string;
  sso_enforced: boolean;
  approval_min_approvers: number;
  approval_roles: Role[] | string;
  locale: string;
}

/** The request parts a sign-in records (the client address follows core's one trust rule). */
export type RequestLike = ClientRequest;

export interface SsoDeps {
  db: Knex;
  config: AppConfig;
  secretBox: SecretBox;
  audit: AuditWriter;
  outbox: Outbox;
  rateLimiter: RateLimiter;
  passwords: PasswordHasher;
  identityProviders: IdentityProvider[];
  ssoOptions: SsoOptions;
  dnsResolver: DnsResolver;
  planCatalog: PlanCatalogPort;
  authService: AuthServicePort;
  sessionService: SessionServicePort;
  memberService: MemberServicePort;
  loginThrottle: LoginThrottlePort;
}

export const base = (config: AppConfig): string => config.server.publicBaseUrl.replace(/\/+$/, '');

export function rolesOf(org: OrgRow): Role[] {
  const r = typeof org.approval_roles === 'string' ? (JSON.parse(org.approval_roles) as Role[]) : org.approval_roles;
  return Array.isArray(r) ? r : [];
}

export async function loadOrg(db: Knex, orgId: string): Promise<OrgRow> {
  const org = (await db('organizations').where({ id: orgId }).first()) as OrgRow | undefined;
  if (!org) throw new Error(`organization ${orgId} is missing`);
  return org;
}

export const hasPlanFeature = (
  d: Pick<SsoDeps, 'planCatalog'>,
  org: OrgRow,
  feature: 'sso' | 'approval_governance',
): boolean => d.planCatalog.hasFeature(org.plan, feature);

/** The email's domain, lower-case. */
export const emailDomain = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();
