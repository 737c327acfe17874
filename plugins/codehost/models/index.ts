import { tenantModel } from '../../../core/data/model.js';

/** An installation of the app on a code-host account, linked to one organization. */
export class InstallationModel extends tenantModel({
  table: 'codehost_installations',
  idPrefix: 'chi',
  json: ['permissions'],
}) {
  declare host: string;
  declare external_id: string;
  declare account_login: string;
  declare account_type: 'user' | 'organization';
  declare repository_selection: 'all' | 'selected';
  declare permissions: Record<string, string>;
  declare suspended_at: Date | null;
  declare removed_at: Date | null;
  declare linked_by_user_id: string | null;
  declare last_synced_at: Date | null;
  declare updated_at: Date;
}

export interface Guideline {
  path: string;
  sha: string;
  html_url: string | null;
  excerpt: string;
}

export interface Guidelines {
  contributing: Guideline | null;
  code_of_conduct: Guideline | null;
  read_at: string;
}

export interface OnboardingPr {
  number: number | null;
  url: string | null;
  status: 'none' | 'open' | 'merged' | 'closed';
  requested_at: string | null;
  error: string | null;
  title: string | null;
  branch: string | null;
}

/** A repository of an installation connected to a workspace. */
export class RepositoryModel extends tenantModel({
  table: 'repositories',
  idPrefix: 'repo',
  json: ['guidelines', 'onboarding_pr', 'runs_on', 'cloud_auth'],
}) {
  declare workspace_id: string;
  declare installation_id: string;
  declare host: string;
  declare external_id: string;
  declare full_name: string;
  declare html_url: string;
  declare clone_url: string;
  declare default_branch: string;
  declare is_public: boolean;
  declare archived: boolean;
  declare agent_key_last4: string | null;
  declare agent_key_set_at: Date | null;
  declare guidelines: Guidelines | null;
  declare labels_created_at: Date | null;
  declare onboarding_pr: OnboardingPr | null;
  declare runs_on: string[];
  declare cloud_auth: Record<string, unknown>;
  declare index_status: 'none' | 'queued' | 'building' | 'ready' | 'failed';
  declare indexed_sha: string | null;
  declare indexed_at: Date | null;
  declare index_error: string | null;
  declare index_files: number;
  declare index_symbols: number;
  declare last_refreshed_at: Date | null;
  declare connected_by_user_id: string | null;
  declare updated_at: Date;
}

/** An issue or pull request followed as a ticket. */
export class CodehostItemModel extends tenantModel({ table: 'codehost_items', idPrefix: 'chit' }) {
  declare workspace_id: string;
  declare repository_id: string;
  declare kind: 'issue' | 'pull_request';
  declare number: number;
  declare ticket_id: string | null;
  declare html_url: string | null;
  declare author_login: string | null;
  declare state: 'open' | 'closed';
  declare closed_by_service_at: Date | null;
  declare updated_at: Date;
}

/** A comment waiting to be posted on an issue or pull request, or posted. */
export class CodehostCommentModel extends tenantModel({ table: 'codehost_comments', idPrefix: 'chc' }) {
  declare workspace_id: string;
  declare repository_id: string;
  declare number: number;
  declare ticket_id: string | null;
  declare source: string;
  declare body: string;
  declare status: 'pending' | 'posting' | 'posted' | 'failed';
  declare attempts: number;
  declare external_id: string | null;
  declare url: string | null;
  declare error: string | null;
  declare posted_at: Date | null;
  declare updated_at: Date;
}
