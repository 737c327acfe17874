import {
  AdapterError,
  AdapterNotFoundError,
  type CompareResult,
  type MergeInput,
  type OpenPullRequestInput,
  type PullRequest,
  type RepoRef,
  type UpdatePullRequestInput,
} from '../../core/contracts/index.js';
import { assertMergeableAt } from '../codehost-common/merge-check.js';
import { labelsOf, type ItemRow, type ItemRows } from './item-rows.js';
import type { LocalHostContext } from './options.js';
import type { LocalRepositories } from './repositories.js';
import type { LocalChecks } from './checks.js';

/** Pull requests: opened by the service, updated, closed, merged with git at exactly the approved commit. */
export class LocalPullRequests {
  constructor(
    private readonly ctx: LocalHostContext,
    private readonly repos: LocalRepositories,
    private readonly items: ItemRows,
    private readonly ci: LocalChecks,
  ) {}

  /** A pull request as the contract answers it; an open one follows its branch's live head. */
  private async toPullRequest(repoName: string, row: ItemRow): Promise<PullRequest> {
    let headSha = row.head_sha ?? '';
    if (row.state === 'open' && row.head_branch) {
      const live = await (await this.repos.repo(repoName)).branchSha(row.head_branch);
      if (live && live !== headSha) {
        headSha = live;
        await this.ctx
          .db('codehost_local_items')
          .where({ repo: repoName, number: row.number })
          .update({ head_sha: live, updated_at: new Date() });
      }
    }
    return {
      number: row.number,
      url: this.items.url(repoName, row),
      title: row.title,
      body: row.body,
      state: row.state,
      draft: row.draft,
      head: { branch: row.head_branch ?? '', sha: headSha },
      base: { branch: row.base_branch ?? '' },
      labels: labelsOf(row),
      mergeSha: row.merge_sha,
    };
  }

  async openPullRequest(ref: RepoRef, input: OpenPullRequestInput): Promise<PullRequest> {
    const repoName = this.repos.canonical(ref.fullName);
    const repo = await this.repos.repo(repoName);
    const headSha = await repo.branchSha(input.head);
    if (!headSha) throw new AdapterError('invalid_head', `branch ${input.head} does not exist`);
    if (!(await repo.branchSha(input.base)))
      throw new AdapterError('invalid_base', `branch ${input.base} does not exist`);
    const existing = await this.ctx
      .db<ItemRow>('codehost_local_items')
      .where({ repo: repoName, kind: 'pull_request', head_branch: input.head, base_branch: input.base, state: 'open' })
      .first();
    if (existing)
      throw new AdapterError('already_exists', `pull request #${existing.number} already exists for ${input.head}`, {
        details: { number: existing.number },
      });
    await this.repos.repoRow(repoName);
    const number = await this.ctx.db.transaction(async (trx) => {
      const n = await this.items.nextNumber(trx, repoName);
      await trx('codehost_local_items').insert({
        repo: repoName,
        number: n,
        kind: 'pull_request',
        title: input.title,
        body: input.body,
        author: 'patchwell[bot]',
        state: 'open',
        draft: input.draft ?? false,
        head_branch: input.head,
        head_sha: headSha,
        base_branch: input.base,
        labels: '[]',
      });
      return n;
    });
    return (await this.getPullRequest(ref, number))!;
  }

  async getPullRequest(ref: RepoRef, number: number): Promise<PullRequest | null> {
    const repoName = this.repos.canonical(ref.fullName);
    await this.repos.repo(repoName);
    const row = await this.items.get(repoName, number);
    return row && row.kind === 'pull_request' ? this.toPullRequest(repoName, row) : null;
  }

  async findPullRequestByBranch(ref: RepoRef, branch: string): Promise<PullRequest | null> {
    const repoName = this.repos.canonical(ref.fullName);
    await this.repos.repo(repoName);
    const row = await this.ctx
      .db<ItemRow>('codehost_local_items')
      .where({ repo: repoName, kind: 'pull_request', head_branch: branch })
      .orderBy('number', 'desc')
      .first();
    return row ? this.toPullRequest(repoName, row) : null;
  }

  /** A pull request of the ref's repository; not found otherwise. */
  private async mustPull(ref: RepoRef, number: number): Promise<ItemRow> {
    const repoName = this.repos.canonical(ref.fullName);
    await this.repos.repo(repoName);
    const row = await this.items.get(repoName, number);
    if (!row || row.kind !== 'pull_request') throw new AdapterNotFoundError(`pull request #${number} does not exist`);
    return row;
  }

  async updatePullRequest(ref: RepoRef, number: number, input: UpdatePullRequestInput): Promise<PullRequest> {
    const row = await this.mustPull(ref, number);
    const patch: Record<string, unknown> = { updated_at: new Date() };
    if (input.title !== undefined) patch.title = input.title;
    if (input.body !== undefined) patch.body = input.body;
    if (input.draft !== undefined) patch.draft = input.draft;
    if (input.base !== undefined) {
      if (!(await (await this.repos.repo(ref)).branchSha(input.base)))
        throw new AdapterError('invalid_base', `branch ${input.base} does not exist`);
      patch.base_branch = input.base;
    }
    await this.ctx.db('codehost_local_items').where({ repo: row.repo, number }).update(patch);
    return (await this.getPullRequest(ref, number))!;
  }

  async closePullRequest(ref: RepoRef, number: number): Promise<PullRequest> {
    const row = await this.mustPull(ref, number);
    if (row.state === 'open') {
      const pr = await this.toPullRequest(row.repo, row);
      await this.ctx
        .db('codehost_local_items')
        .where({ repo: row.repo, number })
        .update({ state: 'closed', head_sha: pr.head.sha, closed_at: new Date(), updated_at: new Date() });
    }
    return (await this.getPullRequest(ref, number))!;
  }

  async mergePullRequest(ref: RepoRef, number: number, input: MergeInput): Promise<{ sha: string }> {
    const row = await this.mustPull(ref, number);
    const pr = await this.toPullRequest(row.repo, row);
    assertMergeableAt(pr, number, input.sha);
    if (pr.draft) throw new AdapterError('not_mergeable', `pull request #${number} is a draft`);
    const ci = await this.ci.getCommitStatus(ref, input.sha);
    if (ci.state === 'failure')
      throw new AdapterError('not_mergeable', `checks fail on ${input.sha}`, { details: { checks: ci.checks } });
    const repo = await this.repos.repo(ref);
    const sha = await repo.merge(input.method, pr.base.branch, input.sha, {
      title:
        input.commitTitle ??
        (input.method === 'merge'
          ? `Merge pull request #${number} from ${pr.head.branch}`
          : `${pr.title} (#${number})`),
      body: input.commitMessage ?? '',
    });
    const now = new Date();
    await this.ctx.db('codehost_local_items').where({ repo: row.repo, number }).update({
      state: 'merged',
      merge_sha: sha,
      merge_method: input.method,
      head_sha: input.sha,
      merged_at: now,
      closed_at: now,
      updated_at: now,
    });
    return { sha };
  }

  /** An issue or pull request with what its page shows. */
  async itemDetail(
    fullName: string,
    number: number,
  ): Promise<{
    item: ItemRow;
    pull: PullRequest | null;
    diff: CompareResult | null;
    commits: Array<{ sha: string; subject: string; author: string }>;
  } | null> {
    const repo = this.repos.canonical(fullName);
    const row = await this.items.get(repo, number);
    if (!row) return null;
    if (row.kind !== 'pull_request') return { item: row, pull: null, diff: null, commits: [] };
    const pull = await this.toPullRequest(repo, row);
    const git = await this.repos.repo(repo);
    const base = row.state === 'merged' && row.merge_sha ? `${row.merge_sha}^1` : `refs/heads/${pull.base.branch}`;
    let diff: CompareResult | null;
    let commits: Array<{ sha: string; subject: string; author: string }> = [];
    try {
      diff = await git.compare(base, pull.head.sha, this.ctx.options.maxDiffBytes);
      commits = await git.log(base, pull.head.sha);
    } catch {
      diff = null;
    }
    return { item: row, pull, diff, commits };
  }
}
