import { readFileSync } from 'node:fs';
import t from 'tap';
import {
  PUBLIC_STATE,
  PUBLIC_STATES,
  TICKET_STATES,
  TRANSITIONS,
  canApply,
  nextState,
  type TicketEvent,
} from '../services/state-machine.js';
import { slaDueAt } from '../services/sla.js';

t.test('every state maps to a public_state, and every public_state is reachable', (t) => {
  t.same(Object.keys(PUBLIC_STATE).sort(), [...TICKET_STATES].sort());
  t.same([...new Set(Object.values(PUBLIC_STATE))].sort(), [...PUBLIC_STATES].sort());
  t.end();
});

function refusal(fn: () => unknown): { status: number; code: string; details: unknown } | null {
  try {
    fn();
    return null;
  } catch (err) {
    const e = err as { output: { statusCode: number }; data: { code: string; details: unknown } };
    return { status: e.output.statusCode, code: e.data.code, details: e.data.details };
  }
}

t.test("the spec's transitions", (t) => {
  for (const s of TICKET_STATES.filter((x) => x !== 'closed'))
    t.equal(nextState(s, 'close'), 'closed', `${s} → closed`);
  t.equal(nextState('closed', 'reopen'), 'triage');
  t.equal(nextState('escalated', 'back_to_approval'), 'awaiting_approval');
  t.match(
    refusal(() => nextState('closed', 'close')),
    { status: 409, code: 'invalid_transition' },
  );
  t.match(
    refusal(() => nextState('triage', 'reopen')),
    {
      status: 409,
      code: 'invalid_transition',
      details: { state: 'triage', event: 'reopen', allowed_from: ['closed'] },
    },
  );
  t.equal(nextState('fixing', 'reply_sent'), 'fixing', 'a reply during the fix loop keeps the state');
  t.equal(nextState('draft_ready', 'reply_sent'), 'answered');
  t.equal(nextState('triage', 'needs_info_sent'), 'needs_info');
  t.equal(nextState('closed', 'customer_replied'), 'triage');
  t.equal(nextState('fixing', 'customer_replied'), 'fixing');
  t.notOk(canApply('escalated', 'escalate'));
  t.end();
});

t.test('docs/tickets.md documents the whole table', (t) => {
  const doc = readFileSync(new URL('../../../docs/tickets.md', import.meta.url), 'utf8');
  for (const [event, rule] of Object.entries(TRANSITIONS) as [TicketEvent, (typeof TRANSITIONS)[TicketEvent]][]) {
    t.match(doc, new RegExp(`\\| \`${event}\` \\|`), `${event} has a row`);
    for (const from of rule.from) t.ok(doc.includes(from), `${event}: ${from}`);
  }
  for (const [state, pub] of Object.entries(PUBLIC_STATE))
    t.match(doc, new RegExp(`\\| \`${state}\` \\| \`${pub}\` \\|`), `${state} → ${pub}`);
  t.end();
});

t.test('the SLA clock', (t) => {
  const start = new Date('2026-01-01T00:00:00Z');
  const ws = { sla_first_response_minutes: 60, sla_resolution_minutes: 600 };
  t.equal(
    slaDueAt({ state: 'received', sla_started_at: start, first_response_at: null }, ws)?.toISOString(),
    '2026-01-01T01:00:00.000Z',
  );
  t.equal(
    slaDueAt({ state: 'triage', sla_started_at: start, first_response_at: start }, ws)?.toISOString(),
    '2026-01-01T10:00:00.000Z',
  );
  for (const s of ['needs_info', 'answered', 'customer_notified', 'closed'] as const)
    t.equal(slaDueAt({ state: s, sla_started_at: start, first_response_at: null }, ws), null, `${s}: no SLA`);
  t.end();
});
