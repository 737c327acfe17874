import type Joi from 'joi';
import type { WhiteLabelGuard } from './services/deps.js';
import type { DraftService } from './services/draft-service.js';
import type { FileLinks } from './services/file-links.js';
import type { SubscriberService } from './services/subscriber-service.js';
import type { TicketActions } from './services/ticket-actions.js';
import type { TicketService } from './services/ticket-service.js';

/** What the tickets plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    fileLinks: FileLinks;
    ticketSchema: Joi.ObjectSchema;
    ticketPageSchemas: Record<string, Joi.ObjectSchema>;
    /** The seam the inbox and brand plugins wrap: each registers a guard over the one before. */
    whiteLabelGuard: WhiteLabelGuard;
    ticketService: TicketService;
    subscriberService: SubscriberService;
    ticketActions: TicketActions;
    draftService: DraftService;
  }
}
