/** GitHub's REST answers read into the contract's types, field by field. */
import type { components } from '@octokit/openapi-types';
import type { CiState, CiStatus, PullRequest, Repository } from '../../core/contracts/index.js';

/** GitHub's REST schemas (the OpenAPI description's names). */
export type GhSchemas = components['schemas'];

/** The fields read of a repository: `repository` (in lists) and `full-repository` (alone) both have them. */
export type GhRepositoryFields = Pick<
  GhSchemas['repository'],
  'id' | 'full_name' | 'html_url' | 'clone_url' | 'default_branch' | 'visibility' | 'private' | 'archived'
>;

type GhPullRequestSimple = GhSchemas['pull-request-simple'];

/**
 * The fields read of a pull request: `pull-request` (alone) and `pull-request-simple` (in lists) both
 * have them, but for `merged`, which lists leave out (`merged_at` tells there).
 */
export type GhPullRequestFields = Pick<
  GhPullRequestSimple,
  'number' | 'html_url' | 'title' | 'body' | 'state' | 'draft' | 'merged_at' | 'merge_commit_sha'
> & {
  merged?: GhSchemas['pull-request']['merged'];
  head: Pick<GhPullRequestSimple['head'], 'ref' | 'sha'>;
  base: Pick<GhPullRequestSimple['base'], 'ref'>;
  labels: Array<Pick<GhPullRequestSimple['labels'][number], 'name'>>;
};

/** The fields read of a commit status (`simple-commit-status`, in `combined-commit-status`). */
export type GhCommitStatusFields = Pick<GhSchemas['simple-commit-status'], 'context' | 'state' | 'target_url'>;

/** The fields read of a check run (`check-run`). */
export type GhCheckRunFields = Pick<GhSchemas['check-run'], 'name' | 'status' | 'conclusion' | 'html_url'>;

export function toRepository(r: GhRepositoryFields): Repository {
  return {
    id: String(r.id),
    fullName: String(r.full_name),
    htmlUrl: String(r.html_url),
    cloneUrl: String(r.clone_url),
    defaultBranch: String(r.default_branch ?? 'main'),
    isPublic: r.visibility ? r.visibility === 'public' : !r.private,
    archived: Boolean(r.archived),
  };
}

export function toPullRequest(p: GhPullRequestFields): PullRequest {
  return {
    number: Number(p.number),
    url: String(p.html_url),
    title: String(p.title ?? ''),
    body: String(p.body ?? ''),
    state: p.merged || p.merged_at ? 'merged' : p.state === 'open' ? 'open' : 'closed',
    draft: Boolean(p.draft),
    head: { branch: String(p.head?.ref ?? ''), sha: String(p.head?.sha ?? '') },
    base: { branch: String(p.base?.ref ?? '') },
    labels: (p.labels ?? []).map((l) => String(l.name)),
    mergeSha: (p.merged || p.merged_at) && p.merge_commit_sha ? p.merge_commit_sha : null,
  };
}

/** A commit's CI: its combined statuses and check runs, failing when one fails, pending while one runs. */
export function ciStatus(statuses: GhCommitStatusFields[], runs: GhCheckRunFields[]): CiStatus {
  const checks: CiStatus['checks'] = [];
  for (const s of statuses) {
    checks.push({
      name: String(s.context),
      state: statusState(s.state),
      ...(s.target_url ? { url: String(s.target_url) } : {}),
    });
  }
  for (const r of runs) {
    checks.push({
      name: String(r.name),
      state: runState(r.status, r.conclusion),
      ...(r.html_url ? { url: String(r.html_url) } : {}),
    });
  }
  const states = checks.map((c) => c.state);
  const state: CiState =
    states.length === 0
      ? 'none'
      : states.includes('failure')
        ? 'failure'
        : states.includes('pending')
          ? 'pending'
          : 'success';
  return { state, checks };
}

function statusState(s: GhCommitStatusFields['state']): CiState {
  if (s === 'success') return 'success';
  if (s === 'pending') return 'pending';
  return 'failure';
}

function runState(status: GhCheckRunFields['status'], conclusion: GhCheckRunFields['conclusion']): CiState {
  if (status !== 'completed') return 'pending';
  if (conclusion === 'success' || conclusion === 'neutral' || conclusion === 'skipped') return 'success';
  return 'failure';
}
