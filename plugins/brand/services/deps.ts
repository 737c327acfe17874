/**
 * What the brand plugin needs of other plugins, as Picks of the services the container gives
 * (`workspaceService`, `planCatalog`, and the inbox's `domainService` and `channelService` when
 * the inbox is on).
 */
import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { DnsLookup } from '../../../core/net/dns.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { BrandOptions } from '../options.js';

/** The workspaces plugin's `workspaceService`, as far as the brand plugin uses it. */
export type WorkspacePort = Pick<Cradle['workspaceService'], 'get' | 'open' | 'update'>;
/** A workspace row as the workspaces plugin answers it. */
export type BrandWorkspace = Awaited<ReturnType<WorkspacePort['get']>>;

export type PlanCatalogPort = Pick<Cradle['planCatalog'], 'hasFeature'>;

/** The inbox's domainService, as far as the brand plugin uses it. */
export type EmailDomainsPort = Pick<Cradle['domainService'], 'ofBrand'>;
/** An email domain of a brand, as the inbox keeps it. */
export type EmailDomainView = Awaited<ReturnType<EmailDomainsPort['ofBrand']>>[number];

/** The inbox's channelService: how a workspace's replies would leave now. */
export type SendingPort = Pick<Cradle['channelService'], 'sendingOf'>;

export interface BrandDeps {
  readonly db: Knex;
  readonly config: AppConfig;
  readonly options: BrandOptions;
  readonly outbox: Outbox;
  readonly audit: AuditWriter;
  readonly dns: DnsLookup;
  readonly workspaces: WorkspacePort;
  readonly planCatalog: PlanCatalogPort;
  readonly emailDomains: EmailDomainsPort | null;
  readonly sending: SendingPort | null;
}

/** The organization fields brand decisions depend on (accounts and billing own the columns). */
export interface OrgFacts {
  id: string;
  name: string;
  type: 'direct' | 'agency';
  plan: string;
  badge_removal_addon: boolean;
}

export async function orgFacts(db: Knex, orgId: string): Promise<OrgFacts> {
  const row = (await db('organizations')
    .select('id', 'name', 'type', 'plan', 'badge_removal_addon')
    .where({ id: orgId })
    .first()) as OrgFacts | undefined;
  if (!row) throw new Error(`organization ${orgId} not found`);
  return row;
}

export function statusCnameTarget(d: Pick<BrandDeps, 'options' | 'config'>): string {
  return d.options.statusCnameTarget ?? `status.${new URL(d.config.server.publicBaseUrl).hostname}`;
}

export const baseUrl = (config: AppConfig): string => config.server.publicBaseUrl.replace(/\/+$/, '');
