/**
 * What the code-host services use: the core's container entries, the active CodeHost, and the
 * other plugins' services, as Picks of their container keys (a plugin reaches another
 * only through the container). Optional services are looked up at each use, so a plugin
 * that registers later (tickets, billing) is picked up.
 */
import type { Request, ServerRoute } from '@hapi/hapi';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { CodeHost, Installation } from '../../../core/contracts/index.js';
import type { Db } from '../../../core/data/db.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { CodehostOptions } from '../options.js';

/** `workspaceService` of the workspaces plugin. */
export type WorkspaceReader = Pick<Cradle['workspaceService'], 'get' | 'open' | 'update'>;
/** A workspace as the workspaces plugin stores it. */
export type WorkspaceLike = Awaited<ReturnType<WorkspaceReader['get']>>;

/** `planLimits` of the billing plugin (optional). */
export type PlanLimitsLike = Pick<Cradle['planLimits'], 'assert' | 'check'>;

/** `ticketService` of the tickets plugin (optional): intake and reads. */
export type TicketIntake = Pick<Cradle['ticketService'], 'createTicket' | 'addInboundMessage' | 'detail'>;

/** `sessionService` of the accounts plugin. */
export type SessionOpener = Pick<Cradle['sessionService'], 'open' | 'closeByToken'>;
/** A user as the accounts plugin stores it (`sessionService.open` takes it). */
export type SessionUser = Parameters<SessionOpener['open']>[1];

/** `authService` of the accounts plugin: the writes to a member's account that code-host sign-in needs. */
export type AccountUsers = Pick<Cradle['authService'], 'setCodeHostLogin'>;

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
