import { asFunction } from 'awilix';
import Joi from 'joi';
import { mailDomainOf } from '../../core/kernel/mail-domain.js';
import { optional, type Cradle } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { WorkspaceService } from './services/workspace-service.js';

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
      workspaceService: asFunction(
        ({ db, outbox, audit }: Cradle) =>
          new WorkspaceService(
            { db, outbox, audit },
            inboundDomain,
            // The single form's available_fix_credits: billing's ledger, when billing is on.
            () => {
              const ledger = optional(ctx.container, 'creditLedger');
              return ledger
                ? {
                    available: (orgId: string, workspaceId: string) =>
                      ledger.remaining(db, orgId, new Date(), workspaceId),
                  }
                : null;
            },
            () => optional(ctx.container, 'executionRules') ?? null,
            // Billing may be off: then no plan limits the workspaces.
            () => optional(ctx.container, 'planLimits') ?? null,
          ),
      ).singleton(),
    });
    ctx.routes(workspaceRoutes(() => ctx.container.resolve('workspaceService')));
  },
});
