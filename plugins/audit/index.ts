import { asValue } from 'awilix';
import type Joi from 'joi';
import type { Knex } from 'knex';
import type { AuditWriter } from '../../core/audit/audit-writer.js';
import type { RateLimiter } from '../../core/http/rate-limit.js';
import { KEYS } from '../../core/kernel/keys.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import type { SecretBox } from '../../core/security/secret-box.js';
import { auditOptionsSchema, type AuditOptions } from './options.js';
import { auditRoutes } from './routes/audit.js';
import { AuditLogService } from './services/audit-log.js';
import { StreamDelivery } from './services/delivery.js';
import type { AuditDeps, PlanCatalogPort } from './services/deps.js';
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
    const cradle = () => container.cradle as Record<string, unknown>;
    const deps: AuditDeps = {
      get db() {
        return cradle()[KEYS.db] as Knex;
      },
      get audit() {
        return cradle()[KEYS.audit] as AuditWriter;
      },
      get secretBox() {
        return cradle()[KEYS.secretBox] as SecretBox;
      },
      get rateLimiter() {
        return cradle()[KEYS.rateLimiter] as RateLimiter;
      },
      get planCatalog() {
        return cradle().planCatalog as PlanCatalogPort;
      },
      options,
      allowLoopbackFetch: config.security.allowLoopbackFetch,
      clock: () => new Date(),
    };
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
    ctx.routes(auditRoutes((cradle().accountSchemas as { Ok: Joi.ObjectSchema }).Ok));
    ctx.schedule('deliver-stream', { everyMs: options.stream.intervalMs }, async () => {
      await delivery.deliverDue();
    });
  },
});
