/**
 * What the inbox needs of other plugins, declared here as its own interfaces (the container
 * gives the real services: `workspaceService`, `ticketService`, `mailer`, `planCatalog`, and
 * `planLimits` when billing is on).
 */
import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { WriteBatch } from '../../../core/data/write-batch.js';
import type { ChannelAdapter } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { DnsLookup } from '../../../core/net/dns.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { InboxOptions } from '../options.js';
import type { MailerPort } from '../../../core/contracts/mail.js';

/** The workspace fields the inbox reads. */
/** A workspace as the workspaces plugin routes inbound mail to it (container entry `workspaceService`). */
export type InboxWorkspace = NonNullable<Awaited<ReturnType<Cradle['workspaceService']['findByInboundAddress']>>>;

export interface WorkspacePort {
  /** The inbound domain, e.g. `inbound.example.com`. */
  readonly inboundDomain: string;
  get(orgId: string, id: string, trx?: Knex): Promise<InboxWorkspace>;
  open(principal: Principal, id: string, trx?: Knex): Promise<InboxWorkspace>;
  getMany(orgId: string, ids: string[], trx?: Knex): Promise<Map<string, InboxWorkspace>>;
  findByInboundAddress(address: string, trx?: Knex): Promise<InboxWorkspace | undefined>;
}

export interface TicketAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
  contentId?: string | null;
  inline?: boolean;
}

export interface TicketMessageInput {
  from?: string | null;
  fromName?: string | null;
  to?: string[];
  cc?: string[];
  subject?: string | null;
  bodyText?: string | null;
  bodyHtml?: string | null;
  emailMessageId?: string | null;
  inReplyTo?: string | null;
  references?: string | null;
  attachments?: TicketAttachment[];
  receivedAt?: Date;
}

export interface TicketRef {
  id: string;
  org_id: string;
  workspace_id: string;
}

export interface TicketPort {
  createTicket(
    trx: Knex,
    input: {
      orgId: string;
      workspaceId: string;
      origin: 'email';
      subject: string;
      channelId?: string | null;
      customerEmail?: string | null;
      customerName?: string | null;
      message?: TicketMessageInput;
      /** The routed workspace (saves the tickets plugin a read). */
      workspace?: InboxWorkspace;
    },
    opts?: { batch?: WriteBatch },
  ): Promise<TicketRef>;
  addInboundMessage(
    trx: Knex,
    input: TicketMessageInput & { orgId: string; ticketId: string },
  ): Promise<{ id: string }>;
  findByReplyToken(trx: Knex, token: string): Promise<TicketRef | undefined>;
  findByEmailMessageIds(
    trx: Knex,
    orgId: string,
    workspaceId: string,
    messageIds: string[],
  ): Promise<TicketRef | undefined>;
  /** Added for the inbox: delivery events and bounces of the service's own replies. */
  setDeliveryStatus(
    trx: Knex,
    where: { mailMessageIds: string[] } | { orgId: string; emailMessageIds: string[] },
    status: DeliveryStatus,
  ): Promise<string[]>;
}

export type DeliveryStatus = 'delivered' | 'bounced' | 'complained' | 'failed';

export interface PlanCatalogPort {
  hasFeature(planId: string | null | undefined, feature: string): boolean;
}

export interface PlanLimitsPort {
  /** Billing answers `allowed` and `used` too (the number of tickets of the month). */
  check(
    trx: Knex,
    orgId: string,
    limit: 'tickets_per_month',
    context: { workspaceId?: string | null },
  ): Promise<{ ok: boolean; allowed?: unknown; used?: unknown }>;
}

/** The owner of a workspace's email domains: its brand profile, or the workspace itself. */
export interface BrandKey {
  brandProfileId: string;
  scope: 'workspace' | 'organization';
}

/**
 * Seam the brand plugin fills (container key `brandDirectory`): whose domains a workspace uses
 * and whether it sends white-labelled. Without it, a workspace with a `brand_profile_id` uses
 * that profile's domains (scope organization) and one without uses its own (scope workspace,
 * keyed by the workspace id), and nothing is white-labelled.
 */
export interface BrandDirectory {
  keyFor(trx: Knex, workspace: InboxWorkspace): Promise<BrandKey>;
  /** Whether the workspace answers under an agency's white label, and what that still lacks. */
  whiteLabel(trx: Knex, workspace: InboxWorkspace): Promise<{ whiteLabel: boolean; missing: string[] }>;
}

export const defaultBrandDirectory: BrandDirectory = {
  keyFor: async (_trx, ws) =>
    ws.brand_profile_id
      ? { brandProfileId: ws.brand_profile_id, scope: 'organization' }
      : { brandProfileId: ws.id, scope: 'workspace' },
  whiteLabel: async () => ({ whiteLabel: false, missing: [] }),
};

export interface InboxDeps {
  db: Knex;
  config: AppConfig;
  options: InboxOptions;
  outbox: Outbox;
  audit: AuditWriter;
  rateLimiter: RateLimiter;
  dns: DnsLookup;
  workspaces: WorkspacePort;
  readonly tickets: TicketPort;
  readonly mailer: MailerPort;
  readonly channelAdapter: ChannelAdapter;
  readonly planCatalog: PlanCatalogPort;
  readonly planLimits: PlanLimitsPort | null;
  readonly brandDirectory: BrandDirectory;
  /** The mail plugin's default sender (`plugins.mail.options.from`), for loop detection. */
  ownSenders: string[];
}

/** The organization's plan id (organizations.plan, owned by accounts). */
export async function orgPlan(db: Knex, orgId: string): Promise<string> {
  const row = (await db('organizations').select('plan').where({ id: orgId }).first()) as { plan: string } | undefined;
  return row?.plan ?? 'none';
}
