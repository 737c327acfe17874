/**
 * What a webhook delivery changes: installation and repository events keep the records true,
 * pushes to a default branch rebuild the code index, issues, pull requests and comments go to
 * intake. Runs in the consumer's transaction; records its outcome on the delivery.
 */
import type { Knex } from 'knex';
import { systemActor, type Installation } from '../../../core/contracts/index.js';
import { InstallationModel, RepositoryModel } from '../models/index.js';
import type { CodehostDeps } from './deps.js';
import type { InstallationService } from './installations.js';
import type { IntakeService } from './intake.js';
import type { HostInstallation, HostItem, WebhookPayload } from './payload.js';
import type { RepositoryService } from './repositories.js';

const ZERO = /^0+$/;

interface DeliveryRow {
  host: string;
  delivery_id: string;
  kind: string;
  action: string | null;
  installation_external_id: string | null;
  repository_external_id: string | null;
  payload: WebhookPayload | string;
  processed_at: Date | null;
}

export class EventHandler {
  constructor(
    private readonly d: CodehostDeps,
    private readonly installations: () => InstallationService,
    private readonly repositories: () => RepositoryService,
    private readonly intake: () => IntakeService,
  ) {}

  async handle(trx: Knex, ref: { host: string; delivery_id: string }): Promise<string> {
    const row = (await trx('codehost_webhook_deliveries')
      .where({ host: ref.host, delivery_id: ref.delivery_id })
      .forUpdate()
      .first()) as DeliveryRow | undefined;
    if (!row) return 'delivery_missing';
    if (row.processed_at) return 'already_processed';
    const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as WebhookPayload) : row.payload;
    const outcome = await this.dispatch(trx, row, payload);
    await trx('codehost_webhook_deliveries')
      .where({ host: ref.host, delivery_id: ref.delivery_id })
      .update({ processed_at: new Date(), outcome });
    return outcome;
  }

  private async installation(trx: Knex, externalId: string | null): Promise<InstallationModel | undefined> {
    if (!externalId) return undefined;
    return InstallationModel.query(trx)
      .acrossOrgs('webhook routing by installation')
      .where({ host: this.d.host.identifier, external_id: externalId })
      .whereNull('removed_at')
      .limit(1)
      .first();
  }

  private async repository(trx: Knex, externalId: string | null | undefined): Promise<RepositoryModel | undefined> {
    if (!externalId) return undefined;
    return RepositoryModel.query(trx)
      .acrossOrgs('webhook routing by repository')
      .where({ host: this.d.host.identifier, external_id: String(externalId) })
      .limit(1)
      .first();
  }

  /** Pull request changes for the plugins that follow their own pull requests (fixes, onboarding). */
  private async announcePullRequest(
    trx: Knex,
    repo: RepositoryModel,
    action: string,
    pr: HostItem | undefined,
  ): Promise<void> {
    if (!pr || typeof pr.number !== 'number') return;
    const merged = Boolean(pr.merged || pr.merged_at);
    await this.d.outbox.add(
      trx,
      'codehost.pull_request_updated',
      {
        repository_id: repo.id,
        number: pr.number,
        action,
        state: merged ? 'merged' : pr.state === 'open' ? 'open' : 'closed',
        draft: Boolean(pr.draft),
        head_branch: pr.head?.ref ?? null,
        head_sha: pr.head?.sha ?? null,
        base_branch: pr.base?.ref ?? null,
        merge_sha: merged ? (pr.merge_commit_sha ?? null) : null,
      },
      { orgId: repo.org_id },
    );
    const onboarding = repo.onboarding_pr;
    if (onboarding?.number === pr.number && (action === 'closed' || action === 'reopened')) {
      await RepositoryModel.query(trx)
        .forOrg(repo.org_id)
        .patch({
          onboarding_pr: { ...onboarding, status: merged ? 'merged' : action === 'closed' ? 'closed' : 'open' },
        } as Partial<RepositoryModel>)
        .where('id', repo.id);
    }
  }

  private async dispatch(trx: Knex, row: DeliveryRow, payload: WebhookPayload): Promise<string> {
    const action = row.action ?? '';
    switch (row.kind) {
      case 'ping':
        return 'pong';
      case 'installation': {
        const inst = await this.installation(trx, row.installation_external_id);
        if (!inst) return 'installation_not_linked';
        if (action === 'deleted') {
          await this.installations().markRemoved(trx, inst, systemActor('codehost', inst.org_id));
          return 'installation_removed';
        }
        await this.installations().applyHostState(
          trx,
          inst,
          installationFromPayload(payload.installation!), // an installation event carries one
          systemActor('codehost', inst.org_id),
        );
        return `installation_${action || 'updated'}`;
      }
      case 'installation_repositories': {
        if (action !== 'removed') return 'noted';
        let n = 0;
        for (const r of payload.repositories_removed ?? []) {
          const repo = await this.repository(trx, String(r.id));
          if (!repo) continue;
          await this.repositories().disconnectRow(trx, repo, {
            actor: systemActor('codehost', repo.org_id),
            reason: 'removed_from_installation',
          });
          n++;
        }
        return `repositories_disconnected:${n}`;
      }
      case 'repository': {
        const repo = await this.repository(trx, row.repository_external_id);
        if (!repo) return 'repository_not_connected';
        if (action === 'deleted') {
          await this.repositories().disconnectRow(trx, repo, {
            actor: systemActor('codehost', repo.org_id),
            reason: 'deleted_on_host',
          });
          return 'repository_disconnected';
        }
        const r = payload.repository!; // a repository event carries one
        await this.repositories().applyHostState(
          trx,
          repo,
          {
            fullName: String(r.full_name),
            htmlUrl: String(r.html_url),
            cloneUrl: String(r.clone_url ?? repo.clone_url),
            defaultBranch: String(r.default_branch ?? repo.default_branch),
            isPublic: r.visibility ? r.visibility === 'public' : !r.private,
            archived: Boolean(r.archived),
          },
          systemActor('codehost', repo.org_id),
        );
        return 'repository_updated';
      }
      case 'push': {
        const repo = await this.repository(trx, row.repository_external_id);
        if (!repo) return 'repository_not_connected';
        const after = String(payload.after ?? '');
        if (payload.ref !== `refs/heads/${repo.default_branch}` || !after || ZERO.test(after))
          return 'not_default_branch';
        await this.repositories().requestIndex(trx, repo, after);
        return 'index_requested';
      }
      case 'issue':
      case 'pull_request': {
        const repo = await this.repository(trx, row.repository_external_id);
        if (!repo) return 'repository_not_connected';
        const outcome = await this.intake().item(
          trx,
          repo,
          row.kind === 'issue' ? 'issue' : 'pull_request',
          action,
          payload,
        );
        if (row.kind === 'pull_request') await this.announcePullRequest(trx, repo, action, payload.pull_request);
        return outcome;
      }
      case 'check': {
        const repo = await this.repository(trx, row.repository_external_id);
        if (!repo) return 'repository_not_connected';
        const sha = String(payload.sha ?? payload.check_run?.head_sha ?? payload.check_suite?.head_sha ?? '');
        if (!sha) return 'ignored';
        // The fix loop reads the combined state from the host (CodeHost.getCommitStatus) when told.
        await this.d.outbox.add(
          trx,
          'codehost.ci_updated',
          {
            repository_id: repo.id,
            sha,
            event: payload.check_run ? 'check_run' : payload.check_suite ? 'check_suite' : 'status',
            action: action || null,
          },
          { orgId: repo.org_id },
        );
        return 'ci_updated';
      }
      case 'issue_comment': {
        const repo = await this.repository(trx, row.repository_external_id);
        if (!repo) return 'repository_not_connected';
        return this.intake().comment(trx, repo, action, payload);
      }
      default:
        return 'ignored';
    }
  }
}

function installationFromPayload(i: HostInstallation): Installation {
  return {
    id: String(i.id),
    account: { login: String(i.account?.login ?? ''), type: i.account?.type === 'User' ? 'user' : 'organization' },
    repositorySelection: i.repository_selection === 'selected' ? 'selected' : 'all',
    permissions: { ...(i.permissions ?? {}) },
    suspendedAt: i.suspended_at ? new Date(i.suspended_at) : null,
  };
}
