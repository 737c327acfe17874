/** Changing a repository through its host: pull requests and merges, labels, tags, releases, and the CI status of a commit. */

export type MergeMethod = 'squash' | 'merge' | 'rebase';
export const MERGE_METHODS: readonly MergeMethod[] = ['squash', 'merge', 'rebase'];

export type PullRequestState = 'open' | 'closed' | 'merged';

export interface PullRequest {
  number: number;
  url: string;
  title: string;
  body: string;
  state: PullRequestState;
  draft: boolean;
  head: { branch: string; sha: string };
  base: { branch: string };
  labels: string[];
  /** Commit the merge produced, once merged. */
  mergeSha: string | null;
}

export interface OpenPullRequestInput {
  head: string;
  base: string;
  title: string;
  body: string;
  draft?: boolean;
}

export interface UpdatePullRequestInput {
  title?: string;
  body?: string;
  base?: string;
  draft?: boolean;
}

export interface MergeInput {
  method: MergeMethod;
  /** The approved head commit: the merge is refused (code `sha_mismatch`) when the head moved. */
  sha: string;
  commitTitle?: string;
  commitMessage?: string;
}

export interface LabelInput {
  name: string;
  /** Six hex digits, no `#`. */
  color: string;
  description?: string;
}

export interface TagInput {
  name: string;
  sha: string;
  /** An annotated tag's message; absent for a lightweight tag. */
  message?: string;
}

export interface ReleaseInput {
  tag: string;
  name: string;
  body: string;
  draft?: boolean;
  prerelease?: boolean;
}

/** CI state of a commit, combined over its checks and statuses. */
export type CiState = 'success' | 'failure' | 'pending' | 'none';
export const CI_STATES: readonly CiState[] = ['success', 'failure', 'pending', 'none'];

export interface CiStatus {
  state: CiState;
  checks: Array<{ name: string; state: CiState; url?: string }>;
}
