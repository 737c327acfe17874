import { asFunction } from 'awilix';
import type { AuditWriter } from '../../core/audit/audit-writer.js';
import type { Outbox } from '../../core/bus/outbox.js';
import type { Db } from '../../core/data/db.js';
import Joi from 'joi';
import { mailDomainOf } from '../../core/kernel/mail-domain.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { WorkspaceService, type ExecutionRulesPort, type FixCreditsProvider, type WorkspaceLimitsPort } from './services/workspace-service.js';

export interface WorkspacesOptions {
  /** Domain of inbound addresses; default `inbound.<host of PUBLIC_BASE_URL>` (`inbound.localhost` for an IP). */
  inboundDomain?: string;
}

/**
 * Workspaces: one product or client of an organization. Owns the workspaces section and the
 * workspace settings, inbound address and widget install columns; gives every other plugin
 * `workspaceService` (get, open with access checks, lookups by inbound address and widget key).
 */
export default definePlugin<WorkspacesOptions>({
  name: 'workspaces',
  version: '1.0.0',
  requires: ['accounts'],
  options: Joi.object({
    inboundDomain: Joi.string().hostname().lowercase(),
  }),
  register(ctx) {
    const inboundDomain = ctx.options.inboundDomain ?? `inbound.${mailDomainOf(ctx.config.server.publicBaseUrl)}`;
    ctx.provide({
      workspaceService: asFunction((cradle: { db: Db; outbox: Outbox; audit: AuditWriter }) => new WorkspaceService(
        { db: cradle.db, outbox: cradle.outbox, audit: cradle.audit },
        inboundDomain,
        () => (ctx.container.resolve('fixCredits', { allowUnregistered: true }) as FixCreditsProvider | undefined) ?? null,
        () => (ctx.container.resolve('executionRules', { allowUnregistered: true }) as ExecutionRulesPort | undefined) ?? null,
        // Billing may be off: then no plan limits the workspaces.
        () => (ctx.container.resolve('planLimits', { allowUnregistered: true }) as WorkspaceLimitsPort | undefined) ?? null,
      )).singleton(),
    });
    ctx.routes(workspaceRoutes(() => ctx.container.resolve<WorkspaceService>('workspaceService')));
  },
});
