/**
 * What the widget needs of other plugins, as Picks of the services the container gives
 * (`workspaceService`, `ticketService`, `errorIngest` from proactive, `brandService` from brand,
 * `planLimits` from billing; the last three are optional).
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { WidgetOptions } from '../options.js';

/** The workspaces plugin's `workspaceService`, as far as the widget uses it. */
export type WorkspacePort = Pick<Cradle['workspaceService'], 'get' | 'open' | 'findByWidgetKey'>;
/** The workspace columns the widget reads (the widget install lives on `workspaces`). */
export type WidgetWorkspace = NonNullable<Awaited<ReturnType<WorkspacePort['findByWidgetKey']>>>;

/** The tickets plugin's ticketService, as far as the widget uses it. */
export type TicketPort = Pick<Cradle['ticketService'], 'createTicket' | 'transition' | 'detail' | 'statusUrl'>;

/** The proactive plugin's ingest queue (`errorIngest`). */
export type ErrorIngestPort = Pick<Cradle['errorIngest'], 'submit'>;

/** The brand plugin's brandService. */
export type BrandPort = Pick<Cradle['brandService'], 'effectiveProfile' | 'lookOf'>;

/** Billing's planLimits (assert throws 402 plan_limit_reached with details.reason). */
export type PlanLimitsPort = Pick<Cradle['planLimits'], 'assert'>;

export interface WidgetDeps {
  readonly db: Knex;
  readonly audit: AuditWriter;
  readonly outbox: Outbox;
  readonly secretBox: SecretBox;
  readonly rateLimiter: RateLimiter;
  readonly config: AppConfig;
  readonly options: WidgetOptions;
  readonly log: Logger;
  readonly workspaces: WorkspacePort;
  readonly tickets: TicketPort;
  readonly errorIngest: ErrorIngestPort | null;
  readonly brand: BrandPort | null;
  readonly planLimits: PlanLimitsPort | null;
}
