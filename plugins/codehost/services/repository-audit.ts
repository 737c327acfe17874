import { diffFields } from '../../../core/audit/audit-writer.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { RepositoryModel } from '../models/index.js';
import type { CodehostDeps } from './deps.js';

/** Patches a repository a person acted on, with the audit entry of what changed, in one transaction. */
export async function patchRepositoryAudited(
  d: CodehostDeps,
  actor: SignedInActor,
  row: RepositoryModel,
  patch: Partial<RepositoryModel>,
  action: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  metadata?: Record<string, unknown>,
): Promise<RepositoryModel> {
  return d.db.transaction(async (trx) => {
    const updated = await RepositoryModel.query(trx).forOrg(actor.orgId).patchAndFetchById(row.id, patch);
    await d.audit.record(trx, {
      actor,
      action,
      target: { type: 'repository', id: row.id },
      workspaceId: row.workspace_id,
      changes: diffFields(before, after),
      ...(metadata ? { metadata } : {}),
    });
    return updated;
  });
}
