/**
 * Duplicate reports (docs/fixes.md, "Duplicates"): the older open ticket a new report likely
 * duplicates, by error group or by the code both reports name and their diagnoses point at.
 */
import type { Knex } from 'knex';
import { FixDiagnosis } from '../models/index.js';
import type { LoopTicket } from './deps.js';

/** An older open ticket the new report likely duplicates, and why. */
export interface LikelyDuplicate {
  id: string;
  subject: string;
  why: 'error_group' | 'same_code';
}

/** States of a ticket whose problem is still open (released and closed tickets are not duplicated: a new report after a release may be a regression). */
const OPEN_PROBLEM = [
  'received',
  'triage',
  'draft_ready',
  'needs_info',
  'answered',
  'fixing',
  'awaiting_approval',
  'releasing',
  'escalated',
];
/** States of a bug whose fix is at work or waits: a report of the same code joins it. */
const FIX_AT_WORK = ['fixing', 'awaiting_approval', 'releasing'];
const DOC_PATH = /(^|\/)(docs?|documentation)\/|(^|\/)readme[^/]*$|\.(md|mdx|rst|txt|adoc)$/i;

/** Code identifiers a report names (`cartTotal`, `tax_rate`): two reports of one defect name the same ones. */
function identifiersIn(text: string): Set<string> {
  return new Set(text.match(/\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g) ?? []);
}

/** The code files a diagnosis points at (documentation left out: many reports quote the same README). */
const codePaths = (refs: ReadonlyArray<{ path: string }> | null | undefined): Set<string> =>
  new Set((refs ?? []).map((r) => r.path).filter((p) => p && !DOC_PATH.test(p)));

/**
 * The older open ticket of the workspace this report likely duplicates: the same error group
 * (any open state), else a bug whose fix is at work, whose report names one of the same code
 * identifiers (`cartTotal`) and, when both diagnoses found places in the code, whose diagnosis
 * points at more than half of the new one's files. Null when none (docs/fixes.md, "Duplicates").
 */
export async function likelyDuplicate(
  trx: Knex,
  ticket: LoopTicket,
  references: ReadonlyArray<{ path: string }>,
): Promise<LikelyDuplicate | null> {
  const self = (await trx('tickets')
    .where({ org_id: ticket.org_id, id: ticket.id })
    .select('error_group_id', 'created_at')
    .first()) as { error_group_id: string | null; created_at: Date };
  const older = () =>
    trx('tickets')
      .where({ org_id: ticket.org_id, workspace_id: ticket.workspace_id })
      .whereNot('id', ticket.id)
      .where('created_at', '<', self.created_at);
  if (self.error_group_id) {
    const same = (await older()
      .where('error_group_id', self.error_group_id)
      .whereIn('state', OPEN_PROBLEM)
      .orderBy('created_at')
      .select('id', 'subject')
      .first()) as { id: string; subject: string } | undefined;
    if (same) return { ...same, why: 'error_group' };
  }
  const mine = codePaths(references);
  const candidates: Array<{ id: string; subject: string }> = await older()
    .whereIn('state', FIX_AT_WORK)
    .orderBy('created_at')
    .limit(50)
    .select('id', 'subject');
  if (candidates.length === 0) return null;
  const ids = candidates.map((c) => c.id);
  const rows = await FixDiagnosis.query(trx)
    .forOrg(ticket.org_id)
    .whereIn('ticket_id', ids)
    .orderBy('created_at', 'desc')
    .select('ticket_id', 'category', 'references');
  const latest = new Map<string, FixDiagnosis>();
  for (const r of rows) if (!latest.has(r.ticket_id)) latest.set(r.ticket_id, r);
  const words = await reportTexts(trx, ticket.org_id, [ticket.id, ...ids]);
  const named = identifiersIn(words.get(ticket.id) ?? '');
  // The reports must name the same code (same files alone are weak: a small repository puts every report in them);
  // when both diagnoses found places, more than half of the new one's must be the other's too.
  if (named.size === 0) return null;
  for (const c of candidates) {
    const dx = latest.get(c.id);
    if (dx?.category !== 'bug') continue;
    const theirNames = identifiersIn(words.get(c.id) ?? '');
    if (![...named].some((n) => theirNames.has(n))) continue;
    const theirs = codePaths(dx.references);
    const shared = [...mine].filter((p) => theirs.has(p)).length;
    if (mine.size === 0 || theirs.size === 0 || shared * 2 > mine.size) return { ...c, why: 'same_code' };
  }
  return null;
}

/** Subject and customer messages of each ticket, as one text (the report's words). */
async function reportTexts(trx: Knex, orgId: string, ticketIds: string[]): Promise<Map<string, string>> {
  const [subjects, messages] = await Promise.all([
    trx('tickets').where('org_id', orgId).whereIn('id', ticketIds).select('id', 'subject') as Promise<
      Array<{ id: string; subject: string }>
    >,
    trx('ticket_messages')
      .where({ org_id: orgId, direction: 'in', is_internal_note: false })
      .whereIn('ticket_id', ticketIds)
      .select('ticket_id', 'body_text') as Promise<Array<{ ticket_id: string; body_text: string | null }>>,
  ]);
  const out = new Map(subjects.map((r) => [r.id, r.subject]));
  for (const m of messages)
    out.set(m.ticket_id, `${out.get(m.ticket_id) ?? ''}\n${(m.body_text ?? '').slice(0, 20_000)}`);
  return out;
}
