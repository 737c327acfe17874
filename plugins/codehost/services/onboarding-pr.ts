import { isAdapterError, type RepoRef } from '../../../core/contracts/index.js';
import type { OnboardingPr, RepositoryModel } from '../models/index.js';
import type { CodehostDeps, WorkspaceLike } from './deps.js';
import { hostFailure } from './errors.js';
import type { GitRemote } from './git-remote.js';
import { onboardingBody, onboardingFiles } from './onboarding-files.js';

/**
 * Pushes the onboarding files to their branch and opens (or updates) the pull request. A
 * refusal the host would repeat is kept in the answer's `error` (the earlier pull request stays);
 * a retryable one fails the request.
 */
export async function pushOnboardingPr(
  d: CodehostDeps,
  git: GitRemote,
  ref: RepoRef,
  row: RepositoryModel,
  ws: WorkspaceLike,
): Promise<OnboardingPr> {
  const o = d.options.onboarding;
  const baseUrl = d.config.server.publicBaseUrl.replace(/\/+$/, '');
  const files = onboardingFiles(d.options, { baseUrl, workspace: ws, repository: row });
  const body = onboardingBody({
    workspaceName: ws.name,
    files: Object.keys(files),
    secretName: d.options.agentKeySecretName,
  });
  let pr: OnboardingPr;
  const requestedAt = new Date().toISOString();
  try {
    const access = await d.host.createGitAccess(ref, { write: true });
    await git.commitAndPush(access, { base: row.default_branch, branch: o.branch, files, message: o.title });
    const existing = await d.host.findPullRequestByBranch(ref, o.branch);
    const opened =
      existing && existing.state === 'open'
        ? await d.host.updatePullRequest(ref, existing.number, { title: o.title, body })
        : await d.host.openPullRequest(ref, { head: o.branch, base: row.default_branch, title: o.title, body });
    pr = {
      number: opened.number,
      url: opened.url,
      status: opened.state,
      requested_at: requestedAt,
      error: null,
      title: opened.title,
      branch: o.branch,
    };
  } catch (err) {
    const failure = isAdapterError(err) ? err.message : err instanceof Error ? err.message : String(err);
    if (isAdapterError(err) && err.retryable) throw hostFailure(err);
    d.log.warn({ err, repositoryId: row.id }, 'the onboarding pull request could not be opened');
    pr = {
      ...(row.onboarding_pr ?? { number: null, url: null, status: 'none', title: null, branch: o.branch }),
      requested_at: requestedAt,
      error: failure.slice(0, 500),
    };
  }
  return pr;
}
