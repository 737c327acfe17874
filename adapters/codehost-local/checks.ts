import {
  AdapterError,
  type CiState,
  type CiStatus,
  type ReleaseInput,
  type RepoRef,
  type TagInput,
} from '../../core/contracts/index.js';
import { newId } from '../../core/data/ids.js';
import type { LocalHostContext } from './options.js';
import type { LocalRepositories } from './repositories.js';

/** The combined state of a commit's checks: any failure fails, any pending waits. */
function combine(states: CiState[]): CiState {
  if (states.length === 0) return 'none';
  if (states.includes('failure')) return 'failure';
  if (states.includes('pending')) return 'pending';
  return 'success';
}

/** Tags, releases and the CI statuses of commits. */
export class LocalChecks {
  constructor(
    private readonly ctx: LocalHostContext,
    private readonly repos: LocalRepositories,
  ) {}

  async createTag(ref: RepoRef, input: TagInput): Promise<{ name: string; sha: string }> {
    const repo = await this.repos.repo(ref);
    const sha = await repo.mustResolve(input.sha, 'commit');
    const existing = await repo.tagTarget(input.name);
    if (existing) {
      if (existing === sha) return { name: input.name, sha };
      throw new AdapterError('tag_exists', `tag ${input.name} points at ${existing}`, { details: { sha: existing } });
    }
    await repo.createTag(input.name, sha, input.message);
    return { name: input.name, sha };
  }

  async createRelease(ref: RepoRef, input: ReleaseInput): Promise<{ id: string; url: string }> {
    const repoName = this.repos.canonical(ref.fullName);
    const repo = await this.repos.repo(repoName);
    if (!(await repo.tagTarget(input.tag))) {
      const head = await repo.mustResolve(`refs/heads/${await repo.headBranch()}`);
      await repo.createTag(input.tag, head);
    }
    const url = `${this.repos.repoUrl(repoName)}/releases/tag/${encodeURIComponent(input.tag)}`;
    const found = await this.ctx
      .db<{ id: string; repo: string; tag: string }>('codehost_local_releases')
      .where({ repo: repoName, tag: input.tag })
      .first();
    if (found) return { id: found.id, url };
    const id = newId('lrl');
    await this.ctx.db('codehost_local_releases').insert({
      id,
      repo: repoName,
      tag: input.tag,
      name: input.name,
      body: input.body,
      draft: input.draft ?? false,
      prerelease: input.prerelease ?? false,
    });
    return { id, url };
  }

  /** Releases of a repository, newest first. */
  async listReleases(fullName: string): Promise<Array<{ id: string; tag: string; name: string; body: string }>> {
    return this.ctx
      .db('codehost_local_releases')
      .where({ repo: this.repos.canonical(fullName) })
      .orderBy('created_at', 'desc')
      .select('id', 'tag', 'name', 'body');
  }

  /** Records a CI status of a commit (what a CI system reports to a host). */
  async setCommitStatus(
    fullName: string,
    sha: string,
    status: { context: string; state: Exclude<CiState, 'none'>; targetUrl?: string },
  ): Promise<void> {
    const repo = this.repos.canonical(fullName);
    await (await this.repos.repo(repo)).mustResolve(sha, 'commit');
    await this.ctx
      .db('codehost_local_statuses')
      .insert({
        repo,
        sha,
        context: status.context,
        state: status.state,
        target_url: status.targetUrl ?? null,
        updated_at: new Date(),
      })
      .onConflict(['repo', 'sha', 'context'])
      .merge(['state', 'target_url', 'updated_at']);
  }

  async getCommitStatus(ref: RepoRef, sha: string): Promise<CiStatus> {
    const repo = this.repos.canonical(ref.fullName);
    await this.repos.repo(repo);
    const rows = await this.ctx.db('codehost_local_statuses').where({ repo, sha }).orderBy('context');
    const checks = rows.map((r: { context: string; state: CiState; target_url: string | null }) => ({
      name: r.context,
      state: r.state,
      ...(r.target_url ? { url: r.target_url } : {}),
    }));
    return { state: combine(checks.map((c: { state: CiState }) => c.state)), checks };
  }
}
