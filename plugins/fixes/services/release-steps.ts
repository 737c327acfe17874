import type { Knex } from 'knex';
import { isAdapterError } from '../../../core/contracts/index.js';
import { FixAttempt, FixRelease, type ReleaseStatus } from '../models/index.js';
import type { FixesDeps } from './deps.js';
import { mask } from './mask.js';
import { joinProposal } from './release-batching.js';
import { ReleaseNotices, changelogOf } from './release-notices.js';
import { nextVersion, tagOf } from './release-versions.js';
import { ticketIdsOf } from './releases-read.js';

/** The event that (re)starts the release runner; approvals and retries add it in their transaction. */
export const RELEASE_REQUESTED = 'fixes.release_requested';

/** Adds RELEASE_REQUESTED for a release to the caller's transaction (`ticketId` null for a batch). */
export async function requestRelease(
  d: Pick<FixesDeps, 'outbox'>,
  trx: Knex,
  orgId: string,
  releaseId: string,
  ticketId: string | null,
): Promise<void> {
  await d.outbox.add(trx, RELEASE_REQUESTED, { release_id: releaseId, ticket_id: ticketId }, { orgId });
}

/** Statuses at which `advance` has nothing to do (it waits for a person, or it is over). */
const RESTING: ReadonlySet<ReleaseStatus> = new Set(['released', 'failed', 'waiting_version', 'proposed', 'batched']);

/**
 * The per-ticket or batched release after its approval: merge at the approved commit with the
 * workspace's merge_method, tag, code-host release (github_release_enabled), notices, ticket
 * customer_notified. Each step is recorded on the release row, so a worker that dies mid-way
 * resumes where it stopped and nothing runs twice.
 */
export class ReleaseSteps {
  private readonly notices: ReleaseNotices;

  constructor(private readonly d: FixesDeps) {
    this.notices = new ReleaseNotices(d);
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

  /** One step, recorded on the row; `save` only moves on from the status it read, so a concurrent run changes nothing. */
  private async step(rel: FixRelease): Promise<void> {
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    if (!host || !repos || !rel.repository_id)
      return this.fail(rel, 'github_not_configured', 'no code host or repository');
    const ref = await repos.ref(rel.org_id, rel.repository_id);
    const ws = await this.d.workspaces.get(rel.org_id, rel.workspace_id);
    const save = (patch: Partial<FixRelease>) =>
      FixRelease.query(this.d.db).forOrg(rel.org_id).patch(patch).where('id', rel.id).where('status', rel.status);
    switch (rel.status) {
      case 'merging': {
        const attempt = rel.fix_attempt_id
          ? await FixAttempt.query(this.d.db).forOrg(rel.org_id).findById(rel.fix_attempt_id)
          : undefined;
        if (!attempt?.pr_number) return this.fail(rel, 'no_pull_request', 'the fix has no pull request');
        const pr = await host.getPullRequest(ref, attempt.pr_number);
        const sha =
          pr?.state === 'merged' && pr.mergeSha
            ? pr.mergeSha
            : (
                await host.mergePullRequest(ref, attempt.pr_number, {
                  method: ws.merge_method,
                  sha: rel.approved_sha!,
                  commitTitle: `Fix: ticket ${rel.ticket_id}`,
                })
              ).sha;
        await this.d.db.transaction(async (trx) => {
          const locked = await FixRelease.query(trx).forOrg(rel.org_id).findById(rel.id).forUpdate();
          if (locked?.status !== 'merging') return;
          await FixAttempt.query(trx)
            .forOrg(rel.org_id)
            .patch({ status: 'merged', pr_state: 'merged' })
            .where('id', attempt.id);
          if (ws.release_batching === 'batched') return joinProposal(this.d, trx, rel, ws, sha);
          await FixRelease.query(trx)
            .forOrg(rel.org_id)
            .patch({ merge_sha: sha, status: rel.version || rel.strategy !== 'manual' ? 'tagging' : 'waiting_version' })
            .where('id', rel.id);
        });
        return;
      }
      case 'tagging': {
        let version = rel.version;
        if (!version) {
          const previous = (
            await FixRelease.query(this.d.db)
              .forOrg(rel.org_id)
              .where({ workspace_id: rel.workspace_id })
              .whereNotNull('version')
              .whereNot('id', rel.id)
              .select('version')
          ).map((r) => r.version!);
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
        const changelog = ws.changelog_enabled ? await changelogOf(this.d.db, rel.org_id, ticketIds) : null;
        let url: string | null = null;
        const body =
          changelog ??
          (ticketIds.length === 1 ? `Fixes ticket ${ticketIds[0]}.` : `Fixes ${ticketIds.length} tickets.`);
        if (ws.github_release_enabled)
          url = (await host.createRelease(ref, { tag: rel.tag!, name: `${ws.name} ${rel.version}`, body })).url;
        const ci = await host.getCommitStatus(ref, rel.merge_sha!).catch(() => ({ state: 'none' as const }));
        await save({ release_url: url, ci_state: ci.state, changelog, status: 'notifying' });
        return;
      }
      case 'notifying': {
        await this.d.db.transaction(async (trx) => {
          const locked = await FixRelease.query(trx).forOrg(rel.org_id).findById(rel.id).forUpdate();
          if (locked?.status !== 'notifying') return;
          const now = new Date();
          for (const ticketId of await ticketIdsOf(trx, rel)) await this.notices.notify(trx, rel, ws, ticketId, now);
          await FixRelease.query(trx)
            .forOrg(rel.org_id)
            .patch({ status: 'released', released_at: now })
            .where('id', rel.id);
        });
        return;
      }
    }
  }

  /** Stops the release at its step (retry resumes there); its tickets still releasing are escalated. */
  private async fail(rel: FixRelease, code: string, detail: string): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      await FixRelease.query(trx)
        .forOrg(rel.org_id)
        .patch({
          status: 'failed',
          failed_step: rel.status,
          error_code: code,
          error_detail: mask(detail).slice(0, 2000),
        })
        .where('id', rel.id);
      for (const ticketId of await ticketIdsOf(trx, rel)) {
        const ticket = await this.d.tickets.mustGet(trx, rel.org_id, ticketId);
        if (ticket.state === 'releasing')
          await this.d.tickets.transition(trx, ticket, 'release_failed', {
            escalation_reason: `The release stopped at ${rel.status} (${code}).`,
            escalated_at: new Date(),
          });
      }
    });
  }
}
