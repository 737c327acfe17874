import type { Knex } from 'knex';
import type { Logger } from 'pino';
import {
  actorOfPrincipal,
  isAdapterError,
  type DraftResult,
  type FixReason,
  type JobResult,
  type TicketCategory,
} from '../../../core/contracts/index.js';
import { authorize, type Principal } from '../../../core/http/auth.js';
import { codeHostFailure, conflict, httpError } from '../../../core/http/errors.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import { iso } from '../../../core/http/times.js';

/** The lease owner of a job an IDE agent holds (claimed by its submission, for the moment of recording the result). */
export const MCP_OWNER = 'mcp';
export const MCP_EXECUTOR = 'agent-mcp';
const WORKERS = ['owner', 'admin', 'reviewer'] as const;

/** A job as the fixes plugin answers it (container entry `fixJobs`). */
type JobRow = NonNullable<Awaited<ReturnType<Cradle['fixJobs']['claim']>>>;

/** What the mcp plugin uses of the fixes and tickets plugins (container entries). */
export interface McpDeps {
  readonly db: Knex;
  readonly log: Logger;
  readonly jobs: Pick<Cradle['fixJobs'], 'claim' | 'finish' | 'event'>;
  readonly payloads: Pick<Cradle['fixPayloads'], 'build' | 'repositoryRefOf'>;
  readonly tickets: Pick<Cradle['ticketService'], 'load' | 'list' | 'detail'>;
  readonly drafts: Pick<Cradle['draftService'], 'create'>;
}

export interface ListInput {
  workspace_id?: string;
  state?: string[];
  category?: string[];
  q?: string;
  waiting_only?: boolean;
  cursor?: string;
  limit?: number;
}
export interface DiagnosisInput {
  ticket_id: string;
  category: TicketCategory;
  confidence: number;
  root_cause_md: string;
  references: Array<{ path: string; line_start?: number; line_end?: number; symbol?: string; url?: string }>;
  public_summary?: string;
  draft?: DraftResult;
  cost_usd?: number;
}
export interface DraftInput {
  ticket_id: string;
  kind: 'reply' | 'needs_info';
  body_md: string;
  public_summary?: string | null;
}
export interface FixInput {
  ticket_id: string;
  branch: string;
  head_sha?: string;
  tests_ran: boolean;
  tests_passed: boolean;
  verify_passed?: boolean;
  cost_usd?: number;
}

/**
 * The tools of the MCP endpoint (docs/mcp.md), for one principal (the user's API token): reads
 * through the tickets plugin (the same access rules as the API), results through the fixes
 * plugin's JobQueue, so the loop continues exactly as for an in-process or runner result.
 */
export class McpService {
  constructor(private readonly d: McpDeps) {}

  /**
   * Jobs of agent-mcp that wait for the IDE agent: queued (agent-mcp runs remote, so no worker
   * claims them), running under lease owner `mcp` (parked by an earlier version of the service), or
   * running with an expired lease (a submission that stopped half-way).
   */
  private waiting(q: Knex.QueryBuilder): Knex.QueryBuilder {
    return q
      .where('fix_jobs.executor', MCP_EXECUTOR)
      .where((w) =>
        w
          .where('fix_jobs.status', 'queued')
          .orWhere((r) =>
            r
              .where('fix_jobs.status', 'running')
              .where((o) =>
                o.where('fix_jobs.lease_owner', MCP_OWNER).orWhere('fix_jobs.lease_expires_at', '<', new Date()),
              ),
          ),
      );
  }

  /** Jobs of agent-mcp not ended yet (shown to the agent; one being submitted is among them for a moment). */
  private pending(q: Knex.QueryBuilder): Knex.QueryBuilder {
    return q.where('fix_jobs.executor', MCP_EXECUTOR).whereIn('fix_jobs.status', ['queued', 'running']);
  }

  private async waitingJobs(orgId: string, ticketIds: string[]): Promise<Map<string, JobRow>> {
    if (ticketIds.length === 0) return new Map();
    const rows = (await this.pending(
      this.d.db('fix_jobs').where('fix_jobs.org_id', orgId).whereIn('fix_jobs.ticket_id', ticketIds),
    )
      .orderBy('created_at', 'desc')
      .select('*')) as JobRow[];
    const out = new Map<string, JobRow>();
    for (const r of rows) if (!out.has(r.ticket_id)) out.set(r.ticket_id, r);
    return out;
  }

  async listTickets(principal: Principal, input: ListInput): Promise<Record<string, unknown>> {
    const limit = input.limit ?? 20;
    let items: Array<Record<string, unknown>>;
    let next: string | null = null;
    if (input.waiting_only) {
      // The tickets whose job waits for an IDE agent, oldest first (the agent's queue).
      const q = this.pending(
        this.d
          .db('fix_jobs')
          .join('tickets', 'tickets.id', 'fix_jobs.ticket_id')
          .where('fix_jobs.org_id', principal.orgId),
      );
      if (input.workspace_id) q.where('fix_jobs.workspace_id', input.workspace_id);
      if (principal.workspaceIds !== null) q.whereIn('fix_jobs.workspace_id', principal.workspaceIds);
      if (input.state?.length) q.whereIn('tickets.state', input.state);
      if (input.category?.length) q.whereIn('tickets.category', input.category);
      if (input.q) q.whereRaw(`tickets.search_vector @@ websearch_to_tsquery('simple', ?)`, [input.q]);
      const rows: Array<Record<string, unknown>> = await q
        .orderBy([{ column: 'fix_jobs.created_at' }, { column: 'fix_jobs.id' }])
        .limit(limit)
        .select(
          'tickets.id',
          'tickets.workspace_id',
          'tickets.subject',
          'tickets.state',
          'tickets.category',
          'tickets.priority',
          'tickets.language',
          'tickets.latest_confidence',
          'tickets.updated_at',
        );
      items = rows;
    } else {
      const page = await this.d.tickets.list(principal, {
        workspace_id: input.workspace_id,
        state: input.state,
        category: input.category,
        q: input.q,
        sort: 'updated',
        cursor: input.cursor,
        limit,
      });
      items = page.items;
      next = page.next_cursor;
    }
    const jobs = await this.waitingJobs(
      principal.orgId,
      items.map((i) => String(i.id)),
    );
    return {
      items: items.map((i) => {
        const job = jobs.get(String(i.id));
        return {
          id: i.id,
          workspace_id: i.workspace_id,
          subject: i.subject,
          state: i.state,
          category: i.category ?? null,
          priority: i.priority ?? null,
          language: i.language ?? null,
          latest_confidence: i.latest_confidence ?? null,
          updated_at: iso(i.updated_at as Date | string | null),
          waiting_job: job ? { id: job.id, kind: job.kind } : null,
        };
      }),
      next_cursor: next,
    };
  }

  /**
   * The ticket page (the Ticket of GET /v1/tickets/{id}: conversation, diagnosis with its
   * references, drafts, fix attempts, release, audit, jobs) and the job waiting for the agent.
   */
  async getTicket(principal: Principal, ticketId: string): Promise<Record<string, unknown>> {
    const ticket = await this.d.tickets.load(principal, ticketId);
    const [page, jobs] = await Promise.all([
      this.d.tickets.detail(ticket.org_id, ticket.id),
      this.waitingJobs(ticket.org_id, [ticket.id]),
    ]);
    const job = jobs.get(ticket.id);
    let waiting: Record<string, unknown> | null = null;
    if (job) {
      const { agentJob } = await this.d.payloads.build(job);
      waiting = {
        id: job.id,
        kind: job.kind,
        branch: agentJob.branch ?? null,
        instructions: agentJob.instructions,
        test_command: agentJob.test_command ?? null,
        repository: agentJob.repository,
        limits: agentJob.limits,
        deadline_at: iso(job.deadline_at),
      };
    }
    return { ticket: page, waiting_job: waiting };
  }

  /** The ticket's job of this kind that waits for the IDE agent, checked for the caller's access and role. */
  private async jobFor(principal: Principal, ticketId: string, kind: 'diagnose' | 'fix'): Promise<JobRow> {
    const ticket = await this.d.tickets.load(principal, ticketId);
    authorize(principal, { roles: WORKERS });
    const job = (await this.waiting(
      this.d
        .db('fix_jobs')
        .where({ 'fix_jobs.org_id': ticket.org_id, 'fix_jobs.ticket_id': ticket.id, 'fix_jobs.kind': kind }),
    )
      .orderBy('created_at', 'desc')
      .first()) as JobRow | undefined;
    if (!job) {
      const held = (await this.d
        .db('fix_jobs')
        .where({ org_id: ticket.org_id, ticket_id: ticket.id, kind, executor: MCP_EXECUTOR, status: 'running' })
        .first()) as JobRow | undefined;
      if (held)
        throw conflict('job_not_waiting', "Another submission is recording this job's result; try again in a moment", {
          job_id: held.id,
        });
      throw conflict(
        'no_waiting_job',
        `No ${kind === 'fix' ? 'fix' : 'diagnosis'} job of this ticket waits for an IDE agent (the workspace's execution_mode must be mcp)`,
        { kind },
      );
    }
    return job;
  }

  /** Takes the job for the IDE agent and records its result; the loop continues in the same transaction. */
  private async submit(principal: Principal, job: JobRow, result: JobResult): Promise<Record<string, unknown>> {
    if (!(job.status === 'running' && job.lease_owner === MCP_OWNER)) {
      const claimed = await this.d.jobs.claim(MCP_OWNER, [MCP_EXECUTOR], {
        orgId: job.org_id,
        workspaceId: job.workspace_id,
        jobId: job.id,
      });
      if (!claimed) throw conflict('job_not_waiting', 'The job no longer waits for an IDE agent', { job_id: job.id });
    }
    const ok = await this.d.jobs.finish(job.id, MCP_OWNER, result);
    if (!ok) throw conflict('job_not_waiting', 'The job no longer waits for an IDE agent', { job_id: job.id });
    await this.d.jobs.event(this.d.db, job, {
      level: 'info',
      type: 'mcp_result',
      message: `result submitted through MCP by ${principal.email ?? principal.userId ?? 'a token'}`,
      data: { user_id: principal.userId, token_id: principal.tokenId ?? null },
    });
    const next = (await this.d
      .db('fix_jobs')
      .where({ org_id: job.org_id, ticket_id: job.ticket_id, executor: MCP_EXECUTOR })
      .whereIn('status', ['queued', 'running'])
      .whereNot('id', job.id)
      .orderBy('created_at', 'desc')
      .select('id', 'kind')
      .first()) as { id: string; kind: string } | undefined;
    const ticket = (await this.d
      .db('tickets')
      .where({ org_id: job.org_id, id: job.ticket_id })
      .select('state')
      .first()) as { state: string };
    return {
      job_id: job.id,
      status: result.status,
      ticket_state: ticket.state,
      next_job: next ? { id: next.id, kind: next.kind } : null,
    };
  }

  async submitDiagnosis(principal: Principal, input: DiagnosisInput): Promise<Record<string, unknown>> {
    const job = await this.jobFor(principal, input.ticket_id, 'diagnose');
    return this.submit(principal, job, {
      status: 'succeeded',
      cost_usd: input.cost_usd ?? 0,
      diagnosis: {
        category: input.category,
        confidence: input.confidence,
        root_cause_md: input.root_cause_md,
        references: input.references,
        ...(input.public_summary ? { public_summary: input.public_summary } : {}),
      },
      drafts: input.draft ? [input.draft] : [],
    });
  }

  async submitDraft(principal: Principal, input: DraftInput): Promise<Record<string, unknown>> {
    authorize(principal, { roles: WORKERS });
    const draft = await this.d.drafts.create(actorOfPrincipal(principal), input.ticket_id, {
      kind: input.kind,
      body_md: input.body_md,
      public_summary: input.public_summary ?? null,
    });
    return { draft_id: draft.id, kind: draft.kind, status: draft.status, created_at: iso(draft.created_at) };
  }

  async submitFix(principal: Principal, input: FixInput): Promise<Record<string, unknown>> {
    const job = await this.jobFor(principal, input.ticket_id, 'fix');
    const branch = job.payload?.branch;
    if (branch && input.branch !== branch)
      throw httpError(422, 'branch_mismatch', `Push the fix to ${branch}`, { branch });
    const { host, ref } = await this.d.payloads.repositoryRefOf(job);
    let head: string;
    try {
      const found = await host.getBranch(ref, input.branch);
      if (!found)
        throw conflict('branch_not_found', `Push ${input.branch} to the repository first`, { branch: input.branch });
      head = found.sha;
    } catch (err) {
      if (isAdapterError(err)) throw codeHostFailure(err, 'The code host did not answer');
      throw err;
    }
    if (input.head_sha && input.head_sha !== head)
      throw conflict('sha_mismatch', 'The branch head is not the commit you verified', { head_sha: head });
    const verify = input.verify_passed ?? (input.tests_ran && input.tests_passed);
    const verified = verify && input.tests_ran && input.tests_passed;
    const reason: FixReason | null = verified
      ? null
      : !input.tests_ran
        ? 'tests_not_run_without_reason'
        : !input.tests_passed
          ? 'tests_failed'
          : 'verification_failed';
    const answer = await this.submit(principal, job, {
      status: 'succeeded',
      cost_usd: input.cost_usd ?? 0,
      fix: {
        branch: input.branch,
        head_sha: head,
        tests_ran: input.tests_ran,
        tests_passed: input.tests_passed,
        verify_passed: verify,
        reason,
      },
    });
    return { ...answer, branch: input.branch, head_sha: head, verified };
  }
}
