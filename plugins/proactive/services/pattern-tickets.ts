import type { Knex } from 'knex';
import type { StackFrame } from '../../../core/contracts/index.js';
import { problemOf, scrubber, type ProblemSignature } from './pattern-signature.js';

/** The fields of a ticket a pattern is made from or matched against. */
export interface PatternTicket {
  id: string;
  org_id: string;
  workspace_id: string;
  subject: string;
  state: string;
  close_reason: string | null;
  category: string;
  customer_email: string | null;
  customer_name: string | null;
  error_group_id: string | null;
  public_summary: string | null;
}

const TICKET_COLUMNS = [
  'id',
  'org_id',
  'workspace_id',
  'subject',
  'state',
  'close_reason',
  'category',
  'customer_email',
  'customer_name',
  'error_group_id',
  'public_summary',
] as const;

/** The ticket of an organization, or undefined. */
export async function patternTicket(db: Knex, orgId: string, ticketId: string): Promise<PatternTicket | undefined> {
  return await db('tickets')
    .where({ org_id: orgId, id: ticketId })
    .first<PatternTicket | undefined>(...TICKET_COLUMNS);
}

interface GroupOfTicket {
  type: string;
  title: string;
  normalized_message: string;
  frames: StackFrame[] | string;
  fingerprint: string;
}

export interface TicketProblem {
  problem: ProblemSignature;
  scrub: (s: string) => string;
  diagnosis: { root_cause_md: string; public_summary: string | null } | null;
  groupTitle: string | null;
}

/** The ticket's problem, from its error group and latest diagnosis, scrubbed and masked; and the scrubber used. */
export async function problemOfTicket(trx: Knex, t: PatternTicket): Promise<TicketProblem> {
  // One query after the other: inside a transaction PGlite has one connection.
  const org = await trx('organizations')
    .where({ id: t.org_id })
    .first<{ name: string; slug: string } | undefined>('name', 'slug');
  const ws = await trx('workspaces')
    .where({ id: t.workspace_id, org_id: t.org_id })
    .first<{ name: string; slug: string; client_name: string | null } | undefined>('name', 'slug', 'client_name');
  const repos = await trx('repositories')
    .where({ org_id: t.org_id, workspace_id: t.workspace_id })
    .pluck<string[]>('full_name');
  const group = t.error_group_id
    ? await trx('error_groups')
        .where({ org_id: t.org_id, id: t.error_group_id })
        .first<GroupOfTicket | undefined>('type', 'title', 'normalized_message', 'frames', 'fingerprint')
    : undefined;
  const diagnosis = await trx('fix_diagnoses')
    .where({ org_id: t.org_id, ticket_id: t.id })
    .orderBy('created_at', 'desc')
    .first<{ root_cause_md: string; public_summary: string | null; category: string } | undefined>(
      'root_cause_md',
      'public_summary',
      'category',
    );
  const scrub = scrubber([
    { value: t.customer_email, as: '<customer>' },
    { value: t.customer_name, as: '<customer>' },
    { value: org?.name, as: '<org>' },
    { value: org?.slug, as: '<org>' },
    { value: ws?.name, as: '<workspace>' },
    { value: ws?.slug, as: '<workspace>' },
    { value: ws?.client_name, as: '<workspace>' },
    ...repos.flatMap((r) => [
      { value: r, as: '<repository>' },
      { value: r.split('/')[0], as: '<org>' },
      { value: r.split('/')[1], as: '<repository>' },
    ]),
  ]);
  const frames = group
    ? Array.isArray(group.frames)
      ? group.frames
      : (JSON.parse(group.frames || '[]') as StackFrame[])
    : [];
  const problem = problemOf({
    category: diagnosis?.category ?? t.category ?? 'unknown',
    subject: t.subject,
    rootCause: diagnosis?.root_cause_md ?? null,
    group: group
      ? { type: group.type, normalized_message: group.normalized_message, frames, fingerprint: group.fingerprint }
      : null,
    scrub,
  });
  return { problem, scrub, diagnosis: diagnosis ?? null, groupTitle: group?.title ?? null };
}

/** The scrubber of a pattern's source ticket; a ticket deleted since still scrubs its organization's and workspace's names. */
export async function scrubOfTicket(
  trx: Knex,
  orgId: string,
  ticketId: string,
  workspaceId: string,
): Promise<(s: string) => string> {
  const t = await patternTicket(trx, orgId, ticketId);
  if (!t) {
    return (
      await problemOfTicket(trx, {
        id: ticketId,
        org_id: orgId,
        workspace_id: workspaceId,
        subject: '',
        state: 'closed',
        close_reason: null,
        category: 'unknown',
        customer_email: null,
        customer_name: null,
        error_group_id: null,
        public_summary: null,
      })
    ).scrub;
  }
  return (await problemOfTicket(trx, t)).scrub;
}

export function firstParagraph(md: string | null | undefined): string | null {
  if (!md) return null;
  const p = md
    .split(/\n\s*\n/)
    .map((s) => s.trim())
    .find(Boolean);
  return p ?? null;
}
