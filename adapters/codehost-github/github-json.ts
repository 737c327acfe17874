/** GitHub's REST answers read into the contract's types, field by field. */
import type { CiState, CiStatus, PullRequest, Repository } from '../../core/contracts/index.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- GitHub answers are read field by field

export function toRepository(r: Json): Repository {
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

export function toPullRequest(p: Json): PullRequest {
  const head = p.head as Json | undefined;
  const base = p.base as Json | undefined;
  return {
    number: Number(p.number),
    url: String(p.html_url),
    title: String(p.title ?? ''),
    body: String(p.body ?? ''),
    state: p.merged || p.merged_at ? 'merged' : p.state === 'open' ? 'open' : 'closed',
    draft: Boolean(p.draft),
    head: { branch: String(head?.ref ?? ''), sha: String(head?.sha ?? '') },
    base: { branch: String(base?.ref ?? '') },
    labels: ((p.labels ?? []) as Json[]).map((l) => String(l.name)),
    mergeSha: p.merged || p.merged_at ? String(p.merge_commit_sha) : null,
  };
}

/** A commit's CI: its combined statuses and check runs, failing when one fails, pending while one runs. */
export function ciStatus(statuses: Json[], runs: Json[]): CiStatus {
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

function statusState(s: unknown): CiState {
  if (s === 'success') return 'success';
  if (s === 'pending') return 'pending';
  return 'failure';
}

function runState(status: unknown, conclusion: unknown): CiState {
  if (status !== 'completed') return 'pending';
  if (conclusion === 'success' || conclusion === 'neutral' || conclusion === 'skipped') return 'success';
  return 'failure';
}
