import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { isAdapterError } from '../../../core/contracts/index.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { FixApproval, FixAttempt, FixRelease } from '../models/index.js';
import type { FixesDeps, LoopTicket } from './deps.js';
import type { ActorMeta } from './fix-actions.js';
import { mask } from './mask.js';

export const RELEASE_REQUESTED = 'fixes.release_requested';

export const RELEASE_TEMPLATES = [
  {
    name: 'fixes.release_notice',
    subject: { en: 'Fixed: {{subject}}', it: 'Risolto: {{subject}}' },
    text: {
      en: 'Hello,\n\nthe problem you reported ("{{subject}}") is fixed in {{product}} {{version}}, released today.\n\n{{summary}}\n\nYou can follow the request here: {{status_url}}\n\nThank you for reporting it.\n',
      it: 'Buongiorno,\n\nil problema che ci ha segnalato ("{{subject}}") è risolto in {{product}} {{version}}, rilasciata oggi.\n\n{{summary}}\n\nPuò seguire la richiesta qui: {{status_url}}\n\nGrazie per la segnalazione.\n',
    },
  },
];

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)$/;

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
  constructor(private readonly d: FixesDeps) {}

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
      const version = input.version?.trim() || null;
      if (!version && ws.release_strategy === 'manual') throw httpError(422, 'version_required', 'This workspace sets versions by hand (release_strategy manual): give the version');
      if (version && !/^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/.test(version)) throw httpError(422, 'invalid_version', 'A version is letters, digits, dots, + and -', { version });
      // Approvals at an older commit do not count (a push voided them).
      await FixApproval.query(trx).forOrg(p.orgId).patch({ voided_at: new Date(), void_reason: 'new_push' }).where({ fix_attempt_id: attempt.id }).whereNot('sha', attempt.head_sha).whereNull('voided_at');
      const mine = await FixApproval.query(trx).forOrg(p.orgId).where({ fix_attempt_id: attempt.id, sha: attempt.head_sha, user_id: p.userId }).whereNull('voided_at').first();
      if (!mine) {
        await FixApproval.query(trx).insert({ id: newId(FixApproval.idPrefix), org_id: p.orgId, ticket_id: ticket.id, fix_attempt_id: attempt.id, sha: attempt.head_sha, user_id: p.userId, role: p.role, comment: input.comment ?? null, created_at: new Date() });
      }
      const count = Number(((await FixApproval.query(trx).forOrg(p.orgId).where({ fix_attempt_id: attempt.id, sha: attempt.head_sha }).whereNull('voided_at').count('* as n').first()) as unknown as { n: string | number }).n);
      await this.d.audit.record(trx, {
        orgId: p.orgId, actor: { type: p.kind === 'token' ? 'token' : 'user', id: p.userId, email: p.email }, action: 'fix.approved', target: { type: 'fix_attempt', id: attempt.id },
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

  /** Resumes a stopped release where it stopped, with the same approvals and commit (a manual version may be given now). */
  async retry(a: ActorMeta, ticketId: string, input: { version?: string | null }): Promise<Record<string, unknown>> {
    const p = a.principal;
    await this.d.db.transaction(async (trx) => {
      const ticket = await this.d.tickets.load(p, ticketId, trx, { forUpdate: true });
      await this.approverOr403(p, ticket.workspace_id, trx);
      const rel = await this.lastFailed(trx, ticket);
      if (!rel || rel.status !== 'failed' || !rel.failed_step) throw conflict('invalid_transition', 'This ticket has no stopped release to resume', { state: ticket.state, release_status: rel?.status ?? null });
      const version = input.version?.trim() || rel.version;
      if (version && !/^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/.test(version)) throw httpError(422, 'invalid_version', 'A version is letters, digits, dots, + and -', { version });
      if (!version && rel.strategy === 'manual') throw httpError(422, 'version_required', 'This workspace sets versions by hand (release_strategy manual): give the version');
      await this.d.tickets.transition(trx, ticket, 'release_retry');
      await FixRelease.query(trx).forOrg(p.orgId).patch({ status: rel.failed_step, failed_step: null, error_code: null, error_detail: null, version: rel.tag ? rel.version : version }).where('id', rel.id);
      await this.d.audit.record(trx, {
        orgId: p.orgId, actor: { type: p.kind === 'token' ? 'token' : 'user', id: p.userId, email: p.email }, action: 'release.retried', target: { type: 'release', id: rel.id },
        workspaceId: ticket.workspace_id, metadata: { ticket_id: ticket.id, step: rel.failed_step }, ip: a.ip ?? null, userAgent: a.userAgent ?? null, requestId: a.requestId ?? null,
      });
      await this.d.outbox.add(trx, RELEASE_REQUESTED, { release_id: rel.id, ticket_id: ticket.id }, { orgId: p.orgId });
    });
    return this.d.tickets.detail(p.orgId, ticketId);
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
        orgId: p.orgId, actor: { type: p.kind === 'token' ? 'token' : 'user', id: p.userId, email: p.email }, action: 'fix.back_to_approval', target: { type: 'fix_attempt', id: attempt.id },
        workspaceId: ticket.workspace_id, metadata: { ticket_id: ticket.id, release_id: rel.id, ...(input.comment ? { comment: input.comment } : {}) }, ip: a.ip ?? null, userAgent: a.userAgent ?? null, requestId: a.requestId ?? null,
      });
    });
    return this.d.tickets.detail(p.orgId, ticketId);
  }

  /** Advances a release as far as it goes (the consumer of fixes.release_requested; safe to repeat). */
  async advance(orgId: string, releaseId: string): Promise<void> {
    for (let step = 0; step < 6; step++) {
      const rel = await FixRelease.query(this.d.db).forOrg(orgId).findById(releaseId);
      if (!rel || ['released', 'failed', 'waiting_version'].includes(rel.status)) return;
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
    if (!host || !repos || !rel.repository_id || !rel.fix_attempt_id) return this.fail(rel, 'github_not_configured', 'no code host or repository');
    const ref = await repos.ref(rel.org_id, rel.repository_id);
    const attempt = await FixAttempt.query(this.d.db).forOrg(rel.org_id).findById(rel.fix_attempt_id);
    const ws = await this.d.workspaces.get(rel.org_id, rel.workspace_id);
    const save = (patch: Partial<FixRelease>) => FixRelease.query(this.d.db).forOrg(rel.org_id).patch(patch).where('id', rel.id).where('status', rel.status);
    switch (rel.status) {
      case 'merging': {
        if (!attempt?.pr_number) return this.fail(rel, 'no_pull_request', 'the fix has no pull request');
        const pr = await host.getPullRequest(ref, attempt.pr_number);
        const sha = pr?.state === 'merged' && pr.mergeSha ? pr.mergeSha : (await host.mergePullRequest(ref, attempt.pr_number, { method: ws.merge_method, sha: rel.approved_sha!, commitTitle: `Fix: ticket ${rel.ticket_id}` })).sha;
        await this.d.db.transaction(async (trx) => {
          await FixAttempt.query(trx).forOrg(rel.org_id).patch({ status: 'merged', pr_state: 'merged' }).where('id', attempt.id);
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
        const tag = `v${version.replace(/^v/, '')}`;
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
        let url: string | null = null;
        if (ws.github_release_enabled) url = (await host.createRelease(ref, { tag: rel.tag!, name: `${ws.name} ${rel.version}`, body: `Fixes ticket ${rel.ticket_id}.` })).url;
        const ci = await host.getCommitStatus(ref, rel.merge_sha!).catch(() => ({ state: 'none' as const }));
        await save({ release_url: url, ci_state: ci.state, status: 'notifying' });
        return;
      }
      case 'notifying': {
        await this.d.db.transaction(async (trx) => {
          const locked = await FixRelease.query(trx).forOrg(rel.org_id).findById(rel.id).forUpdate();
          if (locked?.status !== 'notifying' || !rel.ticket_id) return;
          const ticket = await this.d.tickets.mustGet(trx, rel.org_id, rel.ticket_id) as LoopTicket & { customer_email: string | null; public_summary: string | null; language: string };
          const subs = (await trx('ticket_subscribers').where({ org_id: rel.org_id, ticket_id: ticket.id }).whereNull('unsubscribed_at').select('id', 'email')) as Array<{ id: string; email: string }>;
          const to = [...new Set([ticket.customer_email, ...subs.map((s) => s.email)].filter((e): e is string => !!e))];
          const statusUrl = ((await this.d.tickets.detail(rel.org_id, ticket.id, trx)) as { public_status_url: string }).public_status_url;
          const locale = ticket.language === 'it' ? 'it' : 'en';
          for (const address of to) {
            await this.d.mailer.enqueue(trx, {
              orgId: rel.org_id, template: 'fixes.release_notice', locale, to: address,
              data: { subject: ticket.subject, product: ws.name, version: rel.version, summary: ticket.public_summary ?? '', status_url: statusUrl },
              headers: { 'Auto-Submitted': 'auto-generated' }, ticketRef: ticket.id,
            });
          }
          if (subs.length) await trx('ticket_subscribers').whereIn('id', subs.map((s) => s.id)).update({ notified_at: new Date() });
          const now = new Date();
          await FixRelease.query(trx).forOrg(rel.org_id).patch({ status: 'released', released_at: now }).where('id', rel.id);
          if (ticket.state === 'releasing') await this.d.tickets.transition(trx, ticket, 'customer_notified', { resolved_version: rel.version, released_at: now });
          await this.d.outbox.add(trx, 'fixes.released', { release_id: rel.id, ticket_id: ticket.id, version: rel.version, notified: to.length }, { orgId: rel.org_id });
        });
        return;
      }
    }
  }

  private async fail(rel: FixRelease, code: string, detail: string): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      await FixRelease.query(trx).forOrg(rel.org_id).patch({ status: 'failed', failed_step: rel.status, error_code: code, error_detail: mask(detail).slice(0, 2000) }).where('id', rel.id);
      if (!rel.ticket_id) return;
      const ticket = await this.d.tickets.mustGet(trx, rel.org_id, rel.ticket_id);
      if (ticket.state === 'releasing') await this.d.tickets.transition(trx, ticket, 'release_failed', { escalation_reason: `The release stopped at ${rel.status} (${code}).`, escalated_at: new Date() });
    });
  }
}
