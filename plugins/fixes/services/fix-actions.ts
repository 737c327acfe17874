import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { isAdapterError, systemActor, type SignedInActor } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import { codeHostFailure, conflict, httpError, notFound } from '../../../core/http/errors.js';
import { FixApproval, FixAttempt, FixDiagnosis, FixJob, FixRelease } from '../models/index.js';
import type { FixesDeps, LoopTicket } from './deps.js';
import { fixInstructions, type FixLoop } from './loop.js';
import type { PullRequests } from './pull-requests.js';
import type { JobQueue } from './job-queue.js';
import type { DiffUnavailable } from '../../../core/contracts/fix-statuses.js';
import { approverOr403 } from './release-approvals.js';

export interface FixDiff {
  text: string | null;
  truncated: boolean;
  unavailable: DiffUnavailable | null;
  source: 'pull_request' | 'compare' | null;
}

/**
 * The team's fix operations of the tickets section: read a fix's diff, open its pull request
 * (copilot), reject it, request changes (a new attempt with the reviewer's notes).
 */
export class FixActions {
  constructor(
    private readonly d: FixesDeps,
    private readonly loop: FixLoop,
    private readonly prs: PullRequests,
    private readonly queue: JobQueue,
  ) {}

  /**
   * An escalated ticket of a workspace that runs fixes elsewhere is fixed in the managed sandbox
   * for one fix credit (billingGate): a queued fix job is replaced; a fix at work refuses with
   * 409 fix_job_active.
   */
  async fixInManaged(a: SignedInActor, ticketId: string): Promise<Record<string, unknown>> {
    await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(a.principal, ticketId, trx, { forUpdate: true });
      await approverOr403(this.d, a.principal, ticket.workspace_id, trx);
      const active = await FixJob.query(trx)
        .forOrg(ticket.org_id)
        .where({ ticket_id: ticket.id, kind: 'fix' })
        .whereIn('status', ['queued', 'running']);
      const running = active.find((j) => j.status === 'running');
      if (running) throw conflict('fix_job_active', 'A fix job is at work on this ticket', { job_id: running.id });
      if (ticket.state !== 'escalated')
        throw conflict('invalid_transition', `A ticket in state ${ticket.state} cannot fix in managed`, {
          state: ticket.state,
          event: 'fix_in_managed',
          allowed_from: ['escalated'],
        });
      const managed = this.d.executors.find((e) => e.mode === 'managed' && e.capabilities.fix);
      if (!managed) throw conflict('no_fix_executor', 'No managed executor is configured (adapters.agent)', {});
      const repo = (await trx('repositories')
        .where({ org_id: ticket.org_id, workspace_id: ticket.workspace_id })
        .orderBy('created_at')
        .select('id')
        .first()) as { id: string } | undefined;
      if (!repo) throw httpError(422, 'no_repository', 'The workspace has no repository');
      for (const j of active) {
        await this.queue.cancel(trx, j, 'replaced by a fix in the managed sandbox');
        if (j.fix_attempt_id)
          await FixAttempt.query(trx)
            .forOrg(ticket.org_id)
            .patch({ status: 'superseded' })
            .where('id', j.fix_attempt_id);
      }
      const ws = await this.d.workspaces.get(ticket.org_id, ticket.workspace_id, trx);
      const dx = await this.latestDiagnosis(trx, ticket);
      const attempt = await this.loop.queueFix(trx, ticket, ws, managed, {
        repositoryId: repo.id,
        event: 'fix_in_managed',
        instructions: fixInstructions(dx?.root_cause_md ?? '', null),
      });
      const job = await FixAttempt.query(trx).forOrg(ticket.org_id).findById(attempt.id).select('job_id');
      // One fix credit (402 plan_limit_reached when none is left and overage is off); rolls everything back on refusal.
      await this.d.billingGate?.authorizeJob(trx, {
        orgId: ticket.org_id,
        workspaceId: ticket.workspace_id,
        kind: 'fix',
        estimatedCostUsd: ws.agent_config?.max_cost_usd ?? this.d.options.defaultMaxCostUsd,
        jobId: job?.job_id ?? attempt.id,
      });
      await this.audit(
        trx,
        a,
        ticket,
        'fix.managed_requested',
        attempt,
        { status: 'running' },
        { replaced_jobs: active.map((j) => j.id) },
      );
    });
    return this.d.tickets.detail(a.principal.orgId, ticketId);
  }

  private audit(
    trx: Knex,
    a: SignedInActor,
    ticket: LoopTicket,
    action: string,
    attempt: FixAttempt,
    changes: Record<string, unknown>,
    metadata: Record<string, unknown> = {},
  ) {
    return this.d.audit.record(trx, {
      actor: a,
      action,
      target: { type: 'fix_attempt', id: attempt.id },
      workspaceId: ticket.workspace_id,
      changes: diffFields({ status: attempt.status }, changes),
      metadata: { ticket_id: ticket.id, ...metadata },
    });
  }

  /** The ticket's latest diagnosis, whose root cause a new fix starts from. */
  private async latestDiagnosis(trx: Knex, ticket: LoopTicket): Promise<FixDiagnosis | undefined> {
    return FixDiagnosis.query(trx)
      .forOrg(ticket.org_id)
      .where({ ticket_id: ticket.id })
      .orderBy('created_at', 'desc')
      .limit(1)
      .first();
  }

  private async attemptOf(trx: Knex, ticket: LoopTicket, attemptId: string, lock = false): Promise<FixAttempt> {
    const q = FixAttempt.query(trx).forOrg(ticket.org_id).findById(attemptId);
    if (lock) q.forUpdate();
    const attempt = await q;
    if (!attempt || attempt.ticket_id !== ticket.id) throw notFound('fix attempt');
    return attempt;
  }

  /** FixDiff of an attempt: the pull request's diff, or a compare of its branch; `unavailable` says why not. */
  async diff(principal: Principal, ticketId: string, attemptId: string): Promise<FixDiff> {
    const ticket = await this.d.tickets.load(principal, ticketId);
    const attempt = await this.attemptOf(this.d.db, ticket, attemptId);
    const none = (unavailable: FixDiff['unavailable']): FixDiff => ({
      text: null,
      truncated: false,
      unavailable,
      source: null,
    });
    if (!attempt.repository_id) return none('no_repository');
    const row = (await this.d
      .db('repositories')
      .where({ org_id: ticket.org_id, id: attempt.repository_id })
      .select('default_branch')
      .first()) as { default_branch: string } | undefined;
    if (!row) return none('no_repository');
    if (!this.d.codeHost || !this.d.repositories) return none('github_not_configured');
    if (!attempt.head_sha) return none(attempt.status === 'running' ? 'not_loaded' : 'no_pull_request');
    try {
      const ref = await this.d.repositories.ref(ticket.org_id, attempt.repository_id);
      const cmp = await this.d.codeHost.compare(ref, row.default_branch, attempt.head_sha);
      return {
        text: cmp.diff,
        truncated: cmp.truncated,
        unavailable: null,
        source: attempt.pr_number ? 'pull_request' : 'compare',
      };
    } catch (err) {
      if (isAdapterError(err, 'not_found')) return none('not_loaded');
      if (isAdapterError(err) || (err as { isBoom?: boolean }).isBoom) return none('github_unavailable');
      throw err;
    }
  }

  /** Copilot: opens (or finds) the pull request of a verified attempt. */
  async openPr(
    a: SignedInActor,
    ticketId: string,
    input: { fix_attempt_id: string; draft?: boolean },
  ): Promise<Record<string, unknown>> {
    const ticket = await this.d.tickets.load(a.principal, ticketId);
    const attempt = await this.attemptOf(this.d.db, ticket, input.fix_attempt_id);
    if (attempt.status !== 'verified')
      throw conflict('fix_not_verified', 'Only a verified fix gets a pull request', {
        status: attempt.status,
        reason: attempt.reason,
      });
    if (!attempt.pr_number) {
      try {
        await this.prs.openFor(ticket.org_id, attempt.id, input.draft ?? false);
      } catch (err) {
        if (isAdapterError(err)) throw codeHostFailure(err, 'The code host refused to open the pull request');
        throw err;
      }
      await this.d.db.transaction(async (trx) => {
        const opened = await this.attemptOf(trx, ticket, attempt.id);
        await this.audit(
          trx,
          a,
          ticket,
          'fix.pull_request_opened',
          attempt,
          { status: attempt.status },
          { number: opened.pr_number, draft: input.draft ?? false },
        );
      });
    }
    return this.d.tickets.detail(ticket.org_id, ticket.id);
  }

  /** Closes the fix's pull request and hands the ticket to the team. */
  async reject(
    a: SignedInActor,
    ticketId: string,
    input: { fix_attempt_id: string; comment?: string | null },
  ): Promise<Record<string, unknown>> {
    const closing = await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(a.principal, ticketId, trx, { forUpdate: true });
      await approverOr403(this.d, a.principal, ticket.workspace_id, trx);
      const attempt = await this.attemptOf(trx, ticket, input.fix_attempt_id, true);
      if (!['verified', 'not_verified'].includes(attempt.status))
        throw conflict('invalid_transition', `A fix attempt that is ${attempt.status} cannot be rejected`, {
          resource: 'fix_attempt',
          status: attempt.status,
        });
      await this.d.tickets.transition(trx, ticket, 'reject', {
        escalation_reason: `Fix rejected${input.comment ? `: ${input.comment}` : ''}`.slice(0, 2000),
        escalated_at: new Date(),
      });
      await FixAttempt.query(trx)
        .forOrg(ticket.org_id)
        .patch({ status: 'rejected', reviewer_notes: input.comment ?? attempt.reviewer_notes })
        .where('id', attempt.id);
      await this.audit(
        trx,
        a,
        ticket,
        'fix.rejected',
        attempt,
        { status: 'rejected' },
        input.comment ? { comment: input.comment } : {},
      );
      await this.d.outbox.add(
        trx,
        'fixes.fix_rejected',
        { ticket_id: ticket.id, fix_attempt_id: attempt.id },
        { orgId: ticket.org_id },
      );
      return { ticket, attempt };
    });
    await this.closePr(closing.ticket, closing.attempt);
    return this.d.tickets.detail(closing.ticket.org_id, closing.ticket.id);
  }

  /** A new attempt with the reviewer's notes; the old pull request is closed. */
  async requestChanges(
    a: SignedInActor,
    ticketId: string,
    input: { fix_attempt_id: string; comment: string },
  ): Promise<Record<string, unknown>> {
    const old = await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(a.principal, ticketId, trx, { forUpdate: true });
      const attempt = await this.attemptOf(trx, ticket, input.fix_attempt_id, true);
      if (!['verified', 'not_verified'].includes(attempt.status))
        throw conflict('invalid_transition', `A fix attempt that is ${attempt.status} cannot take change requests`, {
          resource: 'fix_attempt',
          status: attempt.status,
        });
      const ws = await this.d.workspaces.get(ticket.org_id, ticket.workspace_id, trx);
      const fixer = this.loop.fixer(ws);
      if (!fixer)
        throw conflict('no_fix_executor', `No executor writes fixes for the execution mode ${ws.execution_mode}`, {
          execution_mode: ws.execution_mode,
        });
      if (!attempt.repository_id) throw httpError(422, 'no_repository', 'The workspace has no repository');
      await FixAttempt.query(trx)
        .forOrg(ticket.org_id)
        .patch({ status: 'superseded', reviewer_notes: input.comment })
        .where('id', attempt.id);
      const dx = await this.latestDiagnosis(trx, ticket);
      const next = await this.loop.queueFix(trx, ticket, ws, fixer, {
        repositoryId: attempt.repository_id,
        notes: input.comment,
        event: 'request_changes',
        instructions: fixInstructions(dx?.root_cause_md ?? '', input.comment),
      });
      await this.audit(
        trx,
        a,
        ticket,
        'fix.changes_requested',
        attempt,
        { status: 'superseded' },
        { comment: input.comment, next_fix_attempt_id: next.id },
      );
      return { ticket, attempt };
    });
    await this.closePr(old.ticket, old.attempt);
    return this.d.tickets.detail(old.ticket.org_id, old.ticket.id);
  }

  /**
   * `tickets.closed`: a closed ticket's fix work stops. Its queued or running fix jobs are
   * cancelled, its open attempts (running, verified, not verified; not one whose release is
   * merging) are `superseded` with their approvals voided (`ticket_closed`), and their pull
   * requests are closed on the host after the commit. A ticket reopened meanwhile is left alone.
   */
  async closeForTicket(orgId: string, ticketId: string, reason: string): Promise<string[]> {
    const closed = await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.mustGet(trx, orgId, ticketId).catch(() => null);
      if (!ticket || ticket.state !== 'closed') return null;
      for (const job of await FixJob.query(trx)
        .forOrg(orgId)
        .where({ ticket_id: ticketId, kind: 'fix' })
        .whereIn('status', ['queued', 'running'])
        .forUpdate()) {
        await this.queue.cancel(trx, job, `the ticket was closed (${reason})`);
      }
      const merging = (
        await FixRelease.query(trx)
          .forOrg(orgId)
          .where({ ticket_id: ticketId, status: 'merging' })
          .select('fix_attempt_id')
      ).map((r) => r.fix_attempt_id);
      const open = await FixAttempt.query(trx)
        .forOrg(orgId)
        .where({ ticket_id: ticketId })
        .whereIn('status', ['running', 'verified', 'not_verified'])
        .whereNotIn(
          'id',
          merging.filter((x): x is string => !!x),
        )
        .forUpdate();
      if (open.length === 0) return { ticket, attempts: [] as FixAttempt[] };
      const ids = open.map((a) => a.id);
      await FixAttempt.query(trx).forOrg(orgId).patch({ status: 'superseded' }).whereIn('id', ids);
      await FixApproval.query(trx)
        .forOrg(orgId)
        .patch({ voided_at: new Date(), void_reason: 'ticket_closed' })
        .whereIn('fix_attempt_id', ids)
        .whereNull('voided_at');
      for (const a of open) {
        await this.d.audit.record(trx, {
          orgId,
          actor: systemActor('fixes', orgId),
          action: 'fix.closed_with_ticket',
          target: { type: 'fix_attempt', id: a.id },
          workspaceId: ticket.workspace_id,
          changes: diffFields({ status: a.status }, { status: 'superseded' }),
          metadata: { ticket_id: ticketId, reason, pr_number: a.pr_number },
        });
      }
      return { ticket, attempts: open };
    });
    if (!closed) return [];
    for (const a of closed.attempts) await this.closePr(closed.ticket, a);
    return closed.attempts.map((a) => a.id);
  }

  /** Closes an attempt's pull request on the host (after the decision is stored; a failure is logged and kept on the attempt). */
  private async closePr(ticket: LoopTicket, attempt: FixAttempt): Promise<void> {
    if (!attempt.pr_number || !attempt.repository_id || !this.d.codeHost || !this.d.repositories) return;
    try {
      const pr = await this.d.codeHost.closePullRequest(
        await this.d.repositories.ref(ticket.org_id, attempt.repository_id),
        attempt.pr_number,
      );
      await FixAttempt.query(this.d.db).forOrg(ticket.org_id).patch({ pr_state: pr.state }).where('id', attempt.id);
    } catch (err) {
      this.d.log.warn({ err, attemptId: attempt.id }, 'fixes: closing the pull request failed');
    }
  }
}
