import { AdapterError, type PullRequest } from '../../core/contracts/index.js';

/**
 * The contract's first checks before a merge, the same on every code host: the pull request is
 * open (`not_mergeable`) and its head is still the approved commit (`sha_mismatch`).
 */
export function assertMergeableAt(pr: PullRequest, number: number, approvedSha: string): void {
  if (pr.state !== 'open') throw new AdapterError('not_mergeable', `pull request #${number} is ${pr.state}`);
  if (pr.head.sha !== approvedSha)
    throw new AdapterError(
      'sha_mismatch',
      `the head of #${number} is ${pr.head.sha}, not the approved ${approvedSha}`,
      {
        details: { head_sha: pr.head.sha },
      },
    );
}
