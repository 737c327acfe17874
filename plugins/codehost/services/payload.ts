/**
 * The parts of a code host's webhook payload (GitHub's shape) that the event handler and intake
 * read. Hosts send more; every field is optional because other kinds of delivery omit it, and
 * the readers check what they rely on (a number, a string) before they use it.
 */
export interface HostAccount {
  login?: string;
  type?: string;
}

export interface HostBranchRef {
  ref?: string;
  sha?: string;
}

/** An issue or a pull request. */
export interface HostItem {
  number?: number;
  state?: string;
  title?: string | null;
  body?: string | null;
  html_url?: string;
  draft?: boolean;
  labels?: Array<string | { name?: string }>;
  user?: HostAccount | null;
  head?: HostBranchRef | null;
  base?: HostBranchRef | null;
  merged?: boolean | null;
  merged_at?: string | null;
  merge_commit_sha?: string | null;
}

export interface HostComment {
  id?: number | string;
  body?: string | null;
  created_at?: string | null;
  user?: HostAccount | null;
  performed_via_github_app?: { slug?: string } | null;
}

export interface HostInstallation {
  id?: number | string;
  account?: HostAccount | null;
  repository_selection?: string;
  permissions?: Record<string, string> | null;
  suspended_at?: string | null;
}

export interface HostRepository {
  id?: number | string;
  full_name?: string;
  html_url?: string;
  clone_url?: string | null;
  default_branch?: string | null;
  visibility?: string | null;
  private?: boolean;
  archived?: boolean;
}

export interface WebhookPayload {
  issue?: HostItem;
  pull_request?: HostItem;
  comment?: HostComment;
  label?: { name?: string } | null;
  installation?: HostInstallation;
  repositories_removed?: HostRepository[] | null;
  repository?: HostRepository;
  ref?: string;
  after?: string | null;
  sha?: string | null;
  check_run?: { head_sha?: string | null } | null;
  check_suite?: { head_sha?: string | null } | null;
}
