import { asValue } from 'awilix';
import { cradleView, optional } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { DnsLookup } from '../../core/net/dns.js';
import { brandOptionsSchema, type BrandOptions } from './options.js';
import { assetRoutes } from './routes/assets.js';
import { brandRoutes } from './routes/brand.js';
import { publicBrandRoutes } from './routes/public.js';
import type { BrandDeps } from './services/deps.js';
import { BrandDirectoryService } from './services/directory.js';
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
    const dns = new DnsLookup({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs });
    const deps = cradleView<BrandDeps>(container, {
      db: 'db',
      config: () => config,
      options: () => options,
      outbox: 'outbox',
      audit: 'audit',
      dns: () => dns,
      workspaces: 'workspaceService',
      planCatalog: 'planCatalog',
      emailDomains: () => optional(container, 'domainService') ?? null,
      sending: () => optional(container, 'channelService') ?? null,
    });

    const brand = new BrandService(deps);
    const directory = new BrandDirectoryService(deps, brand);
    const overview = new BrandOverviewService(deps, brand, directory);
    // The guard registered before this plugin (the inbox's, or the tickets' allow-all) decides
    // every draft this one lets through; resolved now, before ours replaces it.
    const inner = container.resolve('whiteLabelGuard');
    ctx.provide({
      brandOptions: asValue(options),
      brandService: asValue(brand),
      brandDirectory: asValue(directory),
      whiteLabelGuard: asValue(directory.guard(inner)),
      statusPageBranding: asValue(new StatusPageBrandingService(deps, brand)),
      // Read by the mail plugin at each enqueue: customer-facing mail of a workspace carries its brand.
      mailBranding: asValue(new MailBrandingService(deps, brand)),
    });

    ctx.routes(
      brandRoutes(
        { brand: () => brand, directory: () => directory, overview: () => overview },
        container.cradle.accountSchemas.Ok,
      ),
    );
    ctx.routes(
      publicBrandRoutes(
        () => brand,
        () => deps.db,
      ),
    );
    ctx.server.route(assetRoutes(() => brand));

    ctx.schedule(
      'status-domains',
      { everyMs: Math.max(60_000, (options.statusRecheckMinutes * 60_000) / 4) },
      async () => {
        await brand.recheckDue();
      },
    );
  },
});
