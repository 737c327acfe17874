import type { Principal } from '../../../core/http/auth.js';
import type { Page } from '../../../core/http/pagination.js';
import type { FixesDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { ReleaseApprovals } from './release-approvals.js';
import { ReleaseAutoClose } from './release-auto-close.js';
import { ReleaseCi } from './release-ci.js';
import { ReleaseRecovery } from './release-recovery.js';
import { ReleaseSteps } from './release-steps.js';
import { ReleaseReads } from './releases-read.js';

/**
 * The releases of the fixes plugin, one object for the routes and consumers (`fixReleases`):
 * approval of a fix at its exact head commit or of a batched proposal (release-approvals.ts),
 * the release's recorded steps (release-steps.ts, notices in release-notices.ts, batching in
 * release-batching.ts), recovery of a stopped release (release-recovery.ts), reads
 * (releases-read.ts), CI state (release-ci.ts) and auto close (release-auto-close.ts).
 * Writes answer with the ticket or release as read after their transaction.
 */
export class Releases {
  private readonly reads: ReleaseReads;
  private readonly approvals: ReleaseApprovals;
  private readonly recovery: ReleaseRecovery;
  private readonly steps: ReleaseSteps;
  private readonly ci: ReleaseCi;
  private readonly closer: ReleaseAutoClose;

  constructor(private readonly d: FixesDeps) {
    this.reads = new ReleaseReads(d);
    this.approvals = new ReleaseApprovals(d);
    this.recovery = new ReleaseRecovery(d);
    this.steps = new ReleaseSteps(d);
    this.ci = new ReleaseCi(d);
    this.closer = new ReleaseAutoClose(d);
  }

  /** POST /v1/tickets/{id}/approve. */
  async approve(
    a: SignedInActor,
    ticketId: string,
    input: Parameters<ReleaseApprovals['approve']>[2],
  ): Promise<Record<string, unknown>> {
    await this.approvals.approve(a, ticketId, input);
    return this.d.tickets.detail(a.principal.orgId, ticketId);
  }

  /** POST /v1/releases/{id}/approve. */
  async approveProposal(
    a: SignedInActor,
    releaseId: string,
    input: Parameters<ReleaseApprovals['approveProposal']>[2],
  ): Promise<Record<string, unknown>> {
    await this.approvals.approveProposal(a, releaseId, input);
    return this.get(a.principal, releaseId);
  }

  /** POST /v1/tickets/{id}/release/retry. */
  async retry(
    a: SignedInActor,
    ticketId: string,
    input: { version?: string | null },
  ): Promise<Record<string, unknown>> {
    await this.recovery.retry(a, ticketId, input);
    return this.d.tickets.detail(a.principal.orgId, ticketId);
  }

  /** POST /v1/releases/{id}/retry. */
  async retryRelease(
    a: SignedInActor,
    releaseId: string,
    input: { version?: string | null },
  ): Promise<Record<string, unknown>> {
    await this.recovery.retryRelease(a, releaseId, input);
    return this.get(a.principal, releaseId);
  }

  /** POST /v1/releases/{id}/version. */
  async setVersion(a: SignedInActor, releaseId: string, input: { version: string }): Promise<Record<string, unknown>> {
    await this.recovery.setVersion(a, releaseId, input);
    return this.get(a.principal, releaseId);
  }

  /** POST /v1/tickets/{id}/back-to-approval. */
  async backToApproval(
    a: SignedInActor,
    ticketId: string,
    input: { fix_attempt_id: string; comment?: string | null },
  ): Promise<Record<string, unknown>> {
    await this.recovery.backToApproval(a, ticketId, input);
    return this.d.tickets.detail(a.principal.orgId, ticketId);
  }

  /** GET /v1/releases. */
  list(
    p: Principal,
    q: { workspace_id?: string; status?: string; cursor?: string; limit?: number },
  ): Promise<Page<Record<string, unknown>>> {
    return this.reads.list(p, q);
  }

  /** GET /v1/releases/{id}: the stored release; the CI state is the one last recorded (no code-host call on a read). */
  get(p: Principal, id: string): Promise<Record<string, unknown>> {
    return this.reads.get(p, id);
  }

  /** The consumer of fixes.release_requested (safe to repeat). */
  advance(orgId: string, releaseId: string): Promise<void> {
    return this.steps.advance(orgId, releaseId);
  }

  /** `codehost.ci_updated`. */
  onCiUpdated(orgId: string, repositoryId: string, sha: string): Promise<void> {
    return this.ci.onCiUpdated(orgId, repositoryId, sha);
  }

  /** The auto_close_days schedule; answers how many tickets were closed. */
  autoClose(now = new Date()): Promise<number> {
    return this.closer.autoClose(now);
  }
}
