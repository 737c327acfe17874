/**
 * What the widget needs of other plugins, declared as its own ports (the container gives the
 * real services: `workspaceService`, `ticketService`, `errorIngest` from proactive,
 * `brandService` from brand, `planLimits` from billing; the last three are optional).
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { NormalizedEvent } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { WidgetOptions } from '../options.js';

/** The workspace columns the widget reads (the widget install lives on `workspaces`). */
export interface WidgetWorkspace {
  id: string;
  org_id: string;
  name: string;
  client_name: string | null;
  locale: string;
  brand_profile_id: string | null;
  widget_public_key: string | null;
  widget_allowed_origins: string[];
  widget_key_revoked_at: Date | null;
  archived_at: Date | null;
}

export interface WorkspacePort {
  get(orgId: string, id: string, trx?: Knex): Promise<WidgetWorkspace>;
  open(principal: Principal, id: string, trx?: Knex): Promise<WidgetWorkspace>;
  findByWidgetKey(publicKey: string, trx?: Knex): Promise<WidgetWorkspace | undefined>;
}

export interface TicketRow {
  id: string;
  org_id: string;
  workspace_id: string;
  state: string;
}

/** The tickets plugin's ticketService, as far as the widget uses it. */
export type TicketPort = Pick<Cradle['ticketService'], 'createTicket' | 'transition' | 'detail' | 'statusUrl'>;

/** The proactive plugin's ingest queue (`errorIngest`). */
export interface ErrorIngestPort {
  submit(
    events: Array<{ orgId: string; workspaceId: string; connectorId: null; source: 'widget'; event: NormalizedEvent }>,
  ): Promise<Array<{ groupId: string; duplicate: boolean }>>;
}

/** A brand profile as the brand plugin stores it (the fields the widget shows). */
export interface BrandProfile {
  id: string;
  locale: 'en' | 'it';
  widget_texts: Partial<Record<string, string>> | null;
}

export interface BrandLook {
  name: string;
  logoUrl: string | null;
  color: string;
  fontFamily: string;
  theme: 'light' | 'dark';
  locale: 'en' | 'it';
  showBadge: boolean;
  websiteUrl: string | null;
}

/** The brand plugin's brandService. */
export interface BrandPort {
  effectiveProfile(db: Knex, orgId: string, brandProfileId: string | null): Promise<BrandProfile | undefined>;
  lookOf(row: BrandProfile, org: { badge_removal_addon: boolean }): BrandLook;
}

/** Billing's planLimits (assert throws 402 plan_limit_reached with details.reason). */
export interface PlanLimitsPort {
  assert(trx: Knex, orgId: string, limit: 'tickets_per_month', context: { workspaceId: string }): Promise<unknown>;
}

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
