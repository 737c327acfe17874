import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import type { AgentExecutor, JobResult, TicketCategory } from '../../../core/contracts/index.js';
import { FixAttempt, FixDiagnosis, type FixJob } from '../models/index.js';
import type { FixesDeps, LoopTicket, LoopWorkspace, TicketEvent } from './deps.js';
import type { JobQueue } from './job-queue.js';
import { likelyDuplicate, type LikelyDuplicate } from './likely-duplicate.js';

export const AUTOPILOT_SEND = 'fixes.autopilot_send';
export const OPEN_PR = 'fixes.open_pr';
/** The model-backed executor (adapters/agent-model): managed workspaces with an API key use it when it is on. */
const MODEL_EXECUTOR = 'agent-model';

/** The service prefix of every branch the loop pushes (the codehost plugin ignores its own pull requests by it). */
export const BRANCH_PREFIX = 'patchwell/';

/** Reasons the loop hands a ticket to the team (escalation_reason, shown to the team). */
const REASONS = {
  unanswered: (c: string, conf: number) =>
    `The assistant could not answer this from the repository's documentation (category ${c}, confidence ${conf.toFixed(2)}).`,
  bug: (conf: number) =>
    `The assistant diagnosed a defect (confidence ${conf.toFixed(2)}); a fix needs a person or a fix executor.`,
  failed: (error: { code: string; detail?: string } | undefined) =>
    `The diagnosis job failed (${error?.code ?? 'no_diagnosis'})${error?.detail ? `: ${error.detail.slice(0, 500)}` : '.'}`,
  dead: (code: string) => `The ${'job'} stopped after its last attempt (${code}).`,
  duplicate: (d: LikelyDuplicate) =>
    `Likely a duplicate of ticket ${d.id} ("${d.subject.slice(0, 120)}"): ${d.why === 'error_group' ? 'the same error group' : 'a bug in the same code, already being fixed'}. ` +
    'Close it as a duplicate to keep the customer informed through the original; no second fix was started.',
};

/** The interim message a customer gets while the fix is prepared (a draft; autopilot sends it when it sends bugs). */
const INTERIM: Record<'en' | 'it', (statusUrl: string) => string> = {
  en: (url) =>
    `Hello,\n\nthank you for your report. We found the cause of the problem and a fix is being prepared; we will write to you again as soon as it is released.\n\nYou can follow your request here: ${url}\n`,
  it: (url) =>
    `Buongiorno,\n\ngrazie per la segnalazione. Abbiamo trovato la causa del problema e stiamo preparando una correzione; le scriveremo di nuovo appena sarà rilasciata.\n\nPuò seguire la richiesta qui: ${url}\n`,
};

/** Whether autopilot sends a draft of this diagnosis by itself. */
export function autopilotAllows(
  ws: Pick<LoopWorkspace, 'autonomy' | 'autopilot_categories' | 'confidence_threshold'>,
  category: TicketCategory,
  confidence: number,
): boolean {
  return (
    ws.autonomy === 'autopilot' && ws.autopilot_categories.includes(category) && confidence >= ws.confidence_threshold
  );
}

/**
 * The loop from a received ticket to an answer: queues the diagnosis job, stores what it found,
 * drafts in the ticket's language, and follows the workspace's autonomy (copilot and approve:
 * drafts wait for a person; autopilot: categories of autopilot_categories at or above
 * confidence_threshold are sent by themselves); what the automation cannot answer is escalated.
 */
export class FixLoop {
  constructor(
    private readonly d: FixesDeps,
    private readonly queue: JobQueue,
  ) {}

  /**
   * Whether an executor serves the workspace: its execution mode, and in managed mode the
   * model-backed executor (agent-model, when configured) for workspaces whose agent signs in with
   * an API key (a model key credential), the CLI agent (agent-managed) for the others.
   */
  private serves(e: AgentExecutor, ws: LoopWorkspace): boolean {
    if (e.mode !== ws.execution_mode) return false;
    if (ws.execution_mode !== 'managed') return true;
    const modelBacked = e.identifier === MODEL_EXECUTOR;
    const wantsModel = ws.auth_method === 'api-key' && this.d.executors.some((x) => x.identifier === MODEL_EXECUTOR);
    return modelBacked === wantsModel;
  }

  /** The executor that diagnoses: the workspace's execution mode when it runs diagnoses, else the builtin one. */
  diagnoser(ws: LoopWorkspace): AgentExecutor | undefined {
    const capable = this.d.executors.filter((e) => e.capabilities.diagnose);
    return capable.find((e) => this.serves(e, ws)) ?? capable.find((e) => e.mode === 'builtin') ?? capable[0];
  }

  /** The executor that writes fixes for the workspace's execution mode, if one is configured. */
  fixer(ws: LoopWorkspace): AgentExecutor | undefined {
    return this.d.executors.find((e) => e.capabilities.fix && this.serves(e, ws));
  }

  /**
   * Queues a fix attempt (number n, branch `patchwell/<ticket>-<n>`) and its job; the ticket moves
   * with `event` (fix_started from triage, request_changes from awaiting_approval, …).
   */
  async queueFix(
    trx: Knex,
    ticket: LoopTicket,
    ws: LoopWorkspace,
    executor: AgentExecutor,
    input: { repositoryId: string; notes?: string | null; event: TicketEvent; instructions: string },
  ): Promise<FixAttempt> {
    const last = (await FixAttempt.query(trx)
      .forOrg(ticket.org_id)
      .where({ ticket_id: ticket.id })
      .max('number as n')
      .first()) as unknown as { n: number | null } | undefined;
    const number = (last?.n ?? 0) + 1;
    const attempt = await FixAttempt.query(trx)
      .insert({
        id: newId(FixAttempt.idPrefix),
        org_id: ticket.org_id,
        ticket_id: ticket.id,
        workspace_id: ticket.workspace_id,
        number,
        repository_id: input.repositoryId,
        branch: `${BRANCH_PREFIX}${ticket.id}-${number}`,
        status: 'running',
        reviewer_notes: input.notes ?? null,
      })
      .returning('*');
    const job = await this.queue.enqueue(trx, {
      orgId: ticket.org_id,
      workspaceId: ticket.workspace_id,
      ticketId: ticket.id,
      kind: 'fix',
      executor: executor.identifier,
      mode: executor.mode,
      payload: { instructions: input.instructions, branch: attempt.branch, repository_id: input.repositoryId },
      idempotencyKey: `fix:${attempt.id}`,
      fixAttemptId: attempt.id,
      maxMinutes: ws.agent_config?.max_minutes ?? this.d.options.defaultMaxMinutes,
    });
    await FixAttempt.query(trx)
      .forOrg(ticket.org_id)
      .patch({ job_id: job?.id ?? null })
      .where('id', attempt.id);
    await this.d.tickets.transition(trx, ticket, input.event);
    return attempt;
  }

  /** `tickets.created` (and a reopen): queue one diagnosis per ticket and opening. */
  async onTicketReceived(trx: Knex, orgId: string, ticketId: string): Promise<FixJob | undefined> {
    const ticket = await this.d.tickets.mustGet(trx, orgId, ticketId);
    if (ticket.state !== 'received' && ticket.state !== 'triage') return undefined;
    const ws = await this.d.workspaces.get(orgId, ticket.workspace_id, trx);
    const executor = this.diagnoser(ws);
    if (!executor) return undefined;
    const job = await this.queue.enqueue(trx, {
      orgId,
      workspaceId: ticket.workspace_id,
      ticketId: ticket.id,
      kind: 'diagnose',
      executor: executor.identifier,
      mode: executor.mode,
      payload: {
        instructions:
          'Diagnose the report, find the places in the repository it concerns and draft a reply when the documentation answers it.',
      },
      idempotencyKey: `diagnose:${ticket.id}:${ticket.reopened_count}`,
      maxMinutes: this.d.options.defaultMaxMinutes,
    });
    if (job) await this.d.tickets.transition(trx, ticket, 'diagnosis_started');
    return job;
  }

  /** The hook of JobQueue.finish. */
  async onResult(trx: Knex, job: FixJob, result: JobResult): Promise<void> {
    if (job.kind === 'fix') return this.onFixResult(trx, job, result);
    const ticket = await this.d.tickets.mustGet(trx, job.org_id, job.ticket_id);
    if (result.status === 'cancelled') return;
    if (result.status === 'failed' || !result.diagnosis) {
      await this.d.ticketActions.escalateBySystem(trx, ticket, REASONS.failed(result.error));
      return;
    }
    const dx = result.diagnosis;
    const ws = await this.d.workspaces.get(job.org_id, job.workspace_id, trx);
    const diagnosisId = newId(FixDiagnosis.idPrefix);
    let current = await this.d.tickets.update(trx, ticket, { category: dx.category, latest_confidence: dx.confidence });

    let outcome: FixDiagnosis['outcome'] = 'escalated';
    const wanted = (result.drafts ?? []).find((x) => x.kind === 'reply' || x.kind === 'needs_info');
    let draftId: string | undefined;
    if (wanted) {
      const draft = await this.d.drafts.createForAgent(trx, current, {
        kind: wanted.kind,
        body_md: wanted.body_md,
        public_summary: dx.public_summary ?? null,
        diagnosis_id: diagnosisId,
        language: wanted.language ?? ticket.language,
      });
      if (draft) {
        draftId = draft.id;
        outcome = autopilotAllows(ws, dx.category, dx.confidence) ? 'autopilot' : 'drafted';
      }
    }
    // A second report of a problem already at work is offered to the team as a duplicate instead of starting a second fix.
    const duplicate = !draftId && dx.category === 'bug' ? await likelyDuplicate(trx, ticket, dx.references) : null;
    await FixDiagnosis.query(trx).insert({
      id: diagnosisId,
      duplicate_of_ticket_id: duplicate?.id ?? null,
      org_id: job.org_id,
      ticket_id: ticket.id,
      job_id: job.id,
      category: dx.category,
      confidence: dx.confidence,
      root_cause_md: dx.root_cause_md,
      references: dx.references,
      public_summary: dx.public_summary ?? null,
      language: wanted?.language ?? ticket.language,
      outcome,
      created_at: new Date(),
    });
    const repositoryId = (
      (await trx('repositories')
        .where({ org_id: job.org_id, workspace_id: job.workspace_id })
        .orderBy('created_at')
        .select('id')
        .first()) as { id: string } | undefined
    )?.id;
    const fixer = this.fixer(ws);
    if (duplicate) {
      current = await this.d.tickets.mustGet(trx, job.org_id, ticket.id);
      await this.d.ticketActions.escalateBySystem(trx, current, REASONS.duplicate(duplicate));
    } else if (!draftId && dx.category === 'bug' && dx.confidence >= ws.confidence_threshold && fixer && repositoryId) {
      current = await this.d.tickets.mustGet(trx, job.org_id, ticket.id);
      await this.queueFix(trx, current, ws, fixer, {
        repositoryId,
        event: 'fix_started',
        instructions: fixInstructions(dx.root_cause_md, null),
      });
      await FixDiagnosis.query(trx).forOrg(job.org_id).patch({ outcome: 'fix_queued' }).where('id', diagnosisId);
      outcome = 'fix_queued';
      // The customer hears that a fix is being prepared: an interim draft (sent by autopilot when it sends this category).
      const fixing = await this.d.tickets.mustGet(trx, job.org_id, ticket.id);
      const lang = fixing.language === 'it' ? 'it' : 'en';
      const interim = await this.d.drafts.createForAgent(trx, fixing, {
        kind: 'interim',
        body_md: INTERIM[lang](this.d.tickets.statusUrl(fixing)),
        diagnosis_id: diagnosisId,
        language: lang,
      });
      if (interim && autopilotAllows(ws, dx.category, dx.confidence)) {
        await this.d.outbox.add(
          trx,
          AUTOPILOT_SEND,
          { ticket_id: ticket.id, draft_id: interim.id, job_id: job.id },
          { orgId: job.org_id },
        );
      }
    } else if (!draftId) {
      current = await this.d.tickets.mustGet(trx, job.org_id, ticket.id);
      const reason =
        dx.category === 'bug' ? REASONS.bug(dx.confidence) : REASONS.unanswered(dx.category, dx.confidence);
      await this.d.ticketActions.escalateBySystem(trx, current, reason);
    }
    if (outcome === 'autopilot' && draftId) {
      await this.d.outbox.add(
        trx,
        AUTOPILOT_SEND,
        { ticket_id: ticket.id, draft_id: draftId, job_id: job.id },
        { orgId: job.org_id },
      );
    }
    await this.d.outbox.add(
      trx,
      'fixes.diagnosis_completed',
      {
        ticket_id: ticket.id,
        workspace_id: ticket.workspace_id,
        diagnosis_id: diagnosisId,
        job_id: job.id,
        category: dx.category,
        confidence: dx.confidence,
        outcome,
        draft_id: draftId ?? null,
        duplicate_of_ticket_id: duplicate?.id ?? null,
      },
      { orgId: job.org_id },
    );
  }

  /**
   * A fix job ended: the attempt records the branch, head commit and verification. A verified fix
   * waits for approval (its pull request is opened now, or on request in copilot); anything else
   * goes to the team with the reason.
   */
  private async onFixResult(trx: Knex, job: FixJob, result: JobResult): Promise<void> {
    if (!job.fix_attempt_id) return;
    const attempt = await FixAttempt.query(trx).forOrg(job.org_id).findById(job.fix_attempt_id).forUpdate();
    if (!attempt || attempt.status !== 'running') return;
    const ticket = await this.d.tickets.mustGet(trx, job.org_id, job.ticket_id);
    if (result.status !== 'succeeded' || !result.fix) {
      await FixAttempt.query(trx)
        .forOrg(job.org_id)
        .patch({ status: 'failed', reason: 'other' })
        .where('id', attempt.id);
      if (result.status === 'cancelled' || ticket.state !== 'fixing') return;
      await this.d.tickets.transition(trx, ticket, 'fix_failed', {
        escalation_reason: `The fix job ${result.status} (${result.error?.code ?? 'no fix'}).`,
        escalated_at: new Date(),
      });
      return;
    }
    const fix = result.fix;
    const verified = fix.verify_passed && fix.tests_passed;
    await FixAttempt.query(trx)
      .forOrg(job.org_id)
      .patch({
        status: verified ? 'verified' : 'not_verified',
        head_sha: fix.head_sha,
        branch: fix.branch,
        tests_ran: fix.tests_ran,
        tests_passed: fix.tests_passed,
        verify_passed: fix.verify_passed,
        reason: verified ? null : (fix.reason ?? 'verification_failed'),
      })
      .where('id', attempt.id);
    if (ticket.state !== 'fixing') return;
    if (!verified) {
      await this.d.tickets.transition(trx, ticket, 'fix_failed', {
        escalation_reason: `The fix was not verified (${fix.reason ?? 'verification_failed'}).`,
        escalated_at: new Date(),
      });
      return;
    }
    await this.d.tickets.transition(trx, ticket, 'fix_verified');
    const ws = await this.d.workspaces.get(job.org_id, job.workspace_id, trx);
    if (ws.autonomy !== 'copilot')
      await this.d.outbox.add(
        trx,
        OPEN_PR,
        { fix_attempt_id: attempt.id, ticket_id: ticket.id, draft: false },
        { orgId: job.org_id },
      );
    await this.d.outbox.add(
      trx,
      'fixes.fix_verified',
      { ticket_id: ticket.id, fix_attempt_id: attempt.id, head_sha: fix.head_sha },
      { orgId: job.org_id },
    );
  }

  /** The hook of JobQueue for a dead-lettered job: the ticket goes to the team with the reason. */
  async onDead(trx: Knex, job: FixJob): Promise<void> {
    if (job.fix_attempt_id)
      await FixAttempt.query(trx)
        .forOrg(job.org_id)
        .patch({ status: 'failed', reason: 'other' })
        .where('id', job.fix_attempt_id)
        .where('status', 'running');
    const ticket: LoopTicket = await this.d.tickets.mustGet(trx, job.org_id, job.ticket_id);
    await this.d.ticketActions.escalateBySystem(trx, ticket, REASONS.dead(job.error_code ?? 'unknown'));
  }
}

/** What a fix job is asked to do: the diagnosis notes and, for a new attempt, the reviewer's notes. */
export function fixInstructions(rootCause: string, reviewerNotes: string | null): string {
  const parts = [
    'Fix the defect the ticket reports, with a test that fails before the fix, and run the test command.',
    '',
    'Diagnosis notes:',
    rootCause,
  ];
  if (reviewerNotes) parts.push('', 'The reviewer asked for these changes to the previous attempt:', reviewerNotes);
  return parts.join('\n');
}
