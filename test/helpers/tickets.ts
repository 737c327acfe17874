import type { App } from '../../core/kernel/app.js';

/** What ticketService.createTicket takes; the tickets plugin owns the exact type (plugins/tickets/test/helpers.ts). */
type TicketInput = { orgId: string; workspaceId: string } & Record<string, unknown>;

/**
 * A ticket made the way an intake plugin makes one: ticketService.createTicket in its own
 * transaction; an email from jane@example.com with the subject "Help" unless `input` says otherwise.
 */
export async function createTicket(app: App, input: TicketInput): Promise<{ id: string }> {
  const tickets = app.container.resolve<{ createTicket(trx: unknown, input: TicketInput): Promise<{ id: string }> }>(
    'ticketService',
  );
  return app.db.transaction((trx) =>
    tickets.createTicket(trx, { origin: 'email', subject: 'Help', customerEmail: 'jane@example.com', ...input }),
  );
}

/** What happened to a dated ticket, in minutes after it was opened. */
export interface TicketHistory {
  origin?: string;
  category?: string;
  /** First response. */
  frMin?: number;
  /** Closed, or released with a fix when `fixed`. */
  resolveMin?: number;
  fixed?: boolean;
  /** Escalated five minutes in. */
  escalated?: boolean;
}

/** A ticket (createTicket) dated afterwards, for reports over past ranges: opened at `opened`, then `history`. */
export async function datedTicket(
  app: App,
  orgId: string,
  workspaceId: string,
  opened: Date,
  history: TicketHistory,
): Promise<string> {
  const h = history;
  const tk = await createTicket(app, { orgId, workspaceId, origin: h.origin ?? 'email' });
  const after = (minutes: number) => new Date(opened.getTime() + minutes * 60_000);
  const patch: Record<string, unknown> = {
    created_at: opened,
    ...(h.origin ? { origin: h.origin } : {}),
    ...(h.category ? { category: h.category } : {}),
  };
  if (h.frMin !== undefined) Object.assign(patch, { first_response_at: after(h.frMin), state: 'answered' });
  if (h.resolveMin !== undefined)
    Object.assign(
      patch,
      h.fixed
        ? { state: 'customer_notified', released_at: after(h.resolveMin), resolved_version: '1.2.3' }
        : { state: 'closed', closed_at: after(h.resolveMin) },
    );
  if (h.escalated) Object.assign(patch, { state: 'escalated', escalated_at: after(5) });
  await app.db('tickets').where({ id: tk.id }).update(patch);
  return tk.id;
}
