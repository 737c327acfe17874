import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { isAdapterError } from '../../../core/contracts/index.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { FixApproval, FixAttempt, FixRelease } from '../models/index.js';
import type { FixesDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { requestRelease } from './release-steps.js';
import { givenVersion, versionFreeOr409 } from './release-versions.js';
import { loadRelease } from './releases-read.js';

/** Who approves without the governance plugin (approvalGovernance). */
const APPROVER_ROLES_FALLBACK = ['owner', 'admin'];

/**
 * 403 unless the caller holds an approver role of the organization (governance) for the workspace:
 * the rule of every fix and release operation an approver does (approve, reject, retry, managed fix).
 */
export async function approverOr403(
  d: Pick<FixesDeps, 'governance'>,
  p: SignedInActor['principal'],
  workspaceId: string,
  trx: Knex,
): Promise<void> {
  const can = d.governance
    ? await d.governance.canApprove(p, workspaceId, trx)
    : APPROVER_ROLES_FALLBACK.includes(p.role);
  if (!can) throw forbidden('Only the approver roles of your organization can do this');
}

/** What an approval is for: the fix attempt of a ticket, or a batched release. */
type ApprovalOf = { ticket_id: string; fix_attempt_id: string } | { release_id: string };

/**
 * Records the caller's approval of `of` at `sha` (once per person and commit) after voiding the
 * approvals given at older commits (a push voided them); answers how many approvals stand at `sha`.
 */
async function approveAt(
  trx: Knex,
  p: SignedInActor['principal'],
  userId: string,
  of: ApprovalOf,
  sha: string,
  comment: string | null | undefined,
): Promise<number> {
  const key = 'release_id' in of ? { release_id: of.release_id } : { fix_attempt_id: of.fix_attempt_id };
  await FixApproval.query(trx)
    .forOrg(p.orgId)
    .patch({ voided_at: new Date(), void_reason: 'new_push' })
    .where(key)
    .whereNot('sha', sha)
    .whereNull('voided_at');
  const mine = await FixApproval.query(trx)
    .forOrg(p.orgId)
    .where({ ...key, sha, user_id: userId })
    .whereNull('voided_at')
    .first();
  if (!mine) {
    await FixApproval.query(trx).insert({
      id: newId(FixApproval.idPrefix),
      org_id: p.orgId,
      ticket_id: null,
      fix_attempt_id: null,
      release_id: null,
      ...of,
      sha,
      user_id: userId,
      role: p.role,
      comment: comment ?? null,
      created_at: new Date(),
    });
  }
  const live = (await FixApproval.query(trx)
    .forOrg(p.orgId)
    .where({ ...key, sha })
    .whereNull('voided_at')
    .count('* as n')
    .first()) as unknown as { n: string | number };
  return Number(live.n);
}

/**
 * Approvals under governance (approver roles, minimum approvers): a fix at its exact head
 * commit starts its per-ticket release; a batched proposal at the default branch's head starts
 * the batch's. The callers answer with the ticket or the release read afterwards.
 */
export class ReleaseApprovals {
  constructor(private readonly d: FixesDeps) {}

  /** POST /v1/tickets/{id}/approve: one approval at the fix's head commit; at the minimum the ticket moves to releasing. */
  async approve(
    a: SignedInActor,
    ticketId: string,
    input: {
      fix_attempt_id: string;
      approved_sha: string;
      comment?: string | null;
      version?: string | null;
      public_summary?: string | null;
    },
  ): Promise<void> {
    const p = a.principal;
    await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(p, ticketId, trx, { forUpdate: true });
      const policy = this.d.governance
        ? await this.d.governance.policy(p.orgId, trx)
        : { minApprovers: 1, roles: APPROVER_ROLES_FALLBACK };
      const can = this.d.governance
        ? await this.d.governance.canApprove(p, ticket.workspace_id, trx)
        : policy.roles.includes(p.role);
      if (!can || !p.userId) throw forbidden('Only the approver roles of your organization can approve fixes');
      const attempt = await FixAttempt.query(trx).forOrg(p.orgId).findById(input.fix_attempt_id).forUpdate();
      if (!attempt || attempt.ticket_id !== ticket.id) throw notFound('fix attempt');
      if (ticket.state !== 'awaiting_approval' || attempt.status !== 'verified') {
        throw conflict(
          'invalid_transition',
          `A fix that is ${attempt.status} on a ticket in state ${ticket.state} cannot be approved`,
          { state: ticket.state, status: attempt.status },
        );
      }
      if (attempt.head_sha !== input.approved_sha)
        throw conflict('sha_mismatch', 'The fix moved: approve its current head commit', {
          head_sha: attempt.head_sha,
        });
      if (!attempt.pr_number) throw conflict('no_pull_request', 'Open the pull request of this fix first (open-pr)');
      const ws = await this.d.workspaces.get(p.orgId, ticket.workspace_id, trx);
      // Under release_strategy manual a release without a version waits after the merge (waiting_version) until POST /v1/releases/{id}/version.
      const version = givenVersion(input.version);
      const fix = { ticket_id: ticket.id, fix_attempt_id: attempt.id };
      const count = await approveAt(trx, p, p.userId, fix, attempt.head_sha, input.comment);
      await this.d.audit.record(trx, {
        actor: a,
        action: 'fix.approved',
        target: { type: 'fix_attempt', id: attempt.id },
        workspaceId: ticket.workspace_id,
        metadata: { ticket_id: ticket.id, sha: attempt.head_sha, approvals: count, needed: policy.minApprovers },
      });
      const summary = input.public_summary?.trim();
      if (summary)
        await this.d.tickets.update(trx, ticket, { public_summary: summary, public_summary_approved_at: new Date() });
      if (count < policy.minApprovers) return;
      const current = await this.d.tickets.mustGet(trx, p.orgId, ticket.id);
      await this.d.tickets.transition(trx, current, 'approve');
      const strategy = ws.release_strategy;
      const release = await FixRelease.query(trx)
        .insert({
          id: newId(FixRelease.idPrefix),
          org_id: p.orgId,
          workspace_id: ws.id,
          repository_id: attempt.repository_id,
          ticket_id: ticket.id,
          fix_attempt_id: attempt.id,
          status: 'merging',
          strategy,
          version,
          approved_sha: attempt.head_sha,
        })
        .returning('*');
      await requestRelease(this.d, trx, p.orgId, release.id, ticket.id);
    });
  }

  /**
   * POST /v1/releases/{id}/approve: approves an open batched proposal at the default branch's
   * current head (409 sha_mismatch when it moved); at the governance minimum of distinct approvers
   * the tag, the release, CI and the notices of every ticket follow.
   */
  async approveProposal(
    a: SignedInActor,
    releaseId: string,
    input: { sha: string; comment?: string | null; version?: string | null },
  ): Promise<void> {
    const p = a.principal;
    const given = givenVersion(input.version);
    // The live head is read before the transaction (a code-host call); the row lock then orders approvals and joining fixes.
    const peek = await loadRelease(this.d.db, p, releaseId);
    if (peek.kind !== 'batched' || peek.status !== 'proposed')
      throw conflict('invalid_transition', `A release that is ${peek.status} cannot be approved`, {
        status: peek.status,
        kind: peek.kind,
      });
    const head = await this.defaultHead(peek);
    await this.d.db.transaction(async (trx) => {
      const rel = await loadRelease(trx, p, releaseId, true);
      const policy = this.d.governance
        ? await this.d.governance.policy(p.orgId, trx)
        : { minApprovers: 1, roles: APPROVER_ROLES_FALLBACK };
      await approverOr403(this.d, p, rel.workspace_id, trx);
      if (!p.userId) throw forbidden('A release is approved by a person');
      if (rel.kind !== 'batched' || rel.status !== 'proposed')
        throw conflict('invalid_transition', `A release that is ${rel.status} cannot be approved`, {
          status: rel.status,
          kind: rel.kind,
        });
      if (input.sha !== head)
        throw conflict('sha_mismatch', 'The default branch moved: approve its current head commit', { head_sha: head });
      if (given) await versionFreeOr409(trx, rel, given);
      if (rel.head_sha !== head)
        await FixRelease.query(trx).forOrg(p.orgId).patch({ head_sha: head }).where('id', rel.id);
      const count = await approveAt(trx, p, p.userId, { release_id: rel.id }, head, input.comment);
      await this.d.audit.record(trx, {
        actor: a,
        action: 'release.approved',
        target: { type: 'release', id: rel.id },
        workspaceId: rel.workspace_id,
        metadata: { sha: head, approvals: count, needed: policy.minApprovers, ...(given ? { version: given } : {}) },
      });
      if (count < policy.minApprovers) return;
      // The workspace's strategy at the approval counts (it may have changed while the proposal was open).
      const strategy = (await this.d.workspaces.get(p.orgId, rel.workspace_id, trx)).release_strategy;
      const version = given ?? rel.version;
      await FixRelease.query(trx)
        .forOrg(p.orgId)
        .patch({
          approved_sha: head,
          merge_sha: head,
          version,
          strategy,
          status: version || strategy !== 'manual' ? 'tagging' : 'waiting_version',
        })
        .where('id', rel.id);
      await requestRelease(this.d, trx, p.orgId, rel.id, null);
    });
  }

  /** The head commit of the repository's default branch. */
  private async defaultHead(rel: FixRelease): Promise<string> {
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    if (!host || !repos || !rel.repository_id)
      throw conflict('github_not_configured', 'This release has no code host or repository');
    try {
      const ref = await repos.ref(rel.org_id, rel.repository_id);
      const repo = await host.getRepository(ref);
      const branch = await host.getBranch(ref, repo.defaultBranch);
      if (!branch) throw httpError(503, 'github_unavailable', 'The default branch could not be read');
      return branch.sha;
    } catch (err) {
      if (isAdapterError(err))
        throw httpError(err.retryable ? 503 : 502, 'github_unavailable', 'The code host did not answer', {
          code: err.code,
        });
      throw err;
    }
  }
}
