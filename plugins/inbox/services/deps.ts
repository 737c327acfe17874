/**
 * What the inbox needs of other plugins, as Picks of the services the container gives
 * (`workspaceService`, `ticketService`, `mailer`, `planCatalog`, and `planLimits` and
 * `brandDirectory` when billing and brand are on).
 */
import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { ChannelAdapter } from '../../../core/contracts/index.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { DnsLookup } from '../../../core/net/dns.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { InboxOptions } from '../options.js';
import type { MailerPort } from '../../../core/contracts/mail.js';

/** The workspaces plugin's `workspaceService`, as far as the inbox uses it. */
export type WorkspacePort = Pick<
  Cradle['workspaceService'],
  'inboundDomain' | 'get' | 'open' | 'getMany' | 'findByInboundAddress'
>;
/** A workspace as the workspaces plugin routes inbound mail to it. */
export type InboxWorkspace = NonNullable<Awaited<ReturnType<WorkspacePort['findByInboundAddress']>>>;

/** The tickets plugin's `ticketService`, as far as the inbox uses it. */
export type TicketPort = Pick<
  Cradle['ticketService'],
  'createTicket' | 'addInboundMessage' | 'findByReplyToken' | 'findByEmailMessageIds' | 'setDeliveryStatus'
>;
/** A ticket's opening or follow-up message, as the tickets plugin takes it. */
export type TicketMessageInput = Omit<Parameters<TicketPort['addInboundMessage']>[1], 'orgId' | 'ticketId'>;
/** The ticket fields the inbox reads of the ticket a message opens or joins. */
export type TicketRef = Pick<
  NonNullable<Awaited<ReturnType<TicketPort['findByReplyToken']>>>,
  'id' | 'org_id' | 'workspace_id'
>;

export type PlanCatalogPort = Pick<Cradle['planCatalog'], 'hasFeature'>;

/** Billing's `planLimits` (when on): `allowed` and `used` count the tickets of the month. */
export type PlanLimitsPort = Pick<Cradle['planLimits'], 'check'>;

/**
 * The brand plugin's `brandDirectory` (when on): whose domains a workspace uses and whether it
 * sends white-labelled. Without it, a workspace with a `brand_profile_id` uses that profile's
 * domains (scope organization) and one without uses its own (scope workspace, keyed by the
 * workspace id), and nothing is white-labelled.
 */
export type BrandDirectory = Pick<Cradle['brandDirectory'], 'keyFor' | 'whiteLabel'>;
/** The owner of a workspace's email domains: its brand profile, or the workspace itself. */
export type BrandKey = Awaited<ReturnType<BrandDirectory['keyFor']>>;

export const defaultBrandDirectory: BrandDirectory = {
  keyFor: (_trx, ws) =>
    Promise.resolve(
      ws.brand_profile_id
        ? { brandProfileId: ws.brand_profile_id, scope: 'organization' }
        : { brandProfileId: ws.id, scope: 'workspace' },
    ),
  whiteLabel: () => Promise.resolve({ whiteLabel: false, missing: [] }),
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
