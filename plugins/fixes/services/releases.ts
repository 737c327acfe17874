import type { Knex } from 'knex';
import { auditActorOf } from '../../../core/audit/audit-writer.js';
import { newId } from '../../../core/data/ids.js';
import { isAdapterError } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import type { Page } from '../../../core/http/pagination.js';
import { FixApproval, FixAttempt, FixRelease, type ReleaseStatus } from '../models/index.js';
import type { FixesDeps, LoopTicket, LoopWorkspace } from './deps.js';
import type { ActorMeta } from './fix-actions.js';
import { mask } from './mask.js';
import { ReleaseReads, approvalCount, loadRelease, ticketIdsOf } from './releases-read.js';

export const RELEASE_REQUESTED = 'fixes.release_requested';

export const RELEASE_TEMPLATES = [
  {
    // To the customer of the ticket, about their own report (its subject, its status page).
    name: 'fixes.release_notice',
    subject: { en: 'Fixed: {{subject}}', it: 'Risolto: {{subject}}' },
    text: {
      en: 'Hello,\n\nthe problem you reported ("{{subject}}") is fixed in {{product}} {{version}}, released today.\n\n{{summary}}\n\nYou can follow the request here: {{status_url}}\n\nThank you for reporting it.\n\nTo stop receiving emails about this request: {{unsubscribe_url}}\n',
      it: 'Buongiorno,\n\nil problema che ci ha segnalato ("{{subject}}") è risolto in {{product}} {{version}}, rilasciata oggi.\n\n{{summary}}\n\nPuò seguire la richiesta qui: {{status_url}}\n\nGrazie per la segnalazione.\n\nPer non ricevere più email su questa richiesta: {{unsubscribe_url}}\n',
    },
  },
  {
    // To someone who follows a ticket they did not write: never another customer's words.
    name: 'fixes.release_notice_subscriber',
    subject: { en: 'Fixed in {{product}} {{version}}', it: 'Risolto in {{product}} {{version}}' },
    text: {
      en: 'Hello,\n\na problem you asked us to keep you informed about is fixed in {{product}} {{version}}, released today.\n\n{{summary}}\n\nYou can follow it here: {{status_url}}\n\nTo stop receiving these emails: {{unsubscribe_url}}\n',
      it: 'Buongiorno,\n\nun problema su cui ha chiesto di essere aggiornato è risolto in {{product}} {{version}}, rilasciata oggi.\n\n{{summary}}\n\nPuò seguirlo qui: {{status_url}}\n\nPer non ricevere più queste email: {{unsubscribe_url}}\n',
    },
  },
];

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)$/;
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;
/** How often the scheduler looks for resolved tickets to close (auto_close_days). */
export const AUTO_CLOSE_EVERY_MS = 15 * 60_000;
const DAY_MS = 86_400_000;

/** The ticket fields a notice reads. */
type NoticeTicket = LoopTicket & { customer_email: string | null; public_summary: string | null; public_summary_approved_at: Date | null };

/** The public summary a person approved (text already public on the status page), or null. */
const approvedSummary = (t: NoticeTicket): string | null => (t.public_summary && t.public_summary_approved_at ? t.public_summary : null);

/** Workspace settings the releases read beyond the loop's. */
type ReleaseWorkspace = LoopWorkspace & { changelog_enabled?: boolean; auto_close_days?: number | null };

/** Statuses at which `advance` has nothing to do (it waits for a person, or it is over). */
const RESTING: ReadonlySet<ReleaseStatus> = new Set(['released', 'failed', 'waiting_version', 'proposed', 'batched']);

const invalidVersion = (version: string) => httpError(422, 'invalid_version', 'A version is letters, digits, dots, + and - (at most 64)', { version });
const tagOf = (version: string) => `v${version.replace(/^v/, '')}`;

/** The next version of a workspace: semver bumps the patch of the highest release, calver is YYYY.MM.DD(.n). */
export function nextVersion(strategy: 'semver' | 'calver', previous: string[], now = new Date()): string {
  if (strategy === 'semver') {
    const parsed = previous.map((v) => SEMVER.exec(v)).filter((m): m is RegExpExecArray => !!m).map((m) => [Number(m[1]), Number(m[2]), Number(m[3])] as const);
    if (parsed.length === 0) return '0.1.0';
    parsed.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    const [maj, min, pat] = parsed[parsed.length - 1]!;
    return `${maj}.${min}.${pat + 1}`;
  }
  const day = `${now.getUTCFullYear()}.${String(now.getUTCMonth() + 1).padStart(2, '0')}.${String(now.getUTCDate()).padStart(2, '0')}`;
  const same = previous.filter((v) => v === day || v.startsWith(`${day}.`)).length;
  return same === 0 ? day : `${day}.${same}`;
}

/**
 * Approval of a fix at its exact head commit (governance: approver roles, minimum approvers),
 * then the per-ticket release: merge at that commit with the workspace's merge_method, tag,
 * code-host release (github_release_enabled), release notice to the customer and subscribers,
 * ticket customer_notified (public state resolved). Each step is recorded on the release row,
 * so a worker that dies mid-way resumes where it stopped and nothing runs twice.
 */
export class Releases {
  /** History, one release, presentation (releases-read.ts). */
  private readonly reads: ReleaseReads;

  constructor(private readonly d: FixesDeps) {
    this.reads = new ReleaseReads(d);
  }

  async approve(a: ActorMeta, ticketId: string, input: { fix_attempt_id: string; approved_sha: string; comment?: string | null; version?: string | null; public_summary?: string | null }): Promise<Record<string, unknown>> {
    const p = a.principal;
    await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(p, ticketId, trx, { forUpdate: true });
      const policy = this.d.governance ? await this.d.governance.policy(p.orgId, trx) : { minApprovers: 1, roles: ['owner', 'admin'] };
      const can = this.d.governance ? await this.d.governance.canApprove(p, ticket.workspace_id, trx) : policy.roles.includes(p.role);
      if (!can || !p.userId) throw forbidden('Only the approver roles of your organization can approve fixes');
      const attempt = await FixAttempt.query(trx).forOrg(p.orgId).findById(input.fix_attempt_id).forUpdate();
      if (!attempt || attempt.ticket_id !== ticket.id) throw notFound('fix attempt');
      if (ticket.state !== 'awaiting_approval' || attempt.status !== 'verified') {
        throw conflict('invalid_transition', `A fix that is ${attempt.status} on a ticket in state ${ticket.state} cannot be approved`, { state: ticket.state, status: attempt.status });
      }
      if (attempt.head_sha !== input.approved_sha) throw conflict('sha_mismatch', 'The fix moved: approve its current head commit', { head_sha: attempt.head_sha });
      if (!attempt.pr_number) throw conflict('no_pull_request', 'Open the pull request of this fix first (open-pr)');
      const ws = await this.d.workspaces.get(p.orgId, ticket.workspace_id, trx);
      // Under release_strategy manual a release without a version waits after the merge (waiting_version) until POST /v1/releases/{id}/version.
      const version = input.version?.trim() || null;
      if (version && !VERSION.test(version)) throw invalidVersion(version);
      // Approvals at an older commit do not count (a push voided them).
      await FixApproval.query(trx).forOrg(p.orgId).patch({ voided_at: new Date(), void_reason: 'new_push' }).where({ fix_attempt_id: attempt.id }).whereNot('sha', attempt.head_sha).whereNull('voided_at');
      const mine = await FixApproval.query(trx).forOrg(p.orgId).where({ fix_attempt_id: attempt.id, sha: attempt.head_sha, user_id: p.userId }).whereNull('voided_at').first();
      if (!mine) {
        await FixApproval.query(trx).insert({ id: newId(FixApproval.idPrefix), org_id: p.orgId, ticket_id: ticket.id, fix_attempt_id: attempt.id, sha: attempt.head_sha, user_id: p.userId, role: p.role, comment: input.comment ?? null, created_at: new Date() });
      }
      const count = Number(((await FixApproval.query(trx).forOrg(p.orgId).where({ fix_attempt_id: attempt.id, sha: attempt.head_sha }).whereNull('voided_at').count('* as n').first()) as unknown as { n: string | number }).n);
      await this.d.audit.record(trx, {
        orgId: p.orgId, actor: auditActorOf(p), action: 'fix.approved', target: { type: 'fix_attempt', id: attempt.id },
        workspaceId: ticket.workspace_id, metadata: { ticket_id: ticket.id, sha: attempt.head_sha, approvals: count, needed: policy.minApprovers }, ip: a.ip ?? null, userAgent: a.userAgent ?? null, requestId: a.requestId ?? null,
      });
      const summary = input.public_summary?.trim();
      if (summary) await this.d.tickets.update(trx, ticket, { public_summary: summary, public_summary_approved_at: new Date() });
      if (count < policy.minApprovers) return;
      const current = await this.d.tickets.mustGet(trx, p.orgId, ticket.id);
      await this.d.tickets.transition(trx, current, 'approve');
      const strategy = ws.release_strategy;
      const release = await FixRelease.query(trx).insert({
        id: newId(FixRelease.idPrefix), org_id: p.orgId, workspace_id: ws.id, repository_id: attempt.repository_id, ticket_id: ticket.id, fix_attempt_id: attempt.id,
        status: 'merging', strategy, version, approved_sha: attempt.head_sha,
      }).returning('*');
      await this.d.outbox.add(trx, RELEASE_REQUESTED, { release_id: release.id, ticket_id: ticket.id }, { orgId: p.orgId });
    });
    return this.d.tickets.detail(p.orgId, ticketId);
  }

  private async approverOr403(p: ActorMeta['principal'], workspaceId: string, trx: Knex): Promise<void> {
    const policy = this.d.governance ? null : { roles: ['owner', 'admin'] };
    const can = this.d.governance ? await this.d.governance.canApprove(p, workspaceId, trx) : policy!.roles.includes(p.role);
    if (!can) throw forbidden('Only the approver roles of your organization can do this');
  }

  private async lastFailed(trx: Knex, ticket: LoopTicket): Promise<FixRelease | undefined> {
    return FixRelease.query(trx).forOrg(ticket.org_id).where({ ticket_id: ticket.id }).orderBy('created_at', 'desc').limit(1).first().forUpdate();
  }

  /** POST /v1/tickets/{id}/release/retry: the ticket's stopped release (its batch, when its merge joined one). */
  async retry(a: ActorMeta, ticketId: string, input: { version?: string | null }): Promise<Record<string, unknown>> {
    const p = a.principal;
    await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(p, ticketId, trx, { forUpdate: true });
      await this.approverOr403(p, ticket.workspace_id, trx);
      let rel = await this.lastFailed(trx, ticket);
      if (rel?.batch_id) rel = await FixRelease.query(trx).forOrg(p.orgId).findById(rel.batch_id).forUpdate();
      if (!rel || rel.status !== 'failed' || !rel.failed_step) throw conflict('invalid_transition', 'This ticket has no stopped release to resume', { state: ticket.state, release_status: rel?.status ?? null });
      await this.resume(trx, a, rel, input);
    });
    return this.d.tickets.detail(p.orgId, ticketId);
  }

  /** POST /v1/releases/{id}/retry. */
  async retryRelease(a: ActorMeta, releaseId: string, input: { version?: string | null }): Promise<Record<string, unknown>> {
    const p = a.principal;
    await this.d.db.transaction(async (trx) => {
      const rel = await loadRelease(trx, p, releaseId, true);
      await this.approverOr403(p, rel.workspace_id, trx);
      if (rel.status !== 'failed' || !rel.failed_step) throw conflict('invalid_transition', `A release that is ${rel.status} cannot be resumed`, { status: rel.status });
      await this.resume(trx, a, rel, input);
    });
    return this.get(p, releaseId);
  }

  /** Resumes a stopped release where it stopped, with the same approvals and commit (a manual version may be given now, before the tag). */
  private async resume(trx: Knex, a: ActorMeta, rel: FixRelease, input: { version?: string | null }): Promise<void> {
    const p = a.principal;
    const given = input.version?.trim() || null;
    if (given && !VERSION.test(given)) throw invalidVersion(given);
    const version = rel.tag ? rel.version : given ?? rel.version;
    if (given && !rel.tag) await this.versionFreeOr409(trx, rel, given);
    for (const ticketId of await ticketIdsOf(trx, rel)) {
      const ticket = await this.d.tickets.mustGet(trx, p.orgId, ticketId);
      // A per-ticket release moves its ticket (409 from the state machine otherwise); a batch takes along those still in the release.
      if (rel.kind !== 'batched' || ticket.state === 'escalated') await this.d.tickets.transition(trx, ticket, 'release_retry');
    }
    await FixRelease.query(trx).forOrg(p.orgId).patch({ status: rel.failed_step!, failed_step: null, error_code: null, error_detail: null, version }).where('id', rel.id);
    await this.d.audit.record(trx, {
      orgId: p.orgId, actor: auditActorOf(p), action: 'release.retried', target: { type: 'release', id: rel.id },
      workspaceId: rel.workspace_id, metadata: { ticket_id: rel.ticket_id, step: rel.failed_step, ...(given ? { version } : {}) }, ip: a.ip ?? null, userAgent: a.userAgent ?? null, requestId: a.requestId ?? null,
    });
    await this.d.outbox.add(trx, RELEASE_REQUESTED, { release_id: rel.id, ticket_id: rel.ticket_id }, { orgId: p.orgId });
  }

  /** 409 version_exists when another release of the workspace has the version (or its tag). */
  private async versionFreeOr409(trx: Knex, rel: FixRelease, version: string): Promise<void> {
    const taken = await FixRelease.query(trx).forOrg(rel.org_id).where({ workspace_id: rel.workspace_id }).whereNot('id', rel.id)
      .where((q) => q.where('version', version).orWhere('tag', tagOf(version))).limit(1).first();
    if (taken) throw conflict('version_exists', `Version ${version} exists already in this workspace`, { version, release_id: taken.id });
  }

  /**
   * POST /v1/releases/{id}/version: the version of a release waiting for one (release_strategy
   * manual); the tag, the release and the notices follow.
   */
  async setVersion(a: ActorMeta, releaseId: string, input: { version: string }): Promise<Record<string, unknown>> {
    const p = a.principal;
    const version = input.version.trim();
    await this.d.db.transaction(async (trx) => {
      const rel = await loadRelease(trx, p, releaseId, true);
      await this.approverOr403(p, rel.workspace_id, trx);
      if (rel.status !== 'waiting_version') throw conflict('invalid_transition', `A release that is ${rel.status} does not wait for a version`, { status: rel.status });
      if (!VERSION.test(version)) throw invalidVersion(version);
      await this.versionFreeOr409(trx, rel, version);
      await FixRelease.query(trx).forOrg(p.orgId).patch({ version, status: 'tagging' }).where('id', rel.id);
      await this.d.audit.record(trx, {
        orgId: p.orgId, actor: auditActorOf(p), action: 'release.version_set', target: { type: 'release', id: rel.id },
        workspaceId: rel.workspace_id, changes: { version: { before: null, after: version } }, ip: a.ip ?? null, userAgent: a.userAgent ?? null, requestId: a.requestId ?? null,
      });
      await this.d.outbox.add(trx, RELEASE_REQUESTED, { release_id: rel.id, ticket_id: rel.ticket_id }, { orgId: p.orgId });
    });
    return this.get(p, releaseId);
  }

  /**
   * POST /v1/releases/{id}/approve: approves an open batched proposal at the default branch's
   * current head (409 sha_mismatch when it moved); at the governance minimum of distinct approvers
   * the tag, the release, CI and the notices of every ticket follow.
   */
  async approveProposal(a: ActorMeta, releaseId: string, input: { sha: string; comment?: string | null; version?: string | null }): Promise<Record<string, unknown>> {
    const p = a.principal;
    const given = input.version?.trim() || null;
    if (given && !VERSION.test(given)) throw invalidVersion(given);
    // The live head is read before the transaction (a code-host call); the row lock then orders approvals and joining fixes.
    const peek = await loadRelease(this.d.db, p, releaseId);
    if (peek.kind !== 'batched' || peek.status !== 'proposed') throw conflict('invalid_transition', `A release that is ${peek.status} cannot be approved`, { status: peek.status, kind: peek.kind });
    const head = await this.defaultHead(peek);
    await this.d.db.transaction(async (trx) => {
      const rel = await loadRelease(trx, p, releaseId, true);
      const policy = this.d.governance ? await this.d.governance.policy(p.orgId, trx) : { minApprovers: 1, roles: ['owner', 'admin'] };
      await this.approverOr403(p, rel.workspace_id, trx);
      if (!p.userId) throw forbidden('A release is approved by a person');
      if (rel.kind !== 'batched' || rel.status !== 'proposed') throw conflict('invalid_transition', `A release that is ${rel.status} cannot be approved`, { status: rel.status, kind: rel.kind });
      if (input.sha !== head) throw conflict('sha_mismatch', 'The default branch moved: approve its current head commit', { head_sha: head });
      if (given) await this.versionFreeOr409(trx, rel, given);
      if (rel.head_sha !== head) await FixRelease.query(trx).forOrg(p.orgId).patch({ head_sha: head }).where('id', rel.id);
      await FixApproval.query(trx).forOrg(p.orgId).patch({ voided_at: new Date(), void_reason: 'new_push' }).where({ release_id: rel.id }).whereNot('sha', head).whereNull('voided_at');
      const mine = await FixApproval.query(trx).forOrg(p.orgId).where({ release_id: rel.id, sha: head, user_id: p.userId! }).whereNull('voided_at').first();
      if (!mine) {
        await FixApproval.query(trx).insert({ id: newId(FixApproval.idPrefix), org_id: p.orgId, ticket_id: null, fix_attempt_id: null, release_id: rel.id, sha: head, user_id: p.userId!, role: p.role, comment: input.comment ?? null, created_at: new Date() });
      }
      const count = await approvalCount(trx, p.orgId, rel.id, head);
      await this.d.audit.record(trx, {
        orgId: p.orgId, actor: auditActorOf(p), action: 'release.approved', target: { type: 'release', id: rel.id },
        workspaceId: rel.workspace_id, metadata: { sha: head, approvals: count, needed: policy.minApprovers, ...(given ? { version: given } : {}) }, ip: a.ip ?? null, userAgent: a.userAgent ?? null, requestId: a.requestId ?? null,
      });
      if (count < policy.minApprovers) return;
      // The workspace's strategy at the approval counts (it may have changed while the proposal was open).
      const strategy = (await this.d.workspaces.get(p.orgId, rel.workspace_id, trx)).release_strategy;
      const version = given ?? rel.version;
      await FixRelease.query(trx).forOrg(p.orgId).patch({ approved_sha: head, merge_sha: head, version, strategy, status: version || strategy !== 'manual' ? 'tagging' : 'waiting_version' }).where('id', rel.id);
      await this.d.outbox.add(trx, RELEASE_REQUESTED, { release_id: rel.id, ticket_id: null }, { orgId: p.orgId });
    });
    return this.get(p, releaseId);
  }

  /** The head commit of the repository's default branch. */
  private async defaultHead(rel: FixRelease): Promise<string> {
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    if (!host || !repos || !rel.repository_id) throw conflict('github_not_configured', 'This release has no code host or repository');
    try {
      const ref = await repos.ref(rel.org_id, rel.repository_id);
      const repo = await host.getRepository(ref);
      const branch = await host.getBranch(ref, repo.defaultBranch);
      if (!branch) throw httpError(503, 'github_unavailable', 'The default branch could not be read');
      return branch.sha;
    } catch (err) {
      if (isAdapterError(err)) throw httpError(err.retryable ? 503 : 502, 'github_unavailable', 'The code host did not answer', { code: err.code });
      throw err;
    }
  }

  // ---- reads (releases-read.ts)

  /** GET /v1/releases. */
  list(p: Principal, q: { workspace_id?: string; status?: string; cursor?: string; limit?: number }): Promise<Page<Record<string, unknown>>> {
    return this.reads.list(p, q);
  }

  /** GET /v1/releases/{id}: the stored release; the CI state is the one last recorded (no code-host call on a read). */
  get(p: Principal, id: string): Promise<Record<string, unknown>> {
    return this.reads.get(p, id);
  }

  // ---- CI state (written by the `releasing` step and by the `codehost.ci_updated` consumer)

  /** Reads the CI state of the release's commit again; the row is updated when it changed. Host errors keep the stored state. */
  async refreshCi(rel: FixRelease): Promise<FixRelease | undefined> {
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    if (!host || !repos || !rel.repository_id || !rel.merge_sha) return undefined;
    try {
      const ci = await host.getCommitStatus(await repos.ref(rel.org_id, rel.repository_id), rel.merge_sha);
      if (ci.state === rel.ci_state) return rel;
      return await FixRelease.query(this.d.db).forOrg(rel.org_id).patchAndFetchById(rel.id, { ci_state: ci.state });
    } catch (err) {
      this.d.log.warn({ err, release_id: rel.id }, 'release CI state not read');
      return undefined;
    }
  }

  /** `codehost.ci_updated`: the releases at that commit take the new CI state. */
  async onCiUpdated(orgId: string, repositoryId: string, sha: string): Promise<void> {
    const rels = await FixRelease.query(this.d.db).forOrg(orgId).where({ repository_id: repositoryId, merge_sha: sha }).whereNull('batch_id');
    for (const rel of rels) await this.refreshCi(rel);
  }

  // ---- auto close

  /**
   * Closes tickets resolved (customer_notified) more than their workspace's auto_close_days ago
   * (0 or unset: never), through the tickets service: reason `resolved`, audited as system,
   * `tickets.closed` as the close operation emits it. Answers how many were closed.
   */
  async autoClose(now = new Date()): Promise<number> {
    const due = (await this.d.db('tickets')
      .join('workspaces', 'workspaces.id', 'tickets.workspace_id')
      .where('tickets.state', 'customer_notified')
      .where('workspaces.auto_close_days', '>', 0)
      .whereNotNull('tickets.released_at')
      .whereRaw('tickets.released_at < ?::timestamptz - make_interval(days => workspaces.auto_close_days)', [now.toISOString()])
      .orderBy('tickets.released_at')
      .limit(500)
      .select('tickets.id', 'tickets.org_id', 'workspaces.auto_close_days')) as Array<{ id: string; org_id: string; auto_close_days: number }>;
    let closed = 0;
    for (const row of due) {
      const done = await this.d.db.transaction(async (trx) => {
        const ticket = await this.d.tickets.mustGet(trx, row.org_id, row.id) as LoopTicket & { released_at: Date | null };
        if (ticket.state !== 'customer_notified' || !ticket.released_at || now.getTime() - new Date(ticket.released_at).getTime() <= row.auto_close_days * DAY_MS) return false;
        await this.d.tickets.transition(trx, ticket, 'close', { closed_at: now, close_reason: 'resolved' });
        await this.d.audit.record(trx, {
          orgId: row.org_id, actor: { type: 'system' }, action: 'ticket.closed', target: { type: 'ticket', id: ticket.id }, workspaceId: ticket.workspace_id,
          changes: { state: { before: ticket.state, after: 'closed' } }, metadata: { reason: 'resolved', auto_close_days: row.auto_close_days },
        });
        await this.d.outbox.add(trx, 'tickets.closed', { ticket_id: ticket.id, workspace_id: ticket.workspace_id, reason: 'resolved', duplicate_of_ticket_id: null, by: 'auto_close' }, { orgId: row.org_id });
        return true;
      });
      if (done) closed++;
    }
    return closed;
  }

  /**
   * A verified fix whose release stopped before the merge goes back to approval (escalated →
   * awaiting_approval); its pull request is kept, earlier approvals are void (approve again).
   */
  async backToApproval(a: ActorMeta, ticketId: string, input: { fix_attempt_id: string; comment?: string | null }): Promise<Record<string, unknown>> {
    const p = a.principal;
    await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(p, ticketId, trx, { forUpdate: true });
      await this.approverOr403(p, ticket.workspace_id, trx);
      const attempt = await FixAttempt.query(trx).forOrg(p.orgId).findById(input.fix_attempt_id).forUpdate();
      if (!attempt || attempt.ticket_id !== ticket.id) throw notFound('fix attempt');
      const rel = await this.lastFailed(trx, ticket);
      const stoppedBeforeMerge = attempt.status === 'verified' && !!rel && rel.fix_attempt_id === attempt.id && rel.status === 'failed' && rel.failed_step === 'merging';
      if (!stoppedBeforeMerge) throw conflict('invalid_transition', 'Only a verified fix whose release stopped before the merge goes back to approval', { state: ticket.state, status: attempt.status });
      await this.d.tickets.transition(trx, ticket, 'back_to_approval');
      await FixApproval.query(trx).forOrg(p.orgId).patch({ voided_at: new Date(), void_reason: 'back_to_approval' }).where({ fix_attempt_id: attempt.id }).whereNull('voided_at');
      await FixRelease.query(trx).forOrg(p.orgId).patch({ failed_step: null }).where('id', rel.id);
      await this.d.audit.record(trx, {
        orgId: p.orgId, actor: auditActorOf(p), action: 'fix.back_to_approval', target: { type: 'fix_attempt', id: attempt.id },
        workspaceId: ticket.workspace_id, metadata: { ticket_id: ticket.id, release_id: rel.id, ...(input.comment ? { comment: input.comment } : {}) }, ip: a.ip ?? null, userAgent: a.userAgent ?? null, requestId: a.requestId ?? null,
      });
    });
    return this.d.tickets.detail(p.orgId, ticketId);
  }

  /** Advances a release as far as it goes (the consumer of fixes.release_requested; safe to repeat). */
  async advance(orgId: string, releaseId: string): Promise<void> {
    for (let step = 0; step < 6; step++) {
      const rel = await FixRelease.query(this.d.db).forOrg(orgId).findById(releaseId);
      if (!rel || RESTING.has(rel.status)) return;
      try {
        await this.step(rel);
      } catch (err) {
        if (isAdapterError(err) && err.retryable) throw err; // the bus retries with back-off
        await this.fail(rel, isAdapterError(err) ? err.code : 'release_error', (err as Error).message);
        return;
      }
    }
  }

  private async step(rel: FixRelease): Promise<void> {
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    if (!host || !repos || !rel.repository_id) return this.fail(rel, 'github_not_configured', 'no code host or repository');
    const ref = await repos.ref(rel.org_id, rel.repository_id);
    const ws = await this.d.workspaces.get(rel.org_id, rel.workspace_id) as ReleaseWorkspace;
    const save = (patch: Partial<FixRelease>) => FixRelease.query(this.d.db).forOrg(rel.org_id).patch(patch).where('id', rel.id).where('status', rel.status);
    switch (rel.status) {
      case 'merging': {
        const attempt = rel.fix_attempt_id ? await FixAttempt.query(this.d.db).forOrg(rel.org_id).findById(rel.fix_attempt_id) : undefined;
        if (!attempt?.pr_number) return this.fail(rel, 'no_pull_request', 'the fix has no pull request');
        const pr = await host.getPullRequest(ref, attempt.pr_number);
        const sha = pr?.state === 'merged' && pr.mergeSha ? pr.mergeSha : (await host.mergePullRequest(ref, attempt.pr_number, { method: ws.merge_method, sha: rel.approved_sha!, commitTitle: `Fix: ticket ${rel.ticket_id}` })).sha;
        await this.d.db.transaction(async (trx) => {
          const locked = await FixRelease.query(trx).forOrg(rel.org_id).findById(rel.id).forUpdate();
          if (locked?.status !== 'merging') return;
          await FixAttempt.query(trx).forOrg(rel.org_id).patch({ status: 'merged', pr_state: 'merged' }).where('id', attempt.id);
          if (ws.release_batching === 'batched') return this.joinProposal(trx, rel, ws, sha);
          await FixRelease.query(trx).forOrg(rel.org_id).patch({ merge_sha: sha, status: rel.version || rel.strategy !== 'manual' ? 'tagging' : 'waiting_version' }).where('id', rel.id);
        });
        return;
      }
      case 'tagging': {
        let version = rel.version;
        if (!version) {
          const previous = (await FixRelease.query(this.d.db).forOrg(rel.org_id).where({ workspace_id: rel.workspace_id }).whereNotNull('version').whereNot('id', rel.id).select('version')).map((r) => r.version!);
          version = nextVersion(rel.strategy === 'calver' ? 'calver' : 'semver', previous);
        }
        const tag = tagOf(version);
        try {
          await host.createTag(ref, { name: tag, sha: rel.merge_sha!, message: `Release ${version}` });
        } catch (err) {
          // A tag left by a run that died after creating it is fine when it points at our commit.
          if (!isAdapterError(err, 'already_exists') && !isAdapterError(err, 'conflict')) throw err;
        }
        await save({ version, tag, status: 'releasing' });
        return;
      }
      case 'releasing': {
        const ticketIds = await ticketIdsOf(this.d.db, rel);
        const changelog = ws.changelog_enabled ? await this.changelogOf(this.d.db, rel.org_id, ticketIds) : null;
        let url: string | null = null;
        const body = changelog ?? (ticketIds.length === 1 ? `Fixes ticket ${ticketIds[0]}.` : `Fixes ${ticketIds.length} tickets.`);
        if (ws.github_release_enabled) url = (await host.createRelease(ref, { tag: rel.tag!, name: `${ws.name} ${rel.version}`, body })).url;
        const ci = await host.getCommitStatus(ref, rel.merge_sha!).catch(() => ({ state: 'none' as const }));
        await save({ release_url: url, ci_state: ci.state, changelog, status: 'notifying' });
        return;
      }
      case 'notifying': {
        await this.d.db.transaction(async (trx) => {
          const locked = await FixRelease.query(trx).forOrg(rel.org_id).findById(rel.id).forUpdate();
          if (locked?.status !== 'notifying') return;
          const now = new Date();
          for (const ticketId of await ticketIdsOf(trx, rel)) await this.notify(trx, rel, ws, ticketId, now);
          await FixRelease.query(trx).forOrg(rel.org_id).patch({ status: 'released', released_at: now }).where('id', rel.id);
        });
        return;
      }
    }
  }

  /**
   * The release notices of one ticket and its public status resolved, in the release's last
   * transaction (so it happens once). Each notice speaks of the reader's own report: the customer
   * gets a `release_notice` Draft of this ticket; a subscriber who came from a duplicate gets one of
   * their duplicate (its subject, its status page, which turns resolved with the version); other
   * subscribers get a notice that quotes nobody. Every notice carries an unsubscribe link.
   */
  private async notify(trx: Knex, rel: FixRelease, ws: ReleaseWorkspace, ticketId: string, now: Date): Promise<void> {
    const ticket = await this.d.tickets.mustGet(trx, rel.org_id, ticketId) as NoticeTicket;
    const optedOut = (await trx('tickets').where({ org_id: rel.org_id, id: ticket.id }).select('notices_unsubscribed_at').first()) as { notices_unsubscribed_at: Date | null } | undefined;
    const subs = (await trx('ticket_subscribers').where({ org_id: rel.org_id, ticket_id: ticket.id }).whereNull('unsubscribed_at')
      .orderBy([{ column: 'created_at' }, { column: 'id' }]).select('id', 'email', 'source', 'thread_ticket_id')) as Array<{ id: string; email: string; source: string; thread_ticket_id: string | null }>;
    const summary = approvedSummary(ticket);
    let notified = 0;
    if (ticket.customer_email && !optedOut?.notices_unsubscribed_at) {
      notified += await this.noticeOf(trx, ticket, ws, rel, summary);
    }
    for (const sub of subs) {
      const own = sub.source === 'duplicate' && sub.thread_ticket_id ? await this.duplicateOf(trx, rel.org_id, sub.thread_ticket_id, sub.email) : null;
      if (own) {
        notified += await this.noticeOf(trx, own, ws, rel, approvedSummary(own) ?? summary);
        await this.d.tickets.update(trx, own, { resolved_version: rel.version, released_at: now });
        await this.d.subscribers.markNotified(trx, rel.org_id, [sub.id], now);
      } else {
        await this.d.subscribers.notify(trx, ticket, sub, {
          template: 'fixes.release_notice_subscriber', data: { product: ws.name, version: rel.version, summary: summary ?? '', status_url: this.d.tickets.statusUrl(ticket) },
        });
        notified++;
      }
    }
    if (ticket.state === 'releasing') await this.d.tickets.transition(trx, ticket, 'customer_notified', { resolved_version: rel.version, released_at: now });
    await this.d.outbox.add(trx, 'fixes.released', { release_id: rel.id, ticket_id: ticket.id, version: rel.version, notified }, { orgId: rel.org_id });
  }

  /** The customer's notice of their own ticket, as a `release_notice` Draft row; 1 when it went out. */
  private async noticeOf(trx: Knex, ticket: NoticeTicket, ws: ReleaseWorkspace, rel: FixRelease, summary: string | null): Promise<number> {
    const unsubscribe = this.d.subscribers.unsubscribeLink(ticket.id, ticket.customer_email!);
    const sent = await this.d.drafts.sendNotice(trx, ticket, {
      kind: 'release_notice',
      template: 'fixes.release_notice',
      data: { subject: ticket.subject, product: ws.name, version: rel.version, summary: summary ?? '', status_url: this.d.tickets.statusUrl(ticket), unsubscribe_url: unsubscribe.url },
      headers: unsubscribe.headers,
    });
    return sent?.mailId ? 1 : 0;
  }

  /** The duplicate a subscriber came from, when it is still theirs (its customer is the subscriber). */
  private async duplicateOf(trx: Knex, orgId: string, ticketId: string, email: string): Promise<NoticeTicket | null> {
    const dup = await this.d.tickets.mustGet(trx, orgId, ticketId).catch(() => null) as NoticeTicket | null;
    return dup && dup.customer_email?.toLowerCase() === email.toLowerCase() ? dup : null;
  }

  /**
   * release_batching batched: the merged fix joins the open proposal of its workspace and
   * repository (created when there is none); the proposal's head moves to the merge, so earlier
   * approvals of the proposal no longer count.
   */
  private async joinProposal(trx: Knex, rel: FixRelease, ws: ReleaseWorkspace, sha: string): Promise<void> {
    const open = () => FixRelease.query(trx).forOrg(rel.org_id).where({ workspace_id: rel.workspace_id, kind: 'batched', status: 'proposed' })
      .where((q) => (rel.repository_id ? q.where('repository_id', rel.repository_id) : q.whereNull('repository_id'))).limit(1).first().forUpdate();
    let batch = await open();
    if (!batch) {
      try {
        await trx.transaction(async (sp) => {
          await FixRelease.query(sp).insert({ id: newId(FixRelease.idPrefix), org_id: rel.org_id, workspace_id: rel.workspace_id, repository_id: rel.repository_id, kind: 'batched', status: 'proposed', strategy: ws.release_strategy });
        });
      } catch (err) {
        if ((err as { code?: string }).code !== '23505') throw err; // another merge opened it meanwhile
      }
      batch = await open();
    }
    await FixRelease.query(trx).forOrg(rel.org_id).patch({ merge_sha: sha, status: 'batched', batch_id: batch!.id }).where('id', rel.id);
    const ticketIds = await ticketIdsOf(trx, batch!);
    const changelog = ws.changelog_enabled ? await this.changelogOf(trx, rel.org_id, ticketIds) : null;
    await FixRelease.query(trx).forOrg(rel.org_id).patch({ head_sha: sha, changelog }).where('id', batch!.id);
    await FixApproval.query(trx).forOrg(rel.org_id).patch({ voided_at: new Date(), void_reason: 'new_push' }).where({ release_id: batch!.id }).whereNot('sha', sha).whereNull('voided_at');
    await this.d.outbox.add(trx, 'fixes.release_proposed', { release_id: batch!.id, ticket_id: rel.ticket_id, head_sha: sha, tickets: ticketIds.length }, { orgId: rel.org_id });
  }

  /** One line per ticket from its approved public summary (the text already public on its status page). */
  private async changelogOf(db: Knex, orgId: string, ticketIds: string[]): Promise<string | null> {
    if (ticketIds.length === 0) return null;
    const rows = (await db('tickets').where('org_id', orgId).whereIn('id', ticketIds).select('id', 'public_summary', 'public_summary_approved_at')) as Array<{ id: string; public_summary: string | null; public_summary_approved_at: Date | null }>;
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ticketIds.map((id) => {
      const r = byId.get(id);
      const line = r?.public_summary && r.public_summary_approved_at ? r.public_summary.replace(/\s+/g, ' ').trim() : 'A reported problem is fixed.';
      return `- ${line}`;
    }).join('\n');
  }

  private async fail(rel: FixRelease, code: string, detail: string): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      await FixRelease.query(trx).forOrg(rel.org_id).patch({ status: 'failed', failed_step: rel.status, error_code: code, error_detail: mask(detail).slice(0, 2000) }).where('id', rel.id);
      for (const ticketId of await ticketIdsOf(trx, rel)) {
        const ticket = await this.d.tickets.mustGet(trx, rel.org_id, ticketId);
        if (ticket.state === 'releasing') await this.d.tickets.transition(trx, ticket, 'release_failed', { escalation_reason: `The release stopped at ${rel.status} (${code}).`, escalated_at: new Date() });
      }
    });
  }
}
