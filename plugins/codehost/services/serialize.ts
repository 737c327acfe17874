import type { InstallationModel, RepositoryModel } from '../models/index.js';
import { iso } from '../../../core/http/times.js';

export function installationJson(i: InstallationModel, connected: number) {
  return {
    id: i.id,
    org_id: i.org_id,
    host: i.host,
    external_id: i.external_id,
    account: { login: i.account_login, type: i.account_type },
    repository_selection: i.repository_selection,
    permissions: Object.fromEntries(Object.entries(i.permissions ?? {}).map(([k, v]) => [k, String(v)])),
    suspended_at: iso(i.suspended_at),
    removed_at: iso(i.removed_at),
    last_synced_at: iso(i.last_synced_at),
    repositories_connected: connected,
    created_at: iso(i.created_at),
    updated_at: iso(i.updated_at),
  };
}

export function repositoryJson(r: RepositoryModel) {
  const pr = r.onboarding_pr;
  return {
    id: r.id,
    org_id: r.org_id,
    workspace_id: r.workspace_id,
    installation_id: r.installation_id,
    external_id: r.external_id,
    full_name: r.full_name,
    html_url: r.html_url,
    default_branch: r.default_branch,
    is_public: r.is_public,
    archived: r.archived,
    agent_key: { last4: r.agent_key_last4, set_at: iso(r.agent_key_set_at) },
    onboarding_pr: {
      number: pr?.number ?? null,
      url: pr?.url ?? null,
      status: pr?.status ?? 'none',
      requested_at: pr?.requested_at ?? null,
      error: pr?.error ?? null,
      title: pr?.title ?? null,
    },
    runs_on: r.runs_on ?? [],
    cloud_auth: r.cloud_auth ?? {},
    labels_created_at: iso(r.labels_created_at),
    guidelines: r.guidelines ?? null,
    index: {
      status: r.index_status,
      indexed_sha: r.indexed_sha,
      indexed_at: iso(r.indexed_at),
      files: r.index_files,
      symbols: r.index_symbols,
      error: r.index_error,
    },
    last_refreshed_at: iso(r.last_refreshed_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}
