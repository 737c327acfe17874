import type { Knex } from 'knex';
import { FixJob } from '../models/index.js';
import { HELD_CODE } from './job-billing.js';

/** Narrows a claim (a runner claims only its workspace's jobs, or one job by id). */
export interface ClaimFilter {
  orgId?: string;
  workspaceId?: string;
  jobId?: string;
}

/**
 * The next job of these executors a worker may claim, locked for the claim (others skip it):
 * queued and due, or running with an expired lease. Undefined when there is none.
 */
export async function nextClaimable(trx: Knex, executors: string[], only: ClaimFilter): Promise<FixJob | undefined> {
  const q = FixJob.query(trx).acrossOrgs('job claim by a worker');
  // A customer's runner claims only its workspace's jobs (plugin runner).
  if (only.orgId) q.where('org_id', only.orgId);
  if (only.workspaceId) q.where('workspace_id', only.workspaceId);
  if (only.jobId) q.where('id', only.jobId);
  // A job named by its claimer (a runner's job_id, an MCP submission) asks billing again at once, even while held.
  return await q
    .whereIn('executor', executors)
    .where((w) =>
      w
        .where((q) =>
          q
            .where('status', 'queued')
            .where((d) =>
              only.jobId
                ? d.where('run_after', '<=', trx.fn.now()).orWhere('error_code', HELD_CODE)
                : d.where('run_after', '<=', trx.fn.now()),
            ),
        )
        .orWhere((q) => q.where('status', 'running').where('lease_expires_at', '<', trx.fn.now())),
    )
    .orderBy([{ column: 'run_after' }, { column: 'id' }])
    .limit(1)
    .forUpdate()
    .skipLocked()
    .first();
}
