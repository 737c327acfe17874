import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { conflict, notFound } from '../../../core/http/errors.js';
import { last4 } from '../../../core/security/secret-box.js';
import { RunnerAgentCredential } from '../models/index.js';
import type { JobRow, RunnerDeps } from './deps.js';
import { iso } from '../../../core/http/times.js';

const context = (orgId: string, workspaceId: string) => `runner-agent-credential:${orgId}:${workspaceId}`;
const LIVE = new Set(['queued', 'running']);

/** The workspace's agent login row, locked for the rest of the transaction. */
const credentialForUpdate = (trx: Knex, orgId: string, workspaceId: string) =>
  RunnerAgentCredential.query(trx).forOrg(orgId).where({ workspace_id: workspaceId }).forUpdate().limit(1).first();

export interface CredentialOut {
  kind: string;
  credential: string | null;
  last4: string;
  locked_by_job_id: string | null;
  rotated_at: string | null;
}

/**
 * The workspace's agent login file (an account-login agent refreshes it on every run), stored
 * with the secret box. A job takes it with GET and holds the lock until it stores the refreshed
 * one (PUT) or ends; another job of the workspace gets 409 credential_locked meanwhile, so two
 * runs never refresh the same login at once. Container key `runnerAgentCredentials` (onboarding
 * stores the login file given at setup through `store`).
 */
export class AgentCredentials {
  constructor(private readonly d: Pick<RunnerDeps, 'db' | 'secretBox'>) {}

  /** Stores (or replaces) the workspace's agent login, encrypted. */
  async store(trx: Knex, orgId: string, workspaceId: string, plain: string): Promise<RunnerAgentCredential> {
    const box = this.d.secretBox.encrypt(plain, context(orgId, workspaceId));
    const row = await credentialForUpdate(trx, orgId, workspaceId);
    if (row)
      return RunnerAgentCredential.query(trx)
        .forOrg(orgId)
        .patchAndFetchById(row.id, { secret_box: box, last4: last4(plain), rotated_at: new Date() });
    return RunnerAgentCredential.query(trx)
      .insert({
        id: newId(RunnerAgentCredential.idPrefix),
        org_id: orgId,
        workspace_id: workspaceId,
        kind: 'agent_login_file',
        secret_box: box,
        last4: last4(plain),
      })
      .returning('*');
  }

  private async holderAlive(trx: Knex, row: RunnerAgentCredential, job: JobRow): Promise<string | null> {
    if (!row.locked_job_id || row.locked_job_id === job.id) return null;
    const holder = (await trx('fix_jobs')
      .where({ id: row.locked_job_id, org_id: row.org_id })
      .select('status')
      .first()) as { status: string } | undefined;
    return holder && LIVE.has(holder.status) ? row.locked_job_id : null;
  }

  /** Takes the lock for the job and answers the login in clear. */
  async take(job: JobRow): Promise<CredentialOut> {
    return this.d.db.transaction(async (trx) => {
      const row = await credentialForUpdate(trx, job.org_id, job.workspace_id);
      if (!row) throw notFound('agent credential');
      const holder = await this.holderAlive(trx, row, job);
      if (holder)
        throw conflict('credential_locked', 'Another job of this workspace holds the agent login until it ends', {
          job_id: holder,
        });
      const locked =
        row.locked_job_id === job.id
          ? row
          : await RunnerAgentCredential.query(trx)
              .forOrg(job.org_id)
              .patchAndFetchById(row.id, { locked_job_id: job.id, locked_at: new Date() });
      return this.out(locked, this.d.secretBox.decrypt(row.secret_box, context(row.org_id, row.workspace_id)));
    });
  }

  /** Stores the refreshed login of the job that holds the lock (or only releases it) and releases the lock. */
  async put(job: JobRow, plain: string | null): Promise<CredentialOut> {
    return this.d.db.transaction(async (trx) => {
      const row = await credentialForUpdate(trx, job.org_id, job.workspace_id);
      if (!row) throw notFound('agent credential');
      if (row.locked_job_id !== job.id)
        throw conflict('credential_not_locked', 'This job does not hold the agent login; GET it first', {});
      const patch: Partial<RunnerAgentCredential> = { locked_job_id: null, locked_at: null };
      if (plain !== null)
        Object.assign(patch, {
          secret_box: this.d.secretBox.encrypt(plain, context(row.org_id, row.workspace_id)),
          last4: last4(plain),
          rotated_at: new Date(),
        });
      const saved = await RunnerAgentCredential.query(trx).forOrg(job.org_id).patchAndFetchById(row.id, patch);
      return this.out(saved, null);
    });
  }

  private out(row: RunnerAgentCredential, plain: string | null): CredentialOut {
    return {
      kind: row.kind,
      credential: plain,
      last4: row.last4,
      locked_by_job_id: row.locked_job_id,
      rotated_at: iso(row.rotated_at),
    };
  }
}
