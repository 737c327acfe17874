import { asValue } from 'awilix';
import type Joi from 'joi';
import type { Knex } from 'knex';
import type { AuditWriter } from '../../core/audit/audit-writer.js';
import type { Outbox } from '../../core/bus/outbox.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { DnsLookup } from '../../core/net/dns.js';
import { brandOptionsSchema, type BrandOptions } from './options.js';
import { assetRoutes } from './routes/assets.js';
import { brandRoutes } from './routes/brand.js';
import { publicBrandRoutes } from './routes/public.js';
import type { BrandDeps, EmailDomainsPort, PlanCatalogPort, SendingPort, WorkspacePort } from './services/deps.js';
import { BrandDirectoryService, type Guard } from './services/directory.js';
import { MailBrandingService } from './services/mail-branding.js';
import { BrandOverviewService } from './services/overview.js';
import { BrandService } from './services/profiles.js';
import { StatusPageBrandingService } from './services/surfaces.js';

/**
 * Brand profiles and white label: the `brand` section (11 operations), public brand assets
 * (uploaded logos, previews) and the seams other plugins read. See docs/brand.md.
 *
 * Container entries: `brandService`, `brandDirectory` (read by the inbox: whose email domains a
 * workspace uses, whether it answers under white label) and `whiteLabelGuard` (called by the
 * tickets plugin before a draft is sent), `statusPageBranding` (the brand on the tickets plugin's
 * public status page, and which Host may serve it), `mailBranding` (the brand of the mail plugin's
 * customer-facing mail). It requires the inbox so it registers after it: its
 * guard replaces the inbox's and delegates to it for every draft it does not refuse.
 */
export default definePlugin<BrandOptions>({
  name: 'brand',
  version: '1.0.0',
  requires: ['accounts', 'workspaces', 'tickets', 'inbox'],
  options: brandOptionsSchema,
  register(ctx) {
    const { container, config, options } = ctx;
    const cradle = () => container.cradle as Record<string, unknown>;
    const optional = <T>(key: string): T | null => (container.resolve(key, { allowUnregistered: true }) as T | undefined) ?? null;
    const deps: BrandDeps = {
      get db() {
        return cradle().db as Knex;
      },
      config,
      options,
      get outbox() {
        return cradle().outbox as Outbox;
      },
      get audit() {
        return cradle().audit as AuditWriter;
      },
      dns: new DnsLookup({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs }),
      get workspaces() {
        return cradle().workspaceService as WorkspacePort;
      },
      get planCatalog() {
        return cradle().planCatalog as PlanCatalogPort;
      },
      get emailDomains() {
        return optional<EmailDomainsPort>('domainService');
      },
      get sending() {
        return optional<SendingPort>('channelService');
      },
    };

    const brand = new BrandService(deps);
    const directory = new BrandDirectoryService(deps, brand);
    const overview = new BrandOverviewService(deps, brand, directory);
    // The guard registered before this plugin (the inbox's, or the tickets' allow-all) decides
    // every draft this one lets through; resolved now, before ours replaces it.
    const inner = container.resolve('whiteLabelGuard') as Guard;
    ctx.provide({
      brandOptions: asValue(options),
      brandService: asValue(brand),
      brandDirectory: asValue(directory),
      whiteLabelGuard: asValue(directory.guard(inner)),
      statusPageBranding: asValue(new StatusPageBrandingService(deps, brand)),
      // Read by the mail plugin at each enqueue: customer-facing mail of a workspace carries its brand.
      mailBranding: asValue(new MailBrandingService(deps, brand)),
    });

    ctx.routes(brandRoutes({ brand: () => brand, directory: () => directory, overview: () => overview }, (cradle().accountSchemas as { Ok: Joi.ObjectSchema }).Ok));
    ctx.routes(publicBrandRoutes(() => brand, () => deps.db));
    ctx.server.route(assetRoutes(() => brand));

    ctx.schedule('status-domains', { everyMs: Math.max(60_000, options.statusRecheckMinutes * 60_000 / 4) }, async () => {
      await brand.recheckDue();
    });
  },
});
