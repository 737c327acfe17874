import type { Knex } from 'knex';
import { paginate, type Page, type SortKey } from '../../../core/http/pagination.js';
import {
  FixJob,
  FixRelease,
  type FixApproval,
  type FixAttempt,
  type Reference,
  type ReleaseStatus,
} from '../models/index.js';
import type { FixesDeps } from './deps.js';
import { iso } from '../../../core/http/times.js';

/*
 * The fix loop's part of the ticket page (docs/tickets.md, "The ticket page"): diagnosis, fixes,
 * release and jobs. Registered as `ticketPageSection:fixes`; the shapes are the tickets plugin's
 * TicketDiagnosis, TicketFixAttempt, TicketRelease and TicketJobList.
 */

/** What the tickets plugin hands a section (its TicketPageInput, structurally). */
interface SectionInput {
  db: Knex;
  ticket: { id: string; org_id: string; workspace_id: string };
}

type Ref = { type: string; id: string };

/** How many attempts and jobs the page carries (the jobs' list operation pages through the rest). */
const PAGE_LIMIT = 50;

/** Jobs newest first: the page's first page and GET /v1/tickets/{id}/jobs share the keys, so the page's next_cursor continues the list. */
const JOB_KEYS: SortKey[] = [
  { column: 'fix_jobs.created_at', direction: 'desc', type: 'date' },
  { column: 'fix_jobs.id', direction: 'desc', type: 'string' },
];

/** The job columns the page shows (not the payload nor the result, which can be large). */
const JOB_COLUMNS = [
  'id',
  'org_id',
  'ticket_id',
  'kind',
  'executor',
  'mode',
  'status',
  'attempts',
  'max_attempts',
  'cost_usd',
  'fix_attempt_id',
  'error_code',
  'error_detail',
  'run_after',
  'started_at',
  'heartbeat_at',
  'deadline_at',
  'finished_at',
  'cancel_requested_at',
  'created_at',
  'updated_at',
].map((c) => `fix_jobs.${c}`);

export function jobOut(j: FixJob): Record<string, unknown> {
  return {
    id: j.id,
    ticket_id: j.ticket_id,
    kind: j.kind,
    executor: j.executor,
    mode: j.mode,
    status: j.status,
    attempts: j.attempts,
    max_attempts: j.max_attempts,
    cost_usd: Number(j.cost_usd ?? 0),
    fix_attempt_id: j.fix_attempt_id ?? null,
    error_code: j.error_code ?? null,
    error_detail: j.error_detail ?? null,
    run_after: iso(j.run_after),
    started_at: iso(j.started_at),
    heartbeat_at: iso(j.heartbeat_at),
    deadline_at: iso(j.deadline_at),
    finished_at: iso(j.finished_at),
    cancel_requested_at: iso(j.cancel_requested_at),
    events_url: `/v1/tickets/${j.ticket_id}/jobs/${j.id}/events`,
    created_at: iso(j.created_at),
    updated_at: iso(j.updated_at),
  };
}

/** A page of a ticket's jobs (the caller checked access to the ticket). */
export async function listTicketJobs(
  db: Knex,
  orgId: string,
  ticketId: string,
  q: { cursor?: string | null; limit?: number },
): Promise<Page<Record<string, unknown>>> {
  const query = FixJob.query(db).forOrg(orgId).where('fix_jobs.ticket_id', ticketId).select(JOB_COLUMNS);
  const page = await paginate<Record<string, unknown>>(query.toKnexQuery(), JOB_KEYS, q);
  return { items: page.items.map((r) => jobOut(FixJob.fromDatabaseJson(r))), next_cursor: page.next_cursor };
}

type DiffUnavailable = 'no_pull_request' | 'no_repository' | 'github_not_configured' | 'not_loaded';

/**
 * Whether the diff operation has something to show, decided as it decides (fix-actions.ts diff)
 * without calling the code host: only there can it still find the host unavailable.
 */
function diffLink(
  ticketId: string,
  a: Pick<FixAttempt, 'id' | 'repository_id' | 'head_sha' | 'status' | 'pr_number'>,
  repositoryExists: boolean,
  hostConfigured: boolean,
): Record<string, unknown> {
  let unavailable: DiffUnavailable | null = null;
  if (!a.repository_id || !repositoryExists) unavailable = 'no_repository';
  else if (!hostConfigured) unavailable = 'github_not_configured';
  else if (!a.head_sha) unavailable = a.status === 'running' ? 'not_loaded' : 'no_pull_request';
  return {
    available: unavailable === null,
    unavailable,
    source: unavailable ? null : a.pr_number ? 'pull_request' : 'compare',
    url: `/v1/tickets/${ticketId}/fix-attempts/${a.id}/diff`,
    operation_id: 'getTicketFixDiff',
  };
}

/** Rows as the page statement gives them: JSON (dates as text), one object per row. */
interface DiagnosisJson {
  id: string;
  job_id: string | null;
  category: string;
  confidence: number | string;
  root_cause_md: string;
  references: Reference[] | null;
  public_summary: string | null;
  language: string | null;
  outcome: string;
  duplicate_of_ticket_id?: string | null;
  created_at: string;
  history_count: number;
}
type AttemptJson = Omit<FixAttempt, 'created_at' | 'updated_at'> & {
  created_at: string;
  updated_at: string;
  repository_exists: boolean;
};
type ApprovalJson = Pick<
  FixApproval,
  'id' | 'fix_attempt_id' | 'user_id' | 'role' | 'sha' | 'comment' | 'void_reason'
> & { voided_at: string | null; created_at: string };
type ReleaseJson = Record<string, unknown> & {
  id: string;
  batch_id: string | null;
  batch: Record<string, unknown> | null;
};

function approvalOut(a: ApprovalJson): Record<string, unknown> {
  return {
    id: a.id,
    user_id: a.user_id,
    role: a.role,
    sha: a.sha,
    comment: a.comment ?? null,
    voided_at: iso(a.voided_at),
    void_reason: a.void_reason ?? null,
    created_at: iso(a.created_at),
  };
}

const STEPS: ReadonlySet<ReleaseStatus> = new Set(['merging', 'waiting_version', 'tagging', 'releasing', 'notifying']);

/**
 * The ticket's release row, and the batched release its merge joined (`batch`), as the statement
 * gives them. The notice is sent when the release is: in its last transaction, except the
 * customer's when the white-label guard holds it back as a draft for a person's click.
 */
function releaseOut(json: ReleaseJson, notice: NoticeJson | null): Record<string, unknown> {
  const row = FixRelease.fromDatabaseJson(json);
  // What ships the fix: the batch once the merge joined one, else the ticket's own release.
  const ships = json.batch ? FixRelease.fromDatabaseJson(json.batch) : row;
  const status = ships.status;
  const step =
    status === 'failed'
      ? ships.failed_step && STEPS.has(ships.failed_step)
        ? ships.failed_step
        : null
      : STEPS.has(status)
        ? status
        : null;
  const released = status === 'released';
  const noticeSent = released && (!notice || notice.status === 'sent');
  return {
    id: row.id,
    release_id: ships.id,
    kind: json.batch ? 'batched' : 'per_ticket',
    status,
    step,
    failed_step: ships.failed_step ?? null,
    strategy: ships.strategy,
    version: ships.version ?? null,
    tag: ships.tag ?? null,
    approved_sha: row.approved_sha ?? null,
    merge_sha: row.merge_sha ?? null,
    ci_state: ships.ci_state ?? null,
    url: ships.release_url ?? null,
    notice_sent: noticeSent,
    notice_sent_at: noticeSent ? iso(notice?.sent_at ?? ships.released_at) : null,
    notice_draft_id: released ? (notice?.id ?? null) : null,
    error_code: ships.error_code ?? null,
    error_detail: ships.error_detail ?? null,
    released_at: iso(ships.released_at),
    created_at: iso(row.created_at),
    updated_at: iso(ships.updated_at ?? row.updated_at),
  };
}

/**
 * One statement for the ticket's latest diagnosis (with the count), its newest attempts (with
 * whether their repository is still connected), their approvals, and its latest release with the
 * batch it joined: each part a scalar subquery giving JSON, each found by ticket_id through an
 * index. One round trip matters most on PGlite, where every statement has a fixed cost.
 */
const PAGE_STATEMENT = `
  select
    (select row_to_json(d) from (
      select fix_diagnoses.*, count(*) over () as history_count from fix_diagnoses
      where org_id = :org and ticket_id = :ticket order by created_at desc, id desc limit 1) d) as diagnosis,
    (select coalesce(json_agg(a order by a.number desc), cast('[]' as json)) from (
      select fix_attempts.*, repositories.id is not null as repository_exists from fix_attempts
      left join repositories on repositories.id = fix_attempts.repository_id and repositories.org_id = fix_attempts.org_id
      where fix_attempts.org_id = :org and fix_attempts.ticket_id = :ticket order by fix_attempts.number desc limit ${PAGE_LIMIT}) a) as attempts,
    (select coalesce(json_agg(p order by p.created_at, p.id), cast('[]' as json)) from (
      select id, fix_attempt_id, user_id, role, sha, comment, voided_at, void_reason, created_at from fix_approvals
      where org_id = :org and ticket_id = :ticket and fix_attempt_id is not null) p) as approvals,
    (select row_to_json(x) from (
      select r.*, case when b.id is null then null else row_to_json(b) end as batch from fix_releases r
      left join fix_releases b on b.id = r.batch_id and b.org_id = r.org_id
      where r.org_id = :org and r.ticket_id = :ticket order by r.created_at desc, r.id desc limit 1) x) as release,
    (select row_to_json(n) from (
      select id, status, sent_at from ticket_drafts
      where org_id = :org and ticket_id = :ticket and kind = 'release_notice' order by created_at desc, id desc limit 1) n) as notice`;

/** The customer's release notice, a `release_notice` Draft of the ticket (tickets' table, read here like the job payload reads messages). */
interface NoticeJson {
  id: string;
  status: string;
  sent_at: string | null;
}
interface PageRow {
  diagnosis: DiagnosisJson | null;
  attempts: AttemptJson[];
  approvals: ApprovalJson[];
  release: ReleaseJson | null;
  notice: NoticeJson | null;
}

/** JSON columns come parsed from pg, and as text from some drivers. */
const parsed = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

/**
 * `ticketPageSection:fixes`: three reads run together, whatever the number of attempts,
 * approvals or jobs: the page statement (diagnosis, attempts, approvals, release), the newest
 * jobs with the total (keyset, as the jobs list), and the approval policy.
 */
export class FixesTicketPageSection {
  readonly keys = ['diagnosis', 'fixes', 'release', 'jobs'] as const;

  constructor(private readonly d: Pick<FixesDeps, 'governance' | 'codeHost' | 'repositories'>) {}

  async load({ db, ticket }: SectionInput): Promise<{ fields: Record<string, unknown>; related: Ref[] }> {
    const orgId = ticket.org_id;
    const [rows, jobs, policy] = await Promise.all([
      db.raw(PAGE_STATEMENT, { org: orgId, ticket: ticket.id }) as unknown as Promise<{ rows: PageRow[] }>,
      paginate<Record<string, unknown>>(
        FixJob.query(db)
          .forOrg(orgId)
          .where('fix_jobs.ticket_id', ticket.id)
          .select([...JOB_COLUMNS, db.raw('count(*) over () as _total')])
          .toKnexQuery(),
        JOB_KEYS,
        { limit: PAGE_LIMIT },
      ),
      this.d.governance ? this.d.governance.policy(orgId, db) : Promise.resolve({ minApprovers: 1 }),
    ]);
    const row = rows.rows[0];
    const dx = row.diagnosis ? parsed(row.diagnosis) : null;
    const attempts = parsed(row.attempts);
    const approvals = parsed(row.approvals);
    const rel = row.release ? parsed(row.release) : null;

    const diagnosis = dx
      ? {
          id: dx.id,
          job_id: dx.job_id ?? null,
          category: dx.category,
          confidence: Number(dx.confidence),
          root_cause_md: dx.root_cause_md,
          references: (dx.references ?? []).map((r) => ({
            path: r.path,
            line_start: r.line_start ?? null,
            line_end: r.line_end ?? null,
            symbol: r.symbol ?? null,
            url: r.url ?? null,
          })),
          public_summary: dx.public_summary ?? null,
          language: dx.language ?? null,
          outcome: dx.outcome,
          duplicate_of_ticket_id: dx.duplicate_of_ticket_id ?? null,
          created_at: iso(dx.created_at),
          history_count: Number(dx.history_count),
        }
      : null;

    const byAttempt = new Map<string, ApprovalJson[]>();
    for (const a of approvals) {
      const list = byAttempt.get(a.fix_attempt_id!);
      if (list) list.push(a);
      else byAttempt.set(a.fix_attempt_id!, [a]);
    }
    const hostConfigured = !!(this.d.codeHost && this.d.repositories);
    const fixes = attempts.map((a) => {
      const mine = byAttempt.get(a.id) ?? [];
      return {
        id: a.id,
        number: a.number,
        status: a.status,
        job_id: a.job_id ?? null,
        repository_id: a.repository_id ?? null,
        branch: a.branch,
        base_sha: a.base_sha ?? null,
        head_sha: a.head_sha ?? null,
        verify_passed: a.verify_passed,
        tests_passed: a.tests_passed,
        tests_ran: a.tests_ran,
        reason: a.reason ?? null,
        reviewer_notes: a.reviewer_notes ?? null,
        pull_request: a.pr_number ? { number: a.pr_number, url: a.pr_url ?? '', state: a.pr_state ?? null } : null,
        approvals: mine.map(approvalOut),
        approval_count: a.head_sha
          ? new Set(mine.filter((x) => !x.voided_at && x.sha === a.head_sha).map((x) => x.user_id)).size
          : 0,
        min_approvers: policy.minApprovers,
        diff: diffLink(ticket.id, a, a.repository_exists, hostConfigured),
        created_at: iso(a.created_at),
        updated_at: iso(a.updated_at),
      };
    });

    const jobItems = jobs.items.map(({ _total, ...r }) => FixJob.fromDatabaseJson(r));
    const related: Ref[] = [
      ...attempts.map((a) => ({ type: 'fix_attempt', id: a.id })),
      ...(rel ? [{ type: 'release', id: rel.id }] : []),
      ...(rel?.batch_id ? [{ type: 'release', id: rel.batch_id }] : []),
      ...jobItems.map((j) => ({ type: 'job', id: j.id })),
    ];
    return {
      fields: {
        diagnosis,
        fixes,
        release: rel ? releaseOut(rel, row.notice ? parsed(row.notice) : null) : null,
        jobs: {
          items: jobItems.map(jobOut),
          next_cursor: jobs.next_cursor,
          total: jobs.items.length ? Number(jobs.items[0]._total) : 0,
        },
      },
      related,
    };
  }
}
