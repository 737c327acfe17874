import { asFunction, asValue } from 'awilix';
import Joi from 'joi';
import { definePlugin } from '../../core/kernel/plugin.js';
import { resolveSecretKeys } from '../../core/security/secret-box.js';
import { draftRoutes } from './routes/drafts.js';
import { fileRoutes } from './routes/files.js';
import { statusPageRoutes } from './routes/status-page.js';
import { subscriberRoutes } from './routes/subscribers.js';
import { unsubscribeRoutes } from './routes/unsubscribe.js';
import { ticketRoutes } from './routes/tickets.js';
import type { TicketRouteServices } from './routes/context.js';
import { allowAllGuard, type TicketsDeps } from './services/deps.js';
import { DraftService } from './services/draft-service.js';
import { FileLinks } from './services/file-links.js';
import { SubscriberService } from './services/subscriber-service.js';
import { TicketActions } from './services/ticket-actions.js';
import { TicketService } from './services/ticket-service.js';
import { TICKET_PAGE_SECTION_PREFIX, TicketPage, draftsSection } from './services/ticket-page.js';
import { TICKET_MAIL_TEMPLATES } from './services/templates.js';
import { TicketJobPageSchema, TicketSchema } from './schemas/index.js';

export interface TicketsOptions {
  /** Lifetime of signed file links in seconds. */
  fileLinkTtlSeconds: number;
}

/**
 * Tickets: the conversation, team actions, drafts, subscribers, the public status page and
 * files. Gives the intake plugins `ticketService` (createTicket, addInboundMessage, lookups by
 * reply token and Message-ID, transition) and a `whiteLabelGuard` seam the brand plugin fills.
 * The ticket page's sections come from `ticketPageSection:<plugin>` entries (services/ticket-page.ts).
 */
export default definePlugin<TicketsOptions>({
  name: 'tickets',
  version: '1.0.0',
  requires: ['accounts', 'workspaces', 'mail'],
  options: Joi.object({
    fileLinkTtlSeconds: Joi.number()
      .integer()
      .min(60)
      .max(7 * 24 * 3600)
      .default(3600),
  }),
  register(ctx) {
    const { container, config } = ctx;
    const fileLinks = new FileLinks(
      resolveSecretKeys(config.security.secretKeys, config.dataDir),
      config.server.publicBaseUrl,
      ctx.options.fileLinkTtlSeconds,
    );
    // The container's cradle resolves each key when read, so a guard the brand plugin registers later wins.
    const deps = (): TicketsDeps => container.cradle;

    ctx.provide({
      fileLinks: asValue(fileLinks),
      // The Ticket answer's schema, for the fix operations of this section (the fixes plugin).
      ticketSchema: asValue(TicketSchema),
      // Shapes of the page the fixes plugin answers with too (GET /v1/tickets/{id}/jobs): one object per OpenAPI component.
      ticketPageSchemas: asValue({ TicketJobPage: TicketJobPageSchema }),
      whiteLabelGuard: asValue(allowAllGuard),
      ticketService: asFunction(() => new TicketService(deps(), new TicketPage(container))).singleton(),
      // The page's drafts; other plugins add their sections under the same prefix (services/ticket-page.ts).
      [`${TICKET_PAGE_SECTION_PREFIX}tickets`]: asValue(draftsSection),
      subscriberService: asFunction(
        () => new SubscriberService(deps(), container.resolve('ticketService')),
      ).singleton(),
      ticketActions: asFunction(
        () => new TicketActions(deps(), container.resolve('ticketService'), container.resolve('subscriberService')),
      ).singleton(),
      draftService: asFunction(() => new DraftService(deps(), container.resolve('ticketService'))).singleton(),
    });
    container.resolve('mailer').registerTemplates(TICKET_MAIL_TEMPLATES);

    const services: TicketRouteServices = {
      tickets: () => container.resolve('ticketService'),
      actions: () => container.resolve('ticketActions'),
      drafts: () => container.resolve('draftService'),
      subscribers: () => container.resolve('subscriberService'),
      fileLinks: () => fileLinks,
    };
    ctx.routes([
      ...ticketRoutes(services),
      ...draftRoutes(services),
      ...subscriberRoutes(services),
      ...fileRoutes(services),
    ]);
    // The status page is HTML for customers, not an API operation: no operationId, so it is
    // added on the server directly (ctx.routes requires one) and stays out of the OpenAPI document.
    ctx.server.route(
      statusPageRoutes(
        services,
        () => container.resolve('workspaceService'),
        () => container.resolve('statusPageBranding', { allowUnregistered: true }) ?? null,
      ),
    );
    // A notice's unsubscribe link (docs/links.md): HTML for the customer, like the status page.
    ctx.server.route(unsubscribeRoutes(services, () => container.resolve('workspaceService')));
  },
});
