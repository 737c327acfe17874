/** What callers hand the ticket service: intake from the channel plugins, and the list's queries. */
import type { Ticket, WidgetContext } from '../models/index.js';
import type { TicketWorkspace } from './deps.js';
import type { ListFilters, TicketFilters } from './ticket-list.js';
import type { TicketState } from './state-machine.js';

export interface AttachmentInput {
  filename: string;
  contentType: string;
  content: Buffer;
  contentId?: string | null;
  inline?: boolean;
}

/** A customer's message joining a ticket (inbox, widget, code host). */
export interface InboundMessageInput {
  orgId: string;
  ticketId: string;
  from?: string | null;
  fromName?: string | null;
  to?: string[];
  cc?: string[];
  subject?: string | null;
  bodyText?: string | null;
  bodyHtml?: string | null;
  /** RFC 5322 Message-ID with angle brackets. */
  emailMessageId?: string | null;
  inReplyTo?: string | null;
  /** The References header as received (space-separated Message-IDs). */
  references?: string | null;
  widgetContext?: Omit<WidgetContext, 'screenshot_file_id'> | null;
  screenshot?: AttachmentInput | null;
  attachments?: AttachmentInput[];
  receivedAt?: Date;
}

/** A new ticket from an intake channel, optionally with its opening message. */
export interface CreateTicketInput {
  orgId: string;
  workspaceId: string;
  origin: Ticket['origin'];
  subject: string;
  channelId?: string | null;
  externalId?: string | null;
  customerEmail?: string | null;
  customerName?: string | null;
  language?: string | null;
  category?: string;
  priority?: string;
  labels?: string[];
  isDemo?: boolean;
  errorGroupId?: string | null;
  codehostItemKind?: 'issue' | 'pull_request' | null;
  codehostNumber?: number | null;
  latestConfidence?: number | null;
  message?: Omit<InboundMessageInput, 'orgId' | 'ticketId'>;
  /**
   * The workspace, when the caller has just read it (the inbox routes on it): saves the read.
   * It must be the row of orgId/workspaceId; only locale and the SLA minutes are used.
   */
  workspace?: Pick<
    TicketWorkspace,
    'id' | 'org_id' | 'locale' | 'sla_first_response_minutes' | 'sla_resolution_minutes'
  >;
}

export type ListQuery = ListFilters;
export type CountQuery = Omit<TicketFilters, 'state'>;

/** The TicketCounts answer (GET /v1/tickets/counts). */
export interface TicketCounts {
  by_state: Record<TicketState, number>;
  needs_team_action: number;
  total: number;
}
