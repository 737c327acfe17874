import { asValue } from 'awilix';
import { cradleView } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { auditOptionsSchema, type AuditOptions } from './options.js';
import { auditRoutes } from './routes/audit.js';
import { AuditLogService } from './services/audit-log.js';
import { StreamDelivery } from './services/delivery.js';
import type { AuditDeps } from './services/deps.js';
import { StreamSettingsService } from './services/stream-settings.js';
import { auditTicketPageSection } from './services/ticket-page.js';

/**
 * The audit section: reading the log the core's AuditWriter writes (list, export) and streaming
 * it to an external log system (an HTTPS endpoint or CloudWatch Logs). See docs/audit.md.
 *
 * Container entries: `auditLog`, `auditStreamSettings`, `auditStreamDelivery` (deliverDue()),
 * `ticketPageSection:audit` (the ticket page's recent entries).
 */
export default definePlugin<AuditOptions>({
  name: 'audit',
  version: '1.0.0',
  requires: ['accounts'],
  options: auditOptionsSchema,
  register(ctx) {
    const { container, options, config } = ctx;
    const deps = cradleView<AuditDeps>(container, {
      db: 'db',
      audit: 'audit',
      secretBox: 'secretBox',
      rateLimiter: 'rateLimiter',
      planCatalog: 'planCatalog',
      options: () => options,
      allowLoopbackFetch: () => config.security.allowLoopbackFetch,
      clock: () => () => new Date(),
    });
    const log = new AuditLogService(deps);
    const delivery = new StreamDelivery(deps);
    const settings = new StreamSettingsService(deps, delivery);
    ctx.provide({
      auditOptions: asValue(options),
      auditLog: asValue(log),
      auditStreamDelivery: asValue(delivery),
      auditStreamSettings: asValue(settings),
      // The ticket page's `audit` (the tickets plugin reads `ticketPageSection:*`).
      'ticketPageSection:audit': asValue(auditTicketPageSection),
    });
    ctx.routes(auditRoutes(container.cradle.accountSchemas.Ok));
    ctx.schedule('deliver-stream', { everyMs: options.stream.intervalMs }, async () => {
      await delivery.deliverDue();
    });
  },
});
