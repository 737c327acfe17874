import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { FixApproval, FixRelease } from '../models/index.js';
import type { FixesDeps, ReleaseWorkspace } from './deps.js';
import { changelogOf } from './release-notices.js';
import { ticketIdsOf } from './releases-read.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

/**
 * release_batching batched: the merged fix joins the open proposal of its workspace and
 * repository (created when there is none); the proposal's head moves to the merge, so earlier
 * approvals of the proposal no longer count.
 */
export async function joinProposal(
  d: FixesDeps,
  trx: Knex,
  rel: FixRelease,
  ws: ReleaseWorkspace,
  sha: string,
): Promise<void> {
  const open = () =>
    FixRelease.query(trx)
      .forOrg(rel.org_id)
      .where({ workspace_id: rel.workspace_id, kind: 'batched', status: 'proposed' })
      .where((q) => (rel.repository_id ? q.where('repository_id', rel.repository_id) : q.whereNull('repository_id')))
      .limit(1)
      .first()
      .forUpdate();
  let batch = await open();
  if (!batch) {
    try {
      await trx.transaction(async (sp) => {
        await FixRelease.query(sp).insert({
          id: newId(FixRelease.idPrefix),
          org_id: rel.org_id,
          workspace_id: rel.workspace_id,
          repository_id: rel.repository_id,
          kind: 'batched',
          status: 'proposed',
          strategy: ws.release_strategy,
        });
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err; // another merge opened it meanwhile
    }
    batch = await open();
  }
  await FixRelease.query(trx)
    .forOrg(rel.org_id)
    .patch({ merge_sha: sha, status: 'batched', batch_id: batch!.id })
    .where('id', rel.id);
  const ticketIds = await ticketIdsOf(trx, batch!);
  const changelog = ws.changelog_enabled ? await changelogOf(trx, rel.org_id, ticketIds) : null;
  await FixRelease.query(trx).forOrg(rel.org_id).patch({ head_sha: sha, changelog }).where('id', batch!.id);
  await FixApproval.query(trx)
    .forOrg(rel.org_id)
    .patch({ voided_at: new Date(), void_reason: 'new_push' })
    .where({ release_id: batch!.id })
    .whereNot('sha', sha)
    .whereNull('voided_at');
  await d.outbox.add(
    trx,
    'fixes.release_proposed',
    { release_id: batch!.id, ticket_id: rel.ticket_id, head_sha: sha, tickets: ticketIds.length },
    { orgId: rel.org_id },
  );
}
