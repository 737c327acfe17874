/**
 * What the brand plugin needs of other plugins, declared as its own ports (the container gives
 * the real services: `workspaceService`, `planCatalog`, and the inbox's `domainService` and
 * `channelService` when the inbox is on).
 */
import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { DnsRecord } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { DnsLookup } from '../../../core/net/dns.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { BrandOptions } from '../options.js';

/** The workspace fields the brand plugin reads (the inbox's InboxWorkspace is a superset). */
/** A workspace row as the workspaces plugin answers it (container entry `workspaceService`). */
export type BrandWorkspace = Awaited<ReturnType<Cradle['workspaceService']['get']>>;

export interface WorkspacePort {
  get(orgId: string, id: string, trx?: Knex): Promise<BrandWorkspace>;
  open(principal: Principal, id: string, trx?: Knex): Promise<BrandWorkspace>;
  update(
    principal: Principal,
    id: string,
    input: { brand_profile_id: string | null },
    meta: { ip?: string | null; userAgent?: string | null; requestId?: string | null },
  ): Promise<BrandWorkspace>;
}

export interface PlanCatalogPort {
  hasFeature(planId: string | null | undefined, feature: string): boolean;
}

/** An email domain of a brand, as the inbox keeps it. */
export interface EmailDomainView {
  name: string;
  purpose: 'sending' | 'receiving';
  status: string;
  records: DnsRecord[];
  verified_at: Date | null;
}

/** The inbox's domainService, as far as the brand plugin uses it. */
export interface EmailDomainsPort {
  ofBrand(db: Knex, orgId: string, brandProfileId: string): Promise<EmailDomainView[]>;
}

/** The inbox's channelService: how a workspace's replies would leave now. */
export interface SendingPort {
  sendingOf(
    db: Knex,
    ws: BrandWorkspace,
  ): Promise<{ kind: string; missing: string[]; sender: { address: string; name: string } | null }>;
}

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
