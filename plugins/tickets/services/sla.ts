import type { TicketState } from './state-machine.js';

/**
 * The SLA clock. It starts when the ticket is created (again when it is reopened). Until the
 * first outgoing reply the due time is start + the workspace's first-response minutes, after it
 * start + resolution minutes. It pauses (null) while the ticket waits for the customer
 * (needs_info, answered) and stops (null) once the customer has been notified or the ticket is
 * closed; a customer's reply to a waiting ticket moves it to triage and the clock runs again
 * (the due time stays anchored at the start, so a long wait can make it overdue at once).
 */
const NO_SLA: ReadonlySet<TicketState> = new Set(['needs_info', 'answered', 'customer_notified', 'closed']);

export interface SlaInput {
  state: TicketState;
  sla_started_at: Date;
  first_response_at: Date | null;
}

export interface SlaMinutes {
  sla_first_response_minutes: number;
  sla_resolution_minutes: number;
}

export function slaDueAt(t: SlaInput, ws: SlaMinutes): Date | null {
  if (NO_SLA.has(t.state)) return null;
  const minutes = t.first_response_at ? ws.sla_resolution_minutes : ws.sla_first_response_minutes;
  return new Date(new Date(t.sla_started_at).getTime() + minutes * 60_000);
}
