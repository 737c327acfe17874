import { conflict } from '../../../core/http/errors.js';

/**
 * The ticket state machine: the states, the customer-facing public_state of each, and every
 * allowed transition. This module is the only place that decides a ticket's next state; the
 * table is documented in docs/tickets.md (keep both in step).
 */

export const TICKET_STATES = [
  'received',
  'triage',
  'needs_info',
  'draft_ready',
  'answered',
  'fixing',
  'awaiting_approval',
  'releasing',
  'customer_notified',
  'closed',
  'escalated',
] as const;
export type TicketState = (typeof TICKET_STATES)[number];

export const PUBLIC_STATES = [
  'in_analysis',
  'needs_reply',
  'answered',
  'fix_in_progress',
  'releasing',
  'resolved',
  'team_review',
] as const;
export type PublicState = (typeof PUBLIC_STATES)[number];

/** What the customer sees on the status page for each internal state. */
export const PUBLIC_STATE: Record<TicketState, PublicState> = {
  received: 'in_analysis',
  triage: 'in_analysis',
  // A drafted answer waits for the team's click: for the customer the request is still being looked at.
  draft_ready: 'in_analysis',
  needs_info: 'needs_reply',
  answered: 'answered',
  fixing: 'fix_in_progress',
  // The fix exists and waits for a person's approval: still "fix in progress" for the customer.
  awaiting_approval: 'fix_in_progress',
  releasing: 'releasing',
  customer_notified: 'resolved',
  closed: 'resolved',
  escalated: 'team_review',
};

export const publicStateOf = (state: TicketState): PublicState => PUBLIC_STATE[state];

/** States in which the team, not the automation or the customer, has the next move. */
const TEAM_MOVE: ReadonlySet<TicketState> = new Set(['draft_ready', 'awaiting_approval', 'escalated']);
export const needsTeamActionIn = (state: TicketState): boolean => TEAM_MOVE.has(state);

export const OPEN_STATES: readonly TicketState[] = TICKET_STATES.filter((s) => s !== 'closed');

/** Everything that can move a ticket: API operations and events of other plugins. */
export type TicketEvent =
  // intake and conversation (tickets, inbox, widget)
  | 'diagnosis_started'
  | 'draft_created'
  | 'draft_discarded'
  | 'reply_sent'
  | 'needs_info_sent'
  | 'customer_replied'
  // team operations (tickets section)
  | 'escalate'
  | 'close'
  | 'reopen'
  // fix loop (fixes plugin)
  | 'fix_started'
  | 'fix_verified'
  | 'fix_failed'
  | 'approve'
  | 'request_changes'
  | 'reject'
  | 'back_to_approval'
  | 'fix_in_managed'
  | 'release_failed'
  | 'release_retry'
  | 'customer_notified';

interface Rule {
  from: readonly TicketState[];
  /** Next state; a function when it depends on the current state. */
  to: TicketState | ((from: TicketState) => TicketState);
}

const ALL_OPEN = OPEN_STATES;
const FIX_LOOP = ['fixing', 'awaiting_approval', 'releasing', 'customer_notified'] as const;

/**
 * The full transition table. A state listed in `from` is allowed; any other answers 409
 * invalid_transition. Events that keep the state (e.g. a reply sent while a fix is at work) list
 * that state with `to` returning it unchanged.
 */
export const TRANSITIONS: Record<TicketEvent, Rule> = {
  diagnosis_started: { from: ['received', 'triage'], to: 'triage' },
  // A draft (agent's or team's) waits for the click; on an escalated ticket the team keeps it.
  draft_created: { from: ALL_OPEN, to: (s) => (s === 'received' || s === 'triage' ? 'draft_ready' : s) },
  // The last open draft discarded: back to triage, the team writes the next one.
  draft_discarded: { from: ALL_OPEN, to: (s) => (s === 'draft_ready' ? 'triage' : s) },
  // Sending during the fix loop is an interim message: the fix keeps its state.
  reply_sent: { from: ALL_OPEN, to: (s) => ((FIX_LOOP as readonly TicketState[]).includes(s) ? s : 'answered') },
  needs_info_sent: { from: ALL_OPEN, to: (s) => ((FIX_LOOP as readonly TicketState[]).includes(s) ? s : 'needs_info') },
  // The customer writes again: a waiting or notified ticket goes back to triage; a closed one reopens
  // (the caller counts it as a reopen); during the fix loop and review the state stays.
  customer_replied: {
    from: TICKET_STATES,
    to: (s) => (['needs_info', 'answered', 'customer_notified', 'closed'].includes(s) ? 'triage' : s),
  },
  escalate: { from: ALL_OPEN.filter((s) => s !== 'escalated'), to: 'escalated' },
  close: { from: ALL_OPEN, to: 'closed' },
  reopen: { from: ['closed'], to: 'triage' },
  fix_started: { from: ['received', 'triage', 'draft_ready', 'answered', 'needs_info', 'escalated'], to: 'fixing' },
  fix_verified: { from: ['fixing'], to: 'awaiting_approval' },
  fix_failed: { from: ['fixing'], to: 'escalated' },
  approve: { from: ['awaiting_approval'], to: 'releasing' },
  request_changes: { from: ['awaiting_approval'], to: 'fixing' },
  reject: { from: ['awaiting_approval'], to: 'escalated' },
  back_to_approval: { from: ['escalated'], to: 'awaiting_approval' },
  fix_in_managed: { from: ['escalated'], to: 'fixing' },
  release_failed: { from: ['releasing'], to: 'escalated' },
  release_retry: { from: ['escalated', 'releasing'], to: 'releasing' },
  customer_notified: { from: ['releasing'], to: 'customer_notified' },
};

/** Whether `event` may happen in `state`. */
export function canApply(state: TicketState, event: TicketEvent): boolean {
  return TRANSITIONS[event].from.includes(state);
}

/** The next state, or 409 invalid_transition naming the current state and the refused event. */
export function nextState(state: TicketState, event: TicketEvent): TicketState {
  const rule = TRANSITIONS[event];
  if (!rule.from.includes(state)) {
    throw conflict('invalid_transition', `A ticket in state ${state} cannot ${event.replace(/_/g, ' ')}`, {
      state,
      event,
      allowed_from: [...rule.from],
    });
  }
  return typeof rule.to === 'function' ? rule.to(state) : rule.to;
}
