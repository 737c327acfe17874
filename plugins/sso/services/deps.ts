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
import type { DnsResolver } from './dns-resolver.js';

/**
 * What this plugin uses of the accounts plugin, reached through the container (never by import):
 * `planCatalog`, `authService.signIn` (opens the session, answers the AuthContext),
 * `authService.memberFor` (JIT provisioning), `sessionService.closeAllForUser`,
 * `memberService.close` (an address released to the organization that verified its domain).
 */
export interface UserRow {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string | null;
  email_verified_at: Date | null;
  disabled_at: Date | null;
  removed_at: Date | null;
  staff: boolean;
  locale: string;
  created_at: Date;
  updated_at: Date;
  [key: string]: unknown;
}

export interface OrgRow {
  id: string;
  name: string;
  plan: string;
  sso_enforced: boolean;
  approval_min_approvers: number;
  approval_roles: Role[] | string;
  locale: string;
}

export interface PlanCatalogPort {
  hasFeature(planId: string | null | undefined, feature: never): boolean;
}

/** The request parts a sign-in records (the client address follows core's one trust rule). */
export type RequestLike = ClientRequest;

export interface AuthServicePort {
  signIn(
    trx: Knex,
    user: never,
    call: { request: RequestLike; currentCookie: string | null },
    sso?: boolean,
  ): Promise<{ context: Record<string, unknown>; token: string | null }>;
  /**
   * The account of an address as a member of the organization, or (create) a new member with the
   * role, audited and announced by the accounts plugin; 409 `email_taken` when the address belongs
   * to another organization; null when there is none and create is false.
   */
  memberFor(
    trx: Knex,
    input: {
      orgId: string;
      email: string;
      name?: string | null;
      role: Role;
      emailVerified: boolean;
      create: boolean;
      via: string;
      metadata?: Record<string, unknown>;
    },
  ): Promise<{ user: UserRow; created: boolean } | null>;
}

export interface SessionServicePort {
  closeAllForUser(db: Knex, user: { id: string; org_id: string }, reason: string, exceptId?: string): Promise<void>;
}

export interface MemberServicePort {
  /** Closes the account: removed and disabled, its sessions, API tokens, emailed links and workspace grants ended. */
  close(trx: Knex, user: { id: string; org_id: string; disabled_at: Date | null }, reason: string): Promise<void>;
}

/** The accounts plugin's counter of failed password checks (plugins/accounts/services/login-throttle.ts). */
export interface LoginThrottlePort {
  /** 429 rate_limited when this client may not try a password for this address now. */
  admit(kind: string, email: string, ip: string, user: { id: string; org_id: string } | null): Promise<void>;
  failed(kind: string, email: string, ip: string): Promise<void>;
  succeeded(kind: string, email: string, ip: string): Promise<void>;
}

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

/** ISO 8601 of a timestamp column, or null. */
export function iso(v: Date | string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return (v instanceof Date ? v : new Date(v)).toISOString();
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
): boolean => d.planCatalog.hasFeature(org.plan, feature as never);

/** The email's domain, lower-case. */
export const emailDomain = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();
