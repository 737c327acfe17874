import type { Knex } from 'knex';
import { diffFields, type AuditedActor } from '../../../core/audit/audit-writer.js';
import { recordChanges } from '../../../core/audit/changes.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { isAdapterError, type RepoRef, type Repository as HostRepository } from '../../../core/contracts/index.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { last4 } from '../../../core/security/secret-box.js';
import { InstallationModel, RepositoryModel } from '../models/index.js';
import type { CodehostDeps } from './deps.js';
import { hostFailure, viaHost } from './errors.js';
import type { GitRemote } from './git-remote.js';
import { onboardingFiles } from './onboarding-files.js';
import { pushOnboardingPr } from './onboarding-pr.js';
import { patchRepositoryAudited } from './repository-audit.js';
import { repositoryJson } from './serialize.js';

type HostColumnsOf = Pick<
  HostRepository,
  'fullName' | 'htmlUrl' | 'cloneUrl' | 'defaultBranch' | 'isPublic' | 'archived'
>;

/** The columns a repository record copies from the code host (set on connect, kept in line on refresh). */
const hostColumns = (found: HostColumnsOf) => ({
  full_name: found.fullName,
  html_url: found.htmlUrl,
  clone_url: found.cloneUrl,
  default_branch: found.defaultBranch,
  is_public: found.isPublic,
  archived: found.archived,
});

export interface ConnectInput {
  installation_id: string;
  workspace_id: string;
  external_id?: string;
  full_name?: string;
}

/**
 * Repositories connected to workspaces: list, connect (plan limits), read, disconnect (the code
 * index and its cache go too), the agent key as a CI secret, the onboarding pull request and
 * refresh (guidelines and open-source labels: RepositoryOpenSource). `ref()` gives other plugins the RepoRef of a
 * repository for CodeHost calls.
 */
export class RepositoryService {
  constructor(
    private readonly d: CodehostDeps,
    private readonly git: GitRemote,
  ) {}

  /** The repository of this organization (any workspace), or 404. */
  async loadForOrg(orgId: string, id: string, trx?: Knex): Promise<RepositoryModel> {
    const row = await RepositoryModel.query(trx ?? this.d.db)
      .forOrg(orgId)
      .findById(id);
    if (!row) throw notFound('repository');
    return row;
  }

  /** The repository, when the caller may open its workspace (403 otherwise, 404 for another organization's). */
  async load(principal: Principal, id: string, trx?: Knex): Promise<RepositoryModel> {
    const row = await this.loadForOrg(principal.orgId, id, trx);
    if (!canOpenWorkspace(principal, row.workspace_id))
      throw forbidden('You cannot open the workspace of this repository');
    return row;
  }

  /** The RepoRef of a connected repository (for CodeHost calls). */
  async ref(orgId: string, repo: RepositoryModel | string, trx?: Knex): Promise<RepoRef> {
    const row = typeof repo === 'string' ? await this.loadForOrg(orgId, repo, trx) : repo;
    const inst = await InstallationModel.query(trx ?? this.d.db)
      .forOrg(orgId)
      .findById(row.installation_id);
    if (!inst || inst.removed_at)
      throw conflict('installation_removed', 'The app was uninstalled from the account of this repository');
    return { installationId: inst.external_id, fullName: row.full_name };
  }

  json(row: RepositoryModel) {
    return repositoryJson(row);
  }

  async list(
    principal: Principal,
    q: { workspace_id?: string; installation_id?: string; cursor?: string; limit: number },
  ): Promise<Page<ReturnType<typeof repositoryJson>>> {
    // A workspace filter is checked as a path id: 404 unknown or another organization's, 403 outside the caller's.
    if (q.workspace_id) await this.d.workspaces().open(principal, q.workspace_id);
    if (
      q.installation_id &&
      !(await InstallationModel.query(this.d.db).forOrg(principal.orgId).findById(q.installation_id))
    )
      throw notFound('installation');
    const query = RepositoryModel.query(this.d.db).forOrg(principal.orgId);
    if (q.workspace_id) query.where('workspace_id', q.workspace_id);
    if (q.installation_id) query.where('installation_id', q.installation_id);
    if (principal.workspaceIds !== null) query.whereIn('workspace_id', principal.workspaceIds);
    const page = await paginate<RepositoryModel & Record<string, unknown>>(
      query,
      [
        { column: 'repositories.full_name', direction: 'asc', type: 'string' },
        { column: 'repositories.id', direction: 'asc', type: 'string' },
      ],
      q,
    );
    return { items: page.items.map((r) => repositoryJson(r)), next_cursor: page.next_cursor };
  }

  /** POST /v1/repositories: connects a repository an installation reaches to a workspace. */
  async connect(actor: SignedInActor, input: ConnectInput): Promise<RepositoryModel> {
    const principal = actor.principal;
    const ws = await this.d.workspaces().open(principal, input.workspace_id);
    if (ws.archived_at) throw conflict('workspace_archived', 'An archived workspace cannot take repositories');
    const inst = await InstallationModel.query(this.d.db).forOrg(principal.orgId).findById(input.installation_id);
    if (!inst || inst.removed_at) throw notFound('installation');
    if (inst.suspended_at) throw conflict('installation_suspended', 'The installation is suspended on the code host');
    const found = await this.findOnHost(inst, input);
    if (found.archived) throw httpError(422, 'repository_archived', 'An archived repository cannot be connected');
    const row = await this.d.db.transaction(async (trx) => {
      const taken = await RepositoryModel.query(trx)
        .acrossOrgs('a host repository is connected once')
        .where({ host: this.d.host.identifier, external_id: found.id })
        .limit(1)
        .first();
      if (taken) {
        throw conflict(
          'repository_already_connected',
          'This repository is already connected',
          taken.org_id === principal.orgId ? { repository_id: taken.id, workspace_id: taken.workspace_id } : undefined,
        );
      }
      const limits = this.d.planLimits();
      if (limits) {
        await limits.assert(trx, principal.orgId, 'public_repos_only', {
          workspaceId: ws.id,
          isPublic: found.isPublic,
        });
        await limits.assert(trx, principal.orgId, 'repositories_per_workspace', { workspaceId: ws.id });
      }
      const created = await RepositoryModel.query(trx)
        .insert({
          org_id: principal.orgId,
          workspace_id: ws.id,
          installation_id: inst.id,
          host: this.d.host.identifier,
          external_id: found.id,
          ...hostColumns(found),
          runs_on: [],
          cloud_auth: {},
          index_status: 'queued',
          last_refreshed_at: new Date(),
          connected_by_user_id: principal.userId,
        })
        .returning('*');
      await this.d.audit.record(trx, {
        actor,
        action: 'repository.connected',
        target: { type: 'repository', id: created.id },
        workspaceId: ws.id,
        changes: diffFields(
          {},
          { full_name: created.full_name, workspace_id: ws.id, installation_id: inst.id, is_public: created.is_public },
        ),
      });
      await this.d.outbox.add(
        trx,
        'codehost.repository_connected',
        { repository_id: created.id, workspace_id: ws.id, full_name: created.full_name },
        { orgId: principal.orgId },
      );
      return created;
    });
    return row;
  }

  private async findOnHost(inst: InstallationModel, input: ConnectInput): Promise<HostRepository> {
    if (!input.external_id && !input.full_name)
      throw httpError(400, 'invalid_request', 'Give external_id or full_name', {
        errors: [{ path: 'payload.full_name', message: 'external_id or full_name is required' }],
      });
    const all = await viaHost(() => this.d.host.listRepositories(inst.external_id));
    const found = all.find((r) =>
      input.external_id ? r.id === input.external_id : r.fullName.toLowerCase() === input.full_name!.toLowerCase(),
    );
    if (!found)
      throw httpError(422, 'repository_not_in_installation', 'The installation does not reach this repository');
    return found;
  }

  /** Deletes a connected repository in `trx`: index rows go with it (foreign keys), audit and event. */
  async disconnectRow(trx: Knex, row: RepositoryModel, ctx: { actor: AuditedActor; reason: string }): Promise<string> {
    await trx('codehost_comments').where({ repository_id: row.id, org_id: row.org_id }).delete();
    await trx('codehost_items').where({ repository_id: row.id, org_id: row.org_id }).delete();
    await RepositoryModel.query(trx).forOrg(row.org_id).deleteById(row.id);
    await this.d.audit.record(trx, {
      orgId: row.org_id,
      actor: ctx.actor,
      action: 'repository.disconnected',
      target: { type: 'repository', id: row.id },
      workspaceId: row.workspace_id,
      changes: diffFields({ full_name: row.full_name, workspace_id: row.workspace_id }, {}, [
        'full_name',
        'workspace_id',
      ]),
      metadata: { reason: ctx.reason },
    });
    await this.d.outbox.add(
      trx,
      'codehost.repository_disconnected',
      { repository_id: row.id, workspace_id: row.workspace_id, full_name: row.full_name, reason: ctx.reason },
      { orgId: row.org_id },
    );
    return row.id;
  }

  async dropCache(repositoryId: string): Promise<void> {
    await this.git
      .dropCache(repositoryId)
      .catch((err: unknown) => this.d.log.warn({ err, repositoryId }, 'could not remove a code index cache'));
  }

  /** DELETE /v1/repositories/{id}. */
  async disconnect(actor: SignedInActor, id: string): Promise<void> {
    const principal = actor.principal;
    const row = await this.load(principal, id);
    await this.d.db.transaction((trx) => this.disconnectRow(trx, row, { actor, reason: 'disconnected' }));
    await this.dropCache(row.id);
  }

  /** PUT /v1/repositories/{id}/agent-key: the key becomes the repository's CI secret; only its last 4 stay here. */
  async setAgentKey(actor: SignedInActor, id: string, key: string): Promise<RepositoryModel> {
    const principal = actor.principal;
    const row = await this.load(principal, id);
    const ref = await this.ref(principal.orgId, row);
    await viaHost(() => this.d.host.setSecret(ref, this.d.options.agentKeySecretName, key));
    return this.d.db.transaction(async (trx) => {
      const after = await RepositoryModel.query(trx)
        .forOrg(principal.orgId)
        .patchAndFetchById(row.id, { agent_key_last4: last4(key), agent_key_set_at: new Date() });
      await this.d.audit.record(trx, {
        actor,
        action: 'repository.agent_key_set',
        target: { type: 'repository', id: row.id },
        workspaceId: row.workspace_id,
        changes: { agent_key: { before: row.agent_key_last4 ? 'set' : null, after: 'set' } },
        metadata: { secret_name: this.d.options.agentKeySecretName, last4: last4(key) },
      });
      await this.d.outbox.add(
        trx,
        'codehost.agent_key_set',
        { repository_id: row.id, workspace_id: row.workspace_id },
        { orgId: principal.orgId },
      );
      return after;
    });
  }

  /** POST /v1/repositories/{id}/onboarding-pr: pushes the runner workflow and config to a branch and opens (or updates) its pull request. */
  async openOnboardingPr(actor: SignedInActor, id: string): Promise<RepositoryModel> {
    const principal = actor.principal;
    const row = await this.load(principal, id);
    const ref = await this.ref(principal.orgId, row);
    const ws = await this.d.workspaces().get(principal.orgId, row.workspace_id);
    const pr = await pushOnboardingPr(this.d, this.git, ref, row, ws);
    return patchRepositoryAudited(
      this.d,
      actor,
      row,
      { onboarding_pr: pr },
      'repository.onboarding_pr_requested',
      { onboarding_pr: row.onboarding_pr?.number ?? null },
      { onboarding_pr: pr.number },
      { error: pr.error },
    );
  }

  /**
   * The files openOnboardingPr would push, without pushing (the onboarding plugin's preview);
   * `runsOn` overrides the repository's runner labels. Also names the CI secret of the agent key.
   */
  async onboardingPreview(
    orgId: string,
    id: string,
    runsOn?: string[],
  ): Promise<{ files: Record<string, string>; workflowPath: string; secretName: string }> {
    const row = await this.loadForOrg(orgId, id);
    const ws = await this.d.workspaces().get(orgId, row.workspace_id);
    const baseUrl = this.d.config.server.publicBaseUrl.replace(/\/+$/, '');
    const files = onboardingFiles(this.d.options, {
      baseUrl,
      workspace: ws,
      repository: {
        full_name: row.full_name,
        default_branch: row.default_branch,
        runs_on: runsOn ?? row.runs_on ?? [],
      },
    });
    return {
      files,
      workflowPath: this.d.options.onboarding.workflowPath,
      secretName: this.d.options.agentKeySecretName,
    };
  }

  /** POST /v1/repositories/{id}/refresh: re-reads name, default branch and visibility. */
  async refresh(actor: SignedInActor, id: string): Promise<RepositoryModel> {
    const principal = actor.principal;
    const row = await this.load(principal, id);
    const ref = await this.ref(principal.orgId, row);
    let found: HostRepository;
    try {
      found = await this.d.host.getRepository(ref);
    } catch (err) {
      if (isAdapterError(err, 'not_found'))
        throw conflict('repository_unavailable', 'The code host no longer gives access to this repository');
      throw hostFailure(err);
    }
    return this.d.db.transaction((trx) => this.applyHostState(trx, row, found, actor));
  }

  /** Brings the record in line with the host (refresh and repository webhooks); a moved default branch is indexed again. */
  async applyHostState(
    trx: Knex,
    row: RepositoryModel,
    found: HostColumnsOf,
    actor: AuditedActor,
  ): Promise<RepositoryModel> {
    const next = hostColumns(found);
    const changes = diffFields(row as unknown as Record<string, unknown>, next);
    const after = await RepositoryModel.query(trx)
      .forOrg(row.org_id)
      .patchAndFetchById(row.id, { ...next, last_refreshed_at: new Date() });
    await recordChanges(
      this.d,
      trx,
      {
        orgId: row.org_id,
        actor,
        action: 'repository.refreshed',
        target: { type: 'repository', id: row.id },
        workspaceId: row.workspace_id,
        changes,
      },
      'codehost.repository_updated',
      { repository_id: row.id },
    );
    if (changes.default_branch || row.index_status === 'none' || row.index_status === 'failed')
      await this.requestIndex(trx, after);
    return after;
  }

  /** Queues a rebuild of the code index. */
  async requestIndex(trx: Knex, row: RepositoryModel, sha?: string): Promise<void> {
    await RepositoryModel.query(trx)
      .forOrg(row.org_id)
      .patch({ index_status: row.index_status === 'building' ? 'building' : 'queued' })
      .where('id', row.id);
    await this.d.outbox.add(
      trx,
      'codehost.index_requested',
      { repository_id: row.id, sha: sha ?? null },
      { orgId: row.org_id },
    );
  }
}
