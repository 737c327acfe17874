/**
 * codehost-github: a GitHub App. The app's JWT reads installations and mints installation tokens
 * (cached until shortly before expiry); repository calls use the installation of the RepoRef.
 * Webhooks are checked with X-Hub-Signature-256 (base class); secrets are sealed with the
 * repository's public key; users sign in with the app's OAuth client (PKCE).
 */
import Joi from 'joi';
import {
  AdapterError,
  AdapterNotFoundError,
  NotSupportedError,
  codeHostOptionKeys,
  isAdapterError,
  type AuthorizeInput,
  type CiStatus,
  type CodeHostEvent,
  type CodeHostUser,
  type ExchangeInput,
  type GitAccess,
  type LabelInput,
  type MergeInput,
  type OpenPullRequestInput,
  type PullRequest,
  type RawHeaders,
  type ReleaseInput,
  type RepoRef,
  type TagInput,
  type UpdatePullRequestInput,
} from '../../core/contracts/index.js';
import { parseHubWebhook } from '../codehost-common/hub-webhook.js';
import { assertMergeableAt } from '../codehost-common/merge-check.js';
import { enc, type GithubCodeHostOptions } from './github-connection.js';
import { ciStatus, toPullRequest, type GhSchemas } from './github-json.js';
import { exchangeGithubCode, githubAuthorizeUrl } from './github-sign-in.js';
import { GithubRepositoryReads } from './github-repositories.js';
import { sealForRepository } from './seal.js';

export type { GithubCodeHostOptions } from './github-connection.js';

type GhPullRequest = GhSchemas['pull-request'];

/** The data of the one GraphQL mutation used: a pull request turned draft or ready for review. */
type DraftMutationData = Partial<
  Record<'convertPullRequestToDraft' | 'markPullRequestReadyForReview', { pullRequest: { id: string } }>
>;

/**
 * The GitHub App as the CodeHost contract: repository reads (GithubRepositoryReads), pull requests,
 * labels, comments and issues, tags and releases, CI status, secrets, git access, webhooks and sign-in.
 */
export class GithubCodeHost extends GithubRepositoryReads {
  static override identifier = 'codehost-github';
  static override optionsSchema = Joi.object<GithubCodeHostOptions>({
    ...codeHostOptionKeys,
    appId: Joi.alternatives(Joi.string().pattern(/^\d+$/), Joi.number().integer().min(1))
      .required()
      .custom((v) => String(v)),
    appSlug: Joi.string()
      .pattern(/^[a-z0-9][a-z0-9-]*$/)
      .required(),
    privateKey: Joi.string()
      .pattern(/BEGIN ([A-Z]+ )?PRIVATE KEY/)
      .required(),
    baseUrl: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .default('https://api.github.com'),
    webUrl: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .default('https://github.com'),
    requestTimeoutMs: Joi.number().integer().min(100).default(15_000),
    maxDiffBytes: Joi.number()
      .integer()
      .min(1024)
      .default(1024 * 1024),
  });

  // ---- pull requests

  async openPullRequest(ref: RepoRef, input: OpenPullRequestInput): Promise<PullRequest> {
    try {
      const { data } = await this.inst<GhPullRequest>(ref.installationId, {
        method: 'POST',
        path: this.repoPath(ref, '/pulls'),
        body: { title: input.title, body: input.body, head: input.head, base: input.base, draft: input.draft ?? false },
      });
      return toPullRequest(data);
    } catch (err) {
      if (isAdapterError(err, 'unprocessable') && /already exists/i.test(err.message))
        throw new AdapterError('already_exists', err.message, { details: err.details });
      throw err;
    }
  }

  async getPullRequest(ref: RepoRef, number: number): Promise<PullRequest | null> {
    const res = await this.orNull(
      this.inst<GhPullRequest>(ref.installationId, { path: this.repoPath(ref, `/pulls/${number}`) }),
    );
    return res ? toPullRequest(res.data) : null;
  }

  async findPullRequestByBranch(ref: RepoRef, branch: string): Promise<PullRequest | null> {
    const owner = ref.fullName.split('/')[0];
    const { data } = await this.inst<Array<GhSchemas['pull-request-simple']>>(ref.installationId, {
      path: this.repoPath(ref, '/pulls'),
      query: { head: `${owner}:${branch}`, state: 'all', sort: 'created', direction: 'desc', per_page: 1 },
    });
    return data[0] ? toPullRequest(data[0]) : null;
  }

  async updatePullRequest(ref: RepoRef, number: number, input: UpdatePullRequestInput): Promise<PullRequest> {
    const patch: { title?: string; body?: string; base?: string } = {};
    if (input.title !== undefined) patch.title = input.title;
    if (input.body !== undefined) patch.body = input.body;
    if (input.base !== undefined) patch.base = input.base;
    let { data } = await this.inst<GhPullRequest>(ref.installationId, {
      method: 'PATCH',
      path: this.repoPath(ref, `/pulls/${number}`),
      body: patch,
    });
    if (input.draft !== undefined && Boolean(data.draft) !== input.draft) {
      // Draft state changes only through GraphQL.
      const mutation = input.draft ? 'convertPullRequestToDraft' : 'markPullRequestReadyForReview';
      await this.graphql<DraftMutationData>(
        ref.installationId,
        `mutation($id: ID!) { ${mutation}(input: { pullRequestId: $id }) { pullRequest { id } } }`,
        { id: String(data.node_id) },
      );
      data = (await this.inst<GhPullRequest>(ref.installationId, { path: this.repoPath(ref, `/pulls/${number}`) }))
        .data;
    }
    return toPullRequest(data);
  }

  async closePullRequest(ref: RepoRef, number: number): Promise<PullRequest> {
    const current = await this.getPullRequest(ref, number);
    if (!current) throw new AdapterNotFoundError(`pull request #${number} does not exist`);
    if (current.state !== 'open') return current;
    const { data } = await this.inst<GhPullRequest>(ref.installationId, {
      method: 'PATCH',
      path: this.repoPath(ref, `/pulls/${number}`),
      body: { state: 'closed' },
    });
    return toPullRequest(data);
  }

  async mergePullRequest(ref: RepoRef, number: number, input: MergeInput): Promise<{ sha: string }> {
    const pr = await this.getPullRequest(ref, number);
    if (!pr) throw new AdapterNotFoundError(`pull request #${number} does not exist`);
    assertMergeableAt(pr, number, input.sha);
    try {
      const { data } = await this.inst<GhSchemas['pull-request-merge-result']>(ref.installationId, {
        method: 'PUT',
        path: this.repoPath(ref, `/pulls/${number}/merge`),
        body: {
          merge_method: input.method,
          sha: input.sha,
          ...(input.commitTitle ? { commit_title: input.commitTitle } : {}),
          ...(input.commitMessage ? { commit_message: input.commitMessage } : {}),
        },
      });
      return { sha: String(data.sha) };
    } catch (err) {
      if (isAdapterError(err, 'conflict'))
        throw new AdapterError('sha_mismatch', err.message, { details: err.details });
      if (isAdapterError(err, 'unprocessable'))
        throw new AdapterError('not_mergeable', err.message, { details: err.details });
      throw err;
    }
  }

  // ---- labels, comments, issues

  async addLabels(ref: RepoRef, number: number, labels: string[]): Promise<void> {
    await this.inst(ref.installationId, {
      method: 'POST',
      path: this.repoPath(ref, `/issues/${number}/labels`),
      body: { labels },
    });
  }

  async ensureLabel(ref: RepoRef, label: LabelInput): Promise<void> {
    const body = { color: label.color.replace(/^#/, ''), description: label.description ?? '' };
    try {
      await this.inst(ref.installationId, {
        method: 'PATCH',
        path: this.repoPath(ref, `/labels/${enc(label.name)}`),
        body,
      });
    } catch (err) {
      if (!isAdapterError(err, 'not_found')) throw err;
      await this.inst(ref.installationId, {
        method: 'POST',
        path: this.repoPath(ref, '/labels'),
        body: { name: label.name, ...body },
      });
    }
  }

  async comment(ref: RepoRef, number: number, body: string): Promise<{ id: string; url: string }> {
    const { data } = await this.inst<GhSchemas['issue-comment']>(ref.installationId, {
      method: 'POST',
      path: this.repoPath(ref, `/issues/${number}/comments`),
      body: { body },
    });
    return { id: String(data.id), url: String(data.html_url) };
  }

  async closeIssue(ref: RepoRef, number: number, reason: 'completed' | 'not_planned'): Promise<void> {
    await this.inst(ref.installationId, {
      method: 'PATCH',
      path: this.repoPath(ref, `/issues/${number}`),
      body: { state: 'closed', state_reason: reason },
    });
  }

  // ---- tags, releases, CI, secrets, git access

  private async tagCommit(ref: RepoRef, name: string): Promise<string | null> {
    const res = await this.orNull(
      this.inst<GhSchemas['git-ref']>(ref.installationId, { path: this.repoPath(ref, `/git/ref/tags/${enc(name)}`) }),
    );
    if (!res) return null;
    const obj = res.data.object;
    if (obj.type !== 'tag') return String(obj.sha);
    const tag = await this.inst<GhSchemas['git-tag']>(ref.installationId, {
      path: this.repoPath(ref, `/git/tags/${enc(String(obj.sha))}`),
    });
    return String(tag.data.object.sha);
  }

  async createTag(ref: RepoRef, input: TagInput): Promise<{ name: string; sha: string }> {
    const existing = await this.tagCommit(ref, input.name);
    if (existing) {
      if (existing === input.sha) return { name: input.name, sha: input.sha };
      throw new AdapterError('tag_exists', `tag ${input.name} points at ${existing}`, { details: { sha: existing } });
    }
    let target = input.sha;
    if (input.message) {
      const { data } = await this.inst<GhSchemas['git-tag']>(ref.installationId, {
        method: 'POST',
        path: this.repoPath(ref, '/git/tags'),
        body: { tag: input.name, message: input.message, object: input.sha, type: 'commit' },
      });
      target = String(data.sha);
    }
    await this.inst(ref.installationId, {
      method: 'POST',
      path: this.repoPath(ref, '/git/refs'),
      body: { ref: `refs/tags/${input.name}`, sha: target },
    });
    return { name: input.name, sha: input.sha };
  }

  async createRelease(ref: RepoRef, input: ReleaseInput): Promise<{ id: string; url: string }> {
    const { data } = await this.inst<GhSchemas['release']>(ref.installationId, {
      method: 'POST',
      path: this.repoPath(ref, '/releases'),
      body: {
        tag_name: input.tag,
        name: input.name,
        body: input.body,
        draft: input.draft ?? false,
        prerelease: input.prerelease ?? false,
      },
    });
    return { id: String(data.id), url: String(data.html_url) };
  }

  async getCommitStatus(ref: RepoRef, sha: string): Promise<CiStatus> {
    const [combined, runs] = await Promise.all([
      this.inst<GhSchemas['combined-commit-status']>(ref.installationId, {
        path: this.repoPath(ref, `/commits/${enc(sha)}/status`),
      }),
      this.inst<{ total_count: number; check_runs: Array<GhSchemas['check-run']> }>(ref.installationId, {
        path: this.repoPath(ref, `/commits/${enc(sha)}/check-runs`),
        query: { per_page: 100 },
      }),
    ]);
    return ciStatus(combined.data.statuses ?? [], runs.data.check_runs ?? []);
  }

  async setSecret(ref: RepoRef, name: string, value: string): Promise<void> {
    const { data: key } = await this.inst<GhSchemas['actions-public-key']>(ref.installationId, {
      path: this.repoPath(ref, '/actions/secrets/public-key'),
    });
    const encrypted = await sealForRepository(String(key.key), value);
    await this.inst(ref.installationId, {
      method: 'PUT',
      path: this.repoPath(ref, `/actions/secrets/${enc(name)}`),
      body: { encrypted_value: encrypted, key_id: String(key.key_id) },
    });
  }

  async createGitAccess(ref: RepoRef, input: { write: boolean }): Promise<GitAccess> {
    if (!ref.installationId)
      throw new AdapterError('no_installation', 'git access needs the installation of the repository');
    const repo = await this.getRepository(ref);
    const name = ref.fullName.split('/')[1];
    // A token of its own, limited to this repository and to reading (or pushing) contents.
    const token = await this.mintInstallationToken(ref.installationId, {
      repositories: [name],
      permissions: { contents: input.write ? 'write' : 'read', metadata: 'read' },
    });
    return { token: token.token, expiresAt: token.expiresAt, cloneUrl: repo.cloneUrl };
  }

  // ---- webhooks and sign-in

  parseWebhook(headers: RawHeaders, rawBody: Buffer): CodeHostEvent {
    return parseHubWebhook(headers, rawBody);
  }

  private oauth(): { clientId: string; clientSecret: string } {
    if (!this.options.oauth)
      throw new NotSupportedError(
        "sign-in with GitHub needs adapters.options.codehost-github.oauth (the app's client id and secret)",
      );
    return this.options.oauth;
  }

  authorizeUrl(input: AuthorizeInput): Promise<string> {
    // Inside the executor, a missing OAuth app rejects the promise rather than throwing (callers probe with .then).
    return new Promise((resolve) => resolve(githubAuthorizeUrl(this.webUrl, this.oauth(), input)));
  }

  async exchangeCode(input: ExchangeInput): Promise<CodeHostUser> {
    return exchangeGithubCode(this.client, this.webUrl, this.oauth(), input);
  }
}
