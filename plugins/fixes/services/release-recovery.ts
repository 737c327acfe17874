import type { Knex } from 'knex';
import { conflict, notFound } from '../../../core/http/errors.js';
import { FixApproval, FixAttempt, FixRelease } from '../models/index.js';
import type { FixesDeps, LoopTicket } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { approverOr403 } from './release-approvals.js';
import { requestRelease } from './release-steps.js';
import { checkVersion, givenVersion, versionFreeOr409 } from './release-versions.js';
import { loadRelease, ticketIdsOf } from './releases-read.js';

/**
 * What an approver does with a release that stopped or waits: resume it where it stopped, give
 * the version a manual release waits for, or send a fix that stopped before the merge back to
 * approval. The callers answer with the ticket or the release read afterwards.
 */
export class ReleaseRecovery {
  constructor(private readonly d: FixesDeps) {}

  /** The ticket's latest release, locked (a retry or a step back starts from it). */
  private async lastFailed(trx: Knex, ticket: LoopTicket): Promise<FixRelease | undefined> {
    return FixRelease.query(trx)
      .forOrg(ticket.org_id)
      .where({ ticket_id: ticket.id })
      .orderBy('created_at', 'desc')
      .limit(1)
      .first()
      .forUpdate();
  }

  /** POST /v1/tickets/{id}/release/retry: the ticket's stopped release (its batch, when its merge joined one). */
  async retry(a: SignedInActor, ticketId: string, input: { version?: string | null }): Promise<void> {
    const p = a.principal;
    await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(p, ticketId, trx, { forUpdate: true });
      await approverOr403(this.d, p, ticket.workspace_id, trx);
      let rel = await this.lastFailed(trx, ticket);
      if (rel?.batch_id) rel = await FixRelease.query(trx).forOrg(p.orgId).findById(rel.batch_id).forUpdate();
      if (!rel || rel.status !== 'failed' || !rel.failed_step)
        throw conflict('invalid_transition', 'This ticket has no stopped release to resume', {
          state: ticket.state,
          release_status: rel?.status ?? null,
        });
      await this.resume(trx, a, rel, input);
    });
  }

  /** POST /v1/releases/{id}/retry. */
  async retryRelease(a: SignedInActor, releaseId: string, input: { version?: string | null }): Promise<void> {
    const p = a.principal;
    await this.d.db.transaction(async (trx) => {
      const rel = await loadRelease(trx, p, releaseId, true);
      await approverOr403(this.d, p, rel.workspace_id, trx);
      if (rel.status !== 'failed' || !rel.failed_step)
        throw conflict('invalid_transition', `A release that is ${rel.status} cannot be resumed`, {
          status: rel.status,
        });
      await this.resume(trx, a, rel, input);
    });
  }

  /** Resumes a stopped release where it stopped, with the same approvals and commit (a manual version may be given now, before the tag). */
  private async resume(
    trx: Knex,
    a: SignedInActor,
    rel: FixRelease,
    input: { version?: string | null },
  ): Promise<void> {
    const p = a.principal;
    const given = givenVersion(input.version);
    const version = rel.tag ? rel.version : (given ?? rel.version);
    if (given && !rel.tag) await versionFreeOr409(trx, rel, given);
    for (const ticketId of await ticketIdsOf(trx, rel)) {
      const ticket = await this.d.tickets.mustGet(trx, p.orgId, ticketId);
      // A per-ticket release moves its ticket (409 from the state machine otherwise); a batch takes along those still in the release.
      if (rel.kind !== 'batched' || ticket.state === 'escalated')
        await this.d.tickets.transition(trx, ticket, 'release_retry');
    }
    await FixRelease.query(trx)
      .forOrg(p.orgId)
      .patch({ status: rel.failed_step!, failed_step: null, error_code: null, error_detail: null, version })
      .where('id', rel.id);
    await this.d.audit.record(trx, {
      actor: a,
      action: 'release.retried',
      target: { type: 'release', id: rel.id },
      workspaceId: rel.workspace_id,
      metadata: { ticket_id: rel.ticket_id, step: rel.failed_step, ...(given ? { version } : {}) },
    });
    await requestRelease(this.d, trx, p.orgId, rel.id, rel.ticket_id);
  }

  /**
   * POST /v1/releases/{id}/version: the version of a release waiting for one (release_strategy
   * manual); the tag, the release and the notices follow.
   */
  async setVersion(a: SignedInActor, releaseId: string, input: { version: string }): Promise<void> {
    const p = a.principal;
    const version = input.version.trim();
    await this.d.db.transaction(async (trx) => {
      const rel = await loadRelease(trx, p, releaseId, true);
      await approverOr403(this.d, p, rel.workspace_id, trx);
      if (rel.status !== 'waiting_version')
        throw conflict('invalid_transition', `A release that is ${rel.status} does not wait for a version`, {
          status: rel.status,
        });
      checkVersion(version);
      await versionFreeOr409(trx, rel, version);
      await FixRelease.query(trx).forOrg(p.orgId).patch({ version, status: 'tagging' }).where('id', rel.id);
      await this.d.audit.record(trx, {
        actor: a,
        action: 'release.version_set',
        target: { type: 'release', id: rel.id },
        workspaceId: rel.workspace_id,
        changes: { version: { before: null, after: version } },
      });
      await requestRelease(this.d, trx, p.orgId, rel.id, rel.ticket_id);
    });
  }

  /**
   * A verified fix whose release stopped before the merge goes back to approval (escalated →
   * awaiting_approval); its pull request is kept, earlier approvals are void (approve again).
   */
  async backToApproval(
    a: SignedInActor,
    ticketId: string,
    input: { fix_attempt_id: string; comment?: string | null },
  ): Promise<void> {
    const p = a.principal;
    await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(p, ticketId, trx, { forUpdate: true });
      await approverOr403(this.d, p, ticket.workspace_id, trx);
      const attempt = await FixAttempt.query(trx).forOrg(p.orgId).findById(input.fix_attempt_id).forUpdate();
      if (!attempt || attempt.ticket_id !== ticket.id) throw notFound('fix attempt');
      const rel = await this.lastFailed(trx, ticket);
      const stoppedBeforeMerge =
        attempt.status === 'verified' &&
        !!rel &&
        rel.fix_attempt_id === attempt.id &&
        rel.status === 'failed' &&
        rel.failed_step === 'merging';
      if (!stoppedBeforeMerge)
        throw conflict(
          'invalid_transition',
          'Only a verified fix whose release stopped before the merge goes back to approval',
          { state: ticket.state, status: attempt.status },
        );
      await this.d.tickets.transition(trx, ticket, 'back_to_approval');
      await FixApproval.query(trx)
        .forOrg(p.orgId)
        .patch({ voided_at: new Date(), void_reason: 'back_to_approval' })
        .where({ fix_attempt_id: attempt.id })
        .whereNull('voided_at');
      await FixRelease.query(trx).forOrg(p.orgId).patch({ failed_step: null }).where('id', rel.id);
      await this.d.audit.record(trx, {
        actor: a,
        action: 'fix.back_to_approval',
        target: { type: 'fix_attempt', id: attempt.id },
        workspaceId: ticket.workspace_id,
        metadata: { ticket_id: ticket.id, release_id: rel.id, ...(input.comment ? { comment: input.comment } : {}) },
      });
    });
  }
}
