/**
 * What the code-host services use: the core's container entries, the active CodeHost, and the
 * other plugins' services, named by the small structural interfaces below (a plugin reaches
 * another only through the container). Optional services are looked up at each use, so a plugin
 * that registers later (tickets, billing) is picked up.
 */
import type { Request, ServerRoute } from '@hapi/hapi';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { CodeHost, Installation, RequestDetails } from '../../../core/contracts/index.js';
import type { Db } from '../../../core/data/db.js';
import type { Principal } from '../../../core/http/auth.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { CodehostOptions } from '../options.js';

/** The workspace fields this plugin reads. */
export interface WorkspaceLike {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  locale: string;
  test_command: string | null;
  execution_mode: string;
  runner_transport: string | null;
  oss_auto_close_issues: boolean;
  oss_comments_per_hour: number;
  archived_at: Date | null;
}

/** `workspaceService` of the workspaces plugin. */
export interface WorkspaceReader {
  get(orgId: string, id: string, trx?: Knex): Promise<WorkspaceLike>;
  open(principal: Principal, id: string, trx?: Knex): Promise<WorkspaceLike>;
  update(
    principal: Principal,
    id: string,
    input: Record<string, unknown>,
    from: RequestDetails,
  ): Promise<WorkspaceLike>;
}

/** `planLimits` of the billing plugin (optional). */
export interface PlanLimitsLike {
  assert(trx: Knex, orgId: string, limit: string, context: Record<string, unknown>): Promise<unknown>;
  check?(trx: Knex, orgId: string, limit: string, context: Record<string, unknown>): Promise<{ ok: boolean }>;
}

/** `ticketService` of the tickets plugin (optional): intake and reads. */
export type TicketIntake = Pick<Cradle['ticketService'], 'createTicket' | 'addInboundMessage' | 'detail'>;

/** The user row fields a session needs (`sessionService.open` takes the accounts user model). */
export interface SessionUser {
  id: string;
  org_id: string;
  last_login_at: Date | null;
}

/** `sessionService` of the accounts plugin. */
export interface SessionOpener {
  open(trx: Knex, user: SessionUser, opts: { sso: boolean; request?: Request | null }): Promise<{ token: string }>;
  closeByToken(db: Knex, token: string | null | undefined, reason: string): Promise<void>;
}

/** `authService` of the accounts plugin: the writes to a member's account that code-host sign-in needs. */
export interface AccountUsers {
  setCodeHostLogin(trx: Knex, user: { id: string; org_id: string }, login: string): Promise<void>;
}

/** codehost-local's extras, found by shape: the built-in installation and its pages. */
export interface BuiltinInstallations {
  builtinInstallation(accountLogin: string, pending?: { state: string; setupUrl: string }): Promise<Installation>;
}
export interface HostPages {
  pageRoutes(access: {
    canView(request: Request, fullName: string): Promise<boolean>;
    canReadFiles?(request: Request, fullName: string): Promise<boolean>;
  }): ServerRoute[];
}
export interface SignInAvailability {
  readonly signInAvailable: boolean;
}

export const hasBuiltinInstallations = (h: unknown): h is BuiltinInstallations =>
  typeof (h as BuiltinInstallations)?.builtinInstallation === 'function';
export const hasPages = (h: unknown): h is HostPages => typeof (h as HostPages)?.pageRoutes === 'function';

export interface CodehostDeps {
  db: Db;
  outbox: Outbox;
  audit: AuditWriter;
  secretBox: SecretBox;
  rateLimiter: RateLimiter;
  config: AppConfig;
  log: Logger;
  host: CodeHost;
  options: CodehostOptions;
  workspaces: () => WorkspaceReader;
  planLimits: () => PlanLimitsLike | null;
  tickets: () => TicketIntake | null;
  sessions: () => SessionOpener | null;
  accounts: () => AccountUsers | null;
  /** Where the code-index git caches live. */
  cacheDir: () => Promise<string>;
}

export const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);
