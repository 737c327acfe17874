import type { Knex } from 'knex';
import type { JobEventInput } from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import type { Principal } from '../../../core/http/auth.js';
import { httpError, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { FixJob, FixJobEvent } from '../models/index.js';
import type { TicketPort } from './deps.js';
import { mask, maskDeep } from './mask.js';

export interface JobEventOut {
  id: string;
  org_id: string;
  job_id: string;
  level: string;
  type: string;
  message: string;
  data: Record<string, unknown>;
  created_at: string;
}

const out = (e: FixJobEvent): JobEventOut => ({
  id: e.id,
  org_id: e.org_id,
  job_id: e.job_id,
  level: e.level,
  type: e.type,
  message: e.message,
  data: e.data ?? {},
  created_at: new Date(e.created_at).toISOString(),
});

/** The log of a ticket's job, oldest first; `after` (an event id or a date-time) tails it. */
export async function listJobEvents(
  db: Knex,
  tickets: TicketPort,
  principal: Principal,
  ticketId: string,
  jobId: string,
  q: { cursor?: string; limit: number; after?: string },
): Promise<Page<JobEventOut>> {
  const ticket = await tickets.load(principal, ticketId);
  const job = await FixJob.query(db).forOrg(principal.orgId).findById(jobId).select('id', 'ticket_id');
  if (!job || job.ticket_id !== ticket.id) throw notFound('job');
  const query = FixJobEvent.query(db).forOrg(principal.orgId).where({ job_id: job.id }).select('*');
  if (q.after) {
    if (/^jev_/.test(q.after)) {
      const from = await FixJobEvent.query(db)
        .forOrg(principal.orgId)
        .where({ job_id: job.id, id: q.after })
        .select('seq')
        .limit(1)
        .first();
      if (!from)
        throw httpError(400, 'invalid_request', 'after names no event of this job', {
          errors: [{ path: 'after', message: 'unknown event id' }],
        });
      query.where('seq', '>', from.seq);
    } else {
      const at = new Date(q.after);
      if (Number.isNaN(at.getTime()))
        throw httpError(400, 'invalid_request', 'after must be an event id or a date-time', {
          errors: [{ path: 'after', message: 'must be an event id or a date-time' }],
        });
      query.where('created_at', '>', at);
    }
  }
  const page = await paginate<Record<string, unknown>>(
    query.toKnexQuery(),
    [{ column: 'seq', direction: 'asc', type: 'string' }],
    q,
  );
  return { items: page.items.map((r) => out(r as unknown as FixJobEvent)), next_cursor: page.next_cursor };
}

/** Appends a masked line to a job's log. */
export async function appendJobEvent(
  trx: Knex,
  job: Pick<FixJob, 'id' | 'org_id'>,
  e: JobEventInput,
  secrets: readonly string[] = [],
): Promise<void> {
  await FixJobEvent.query(trx).insert({
    id: newId(FixJobEvent.idPrefix),
    org_id: job.org_id,
    job_id: job.id,
    level: e.level,
    type: e.type.slice(0, 64),
    message: mask(e.message, secrets).slice(0, 8000),
    data: (maskDeep(e.data ?? {}, secrets) as Record<string, unknown>) ?? {},
    created_at: new Date(),
  });
}
