/**
 * codehost-github: a GitHub App. The app's JWT reads installations and mints installation tokens
 * (cached until shortly before expiry); repository calls use the installation of the RepoRef.
 * Webhooks are checked with X-Hub-Signature-256 (base class); secrets are sealed with the
 * repository's public key; users sign in with the app's OAuth client (PKCE).
 */
import type { KeyObject } from 'node:crypto';
import Joi from 'joi';
import {
  AbstractCodeHost,
  AdapterError,
  AdapterNotFoundError,
  NotSupportedError,
  codeHostOptionKeys,
  isAdapterError,
  type AuthorizeInput,
  type Branch,
  type CiState,
  type CiStatus,
  type CodeHostEvent,
  type CodeHostOptions,
  type CodeHostUser,
  type CompareResult,
  type ExchangeInput,
  type GitAccess,
  type Installation,
  type LabelInput,
  type MergeInput,
  type OpenPullRequestInput,
  type PullRequest,
  type RawHeaders,
  type ReleaseInput,
  type RepoFile,
  type RepoRef,
  type Repository,
  type TagInput,
  type TreeEntry,
  type UpdatePullRequestInput,
} from '../../core/contracts/index.js';
import { parseHubWebhook } from '../codehost-common/hub-webhook.js';
import { appJwt, InstallationTokenCache, readPrivateKey, type InstallationToken } from './app-auth.js';
import { RestClient } from './rest-client.js';
import { sealForRepository } from './seal.js';

export interface GithubCodeHostOptions extends CodeHostOptions {
  appId: string;
  /** The app's URL name: `https://github.com/apps/<appSlug>`. */
  appSlug: string;
  /** The app's private key (PEM; `\n` escapes are accepted). */
  privateKey: string;
  /** REST base; default https://api.github.com (GHES: https://host/api/v3). */
  baseUrl: string;
  /** Web base for install and sign-in pages; default https://github.com. */
  webUrl: string;
  requestTimeoutMs: number;
  maxDiffBytes: number;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- GitHub answers are read field by field

const enc = encodeURIComponent;
const encPath = (p: string) => p.split('/').map(enc).join('/');

export class GithubCodeHost extends AbstractCodeHost<GithubCodeHostOptions> {
  static override identifier = 'codehost-github';
  static override optionsSchema = Joi.object<GithubCodeHostOptions>({
    ...codeHostOptionKeys,
    appId: Joi.alternatives(Joi.string().pattern(/^\d+$/), Joi.number().integer().min(1)).required().custom((v) => String(v)),
    appSlug: Joi.string().pattern(/^[a-z0-9][a-z0-9-]*$/).required(),
    privateKey: Joi.string().pattern(/BEGIN ([A-Z]+ )?PRIVATE KEY/).required(),
    baseUrl: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://api.github.com'),
    webUrl: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://github.com'),
    requestTimeoutMs: Joi.number().integer().min(100).default(15_000),
    maxDiffBytes: Joi.number().integer().min(1024).default(1024 * 1024),
  });

  private keyObject: KeyObject | null = null;
  private clientInstance: RestClient | null = null;
  readonly tokens = new InstallationTokenCache((id) => this.mintInstallationToken(id));

  private get client(): RestClient {
    return (this.clientInstance ??= new RestClient(this.options.baseUrl, `patchwell-${this.options.appSlug}`, this.options.requestTimeoutMs));
  }

  private get webUrl(): string {
    return this.options.webUrl.replace(/\/+$/, '');
  }

  private jwt(): string {
    this.keyObject ??= readPrivateKey(this.options.privateKey);
    return appJwt(this.options.appId, this.keyObject);
  }

  private app<T = Json>(method: 'GET' | 'POST', path: string, body?: unknown) {
    return this.client.request<T>({ method, path, body, authorization: `Bearer ${this.jwt()}` });
  }

  private async mintInstallationToken(installationId: string, scope?: { repositories: string[]; permissions: Record<string, string> }): Promise<InstallationToken> {
    const { data } = await this.app<{ token: string; expires_at: string }>('POST', `/app/installations/${enc(installationId)}/access_tokens`, scope);
    return { token: data.token, expiresAt: new Date(data.expires_at) };
  }

  /** A call with the installation token of `installationId`; a refused token is minted once more. */
  private async inst<T = Json>(installationId: string | null, req: { method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'; path: string; body?: unknown; query?: Record<string, string | number | undefined>; accept?: string }) {
    if (!installationId) throw new AdapterError('no_installation', 'codehost-github reaches repositories through an installation (RepoRef.installationId)');
    const call = async () => this.client.request<T>({ ...req, authorization: `token ${await this.tokens.get(installationId)}` });
    try {
      return await call();
    } catch (err) {
      if (!isAdapterError(err, 'unauthorized')) throw err;
      this.tokens.forget(installationId);
      return call();
    }
  }

  private repoPath(ref: RepoRef, rest = ''): string {
    const [owner, name] = ref.fullName.split('/');
    if (!owner || !name) throw new AdapterNotFoundError(`repository ${ref.fullName} does not exist`);
    return `/repos/${enc(owner)}/${enc(name)}${rest}`;
  }

  /** Null for 404, the value otherwise. */
  private async orNull<T>(p: Promise<T>): Promise<T | null> {
    try {
      return await p;
    } catch (err) {
      if (isAdapterError(err, 'not_found')) return null;
      throw err;
    }
  }

  // ---- installations and repositories

  async installUrl(state: string): Promise<string> {
    return `${this.webUrl}/apps/${enc(this.options.appSlug)}/installations/new?state=${enc(state)}`;
  }

  async getInstallation(installationId: string): Promise<Installation> {
    const { data } = await this.app('GET', `/app/installations/${enc(installationId)}`);
    return {
      id: String(data.id),
      account: { login: String(data.account?.login ?? ''), type: data.account?.type === 'User' ? 'user' : 'organization' },
      repositorySelection: data.repository_selection === 'selected' ? 'selected' : 'all',
      permissions: { ...(data.permissions ?? {}) },
      suspendedAt: data.suspended_at ? new Date(data.suspended_at) : null,
    };
  }

  async listRepositories(installationId: string): Promise<Repository[]> {
    const out: Repository[] = [];
    for (let page = 1; page <= 100; page++) {
      const { data } = await this.inst<{ total_count: number; repositories: Json[] }>(installationId, { path: '/installation/repositories', query: { per_page: 100, page } });
      out.push(...data.repositories.map(toRepository));
      if (data.repositories.length < 100 || out.length >= data.total_count) break;
    }
    return out;
  }

  async getRepository(ref: RepoRef): Promise<Repository> {
    return toRepository((await this.inst(ref.installationId, { path: this.repoPath(ref) })).data);
  }

  async readFile(ref: RepoRef, path: string, at?: string): Promise<RepoFile | null> {
    const res = await this.orNull(this.inst(ref.installationId, { path: this.repoPath(ref, `/contents/${encPath(path)}`), query: { ref: at } }));
    if (!res || Array.isArray(res.data) || res.data.type !== 'file') return null;
    const f = res.data;
    let content = typeof f.content === 'string' && f.encoding === 'base64' ? Buffer.from(f.content, 'base64') : null;
    if (!content || (content.length === 0 && f.size > 0)) {
      // Files over 1 MB come without content: read the blob.
      const blob = await this.inst(ref.installationId, { path: this.repoPath(ref, `/git/blobs/${enc(f.sha)}`) });
      content = Buffer.from(String(blob.data.content ?? ''), 'base64');
    }
    return { path, content, sha: String(f.sha) };
  }

  async listTree(ref: RepoRef, at?: string): Promise<TreeEntry[]> {
    const treeRef = at ?? (await this.getRepository(ref)).defaultBranch;
    const { data } = await this.inst(ref.installationId, { path: this.repoPath(ref, `/git/trees/${enc(treeRef)}`), query: { recursive: 1 } });
    return (data.tree as Json[]).map((e) => {
      if (e.type === 'tree') return { path: e.path, type: 'dir' as const, sha: e.sha };
      if (e.type === 'commit') return { path: e.path, type: 'submodule' as const, sha: e.sha };
      return { path: e.path, type: e.mode === '120000' ? ('symlink' as const) : ('file' as const), sha: e.sha, size: Number(e.size ?? 0) };
    });
  }

  async getBranch(ref: RepoRef, branch: string): Promise<Branch | null> {
    const res = await this.orNull(this.inst(ref.installationId, { path: this.repoPath(ref, `/branches/${enc(branch)}`) }));
    return res ? { name: res.data.name, sha: res.data.commit.sha, protected: Boolean(res.data.protected) } : null;
  }

  async compare(ref: RepoRef, base: string, head: string): Promise<CompareResult> {
    const path = this.repoPath(ref, `/compare/${enc(base)}...${enc(head)}`);
    const { data } = await this.inst(ref.installationId, { path });
    if (data.ahead_by === 0 && data.behind_by === 0 && (data.files?.length ?? 0) === 0) return { diff: '', truncated: false, aheadBy: 0, behindBy: 0 };
    const text = String((await this.inst<string>(ref.installationId, { path, accept: 'application/vnd.github.diff' })).data ?? '');
    const raw = Buffer.from(text);
    const truncated = raw.length > this.options.maxDiffBytes;
    return { diff: truncated ? raw.subarray(0, this.options.maxDiffBytes).toString('utf8') : text, truncated, aheadBy: Number(data.ahead_by ?? 0), behindBy: Number(data.behind_by ?? 0) };
  }

  // ---- pull requests

  async openPullRequest(ref: RepoRef, input: OpenPullRequestInput): Promise<PullRequest> {
    try {
      const { data } = await this.inst(ref.installationId, { method: 'POST', path: this.repoPath(ref, '/pulls'), body: { title: input.title, body: input.body, head: input.head, base: input.base, draft: input.draft ?? false } });
      return toPullRequest(data);
    } catch (err) {
      if (isAdapterError(err, 'unprocessable') && /already exists/i.test(err.message)) throw new AdapterError('already_exists', err.message, { details: err.details });
      throw err;
    }
  }

  async getPullRequest(ref: RepoRef, number: number): Promise<PullRequest | null> {
    const res = await this.orNull(this.inst(ref.installationId, { path: this.repoPath(ref, `/pulls/${number}`) }));
    return res ? toPullRequest(res.data) : null;
  }

  async findPullRequestByBranch(ref: RepoRef, branch: string): Promise<PullRequest | null> {
    const owner = ref.fullName.split('/')[0]!;
    const { data } = await this.inst<Json[]>(ref.installationId, { path: this.repoPath(ref, '/pulls'), query: { head: `${owner}:${branch}`, state: 'all', sort: 'created', direction: 'desc', per_page: 1 } });
    return data[0] ? toPullRequest(data[0]) : null;
  }

  async updatePullRequest(ref: RepoRef, number: number, input: UpdatePullRequestInput): Promise<PullRequest> {
    const patch: Json = {};
    if (input.title !== undefined) patch.title = input.title;
    if (input.body !== undefined) patch.body = input.body;
    if (input.base !== undefined) patch.base = input.base;
    let { data } = await this.inst(ref.installationId, { method: 'PATCH', path: this.repoPath(ref, `/pulls/${number}`), body: patch });
    if (input.draft !== undefined && Boolean(data.draft) !== input.draft) {
      // Draft state changes only through GraphQL.
      const mutation = input.draft ? 'convertPullRequestToDraft' : 'markPullRequestReadyForReview';
      await this.graphql(ref.installationId, `mutation($id: ID!) { ${mutation}(input: { pullRequestId: $id }) { pullRequest { id } } }`, { id: data.node_id });
      data = (await this.inst(ref.installationId, { path: this.repoPath(ref, `/pulls/${number}`) })).data;
    }
    return toPullRequest(data);
  }

  private async graphql(installationId: string | null, query: string, variables: Json): Promise<Json> {
    const base = this.options.baseUrl.replace(/\/+$/, '');
    const url = /\/api\/v3$/.test(base) ? base.replace(/\/api\/v3$/, '/api/graphql') : `${base}/graphql`;
    const { data } = await this.inst(installationId, { method: 'POST', path: url, body: { query, variables } });
    if (Array.isArray(data.errors) && data.errors.length) throw new AdapterError('host_error', `GitHub GraphQL: ${data.errors[0]?.message ?? 'error'}`);
    return data.data ?? {};
  }

  async closePullRequest(ref: RepoRef, number: number): Promise<PullRequest> {
    const current = await this.getPullRequest(ref, number);
    if (!current) throw new AdapterNotFoundError(`pull request #${number} does not exist`);
    if (current.state !== 'open') return current;
    const { data } = await this.inst(ref.installationId, { method: 'PATCH', path: this.repoPath(ref, `/pulls/${number}`), body: { state: 'closed' } });
    return toPullRequest(data);
  }

  async mergePullRequest(ref: RepoRef, number: number, input: MergeInput): Promise<{ sha: string }> {
    const pr = await this.getPullRequest(ref, number);
    if (!pr) throw new AdapterNotFoundError(`pull request #${number} does not exist`);
    if (pr.state !== 'open') throw new AdapterError('not_mergeable', `pull request #${number} is ${pr.state}`);
    if (pr.head.sha !== input.sha) throw new AdapterError('sha_mismatch', `the head of #${number} is ${pr.head.sha}, not the approved ${input.sha}`, { details: { head_sha: pr.head.sha } });
    try {
      const { data } = await this.inst(ref.installationId, {
        method: 'PUT',
        path: this.repoPath(ref, `/pulls/${number}/merge`),
        body: { merge_method: input.method, sha: input.sha, ...(input.commitTitle ? { commit_title: input.commitTitle } : {}), ...(input.commitMessage ? { commit_message: input.commitMessage } : {}) },
      });
      return { sha: String(data.sha) };
    } catch (err) {
      if (isAdapterError(err, 'conflict')) throw new AdapterError('sha_mismatch', err.message, { details: err.details });
      if (isAdapterError(err, 'unprocessable')) throw new AdapterError('not_mergeable', err.message, { details: err.details });
      throw err;
    }
  }

  // ---- labels, comments, issues

  async addLabels(ref: RepoRef, number: number, labels: string[]): Promise<void> {
    await this.inst(ref.installationId, { method: 'POST', path: this.repoPath(ref, `/issues/${number}/labels`), body: { labels } });
  }

  async ensureLabel(ref: RepoRef, label: LabelInput): Promise<void> {
    const body = { color: label.color.replace(/^#/, ''), description: label.description ?? '' };
    try {
      await this.inst(ref.installationId, { method: 'PATCH', path: this.repoPath(ref, `/labels/${enc(label.name)}`), body });
    } catch (err) {
      if (!isAdapterError(err, 'not_found')) throw err;
      await this.inst(ref.installationId, { method: 'POST', path: this.repoPath(ref, '/labels'), body: { name: label.name, ...body } });
    }
  }

  async comment(ref: RepoRef, number: number, body: string): Promise<{ id: string; url: string }> {
    const { data } = await this.inst(ref.installationId, { method: 'POST', path: this.repoPath(ref, `/issues/${number}/comments`), body: { body } });
    return { id: String(data.id), url: String(data.html_url) };
  }

  async closeIssue(ref: RepoRef, number: number, reason: 'completed' | 'not_planned'): Promise<void> {
    await this.inst(ref.installationId, { method: 'PATCH', path: this.repoPath(ref, `/issues/${number}`), body: { state: 'closed', state_reason: reason } });
  }

  // ---- tags, releases, CI, secrets, git access

  private async tagCommit(ref: RepoRef, name: string): Promise<string | null> {
    const res = await this.orNull(this.inst(ref.installationId, { path: this.repoPath(ref, `/git/ref/tags/${enc(name)}`) }));
    if (!res) return null;
    const obj = res.data.object as Json;
    if (obj.type !== 'tag') return String(obj.sha);
    const tag = await this.inst(ref.installationId, { path: this.repoPath(ref, `/git/tags/${enc(obj.sha)}`) });
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
      const { data } = await this.inst(ref.installationId, { method: 'POST', path: this.repoPath(ref, '/git/tags'), body: { tag: input.name, message: input.message, object: input.sha, type: 'commit' } });
      target = String(data.sha);
    }
    await this.inst(ref.installationId, { method: 'POST', path: this.repoPath(ref, '/git/refs'), body: { ref: `refs/tags/${input.name}`, sha: target } });
    return { name: input.name, sha: input.sha };
  }

  async createRelease(ref: RepoRef, input: ReleaseInput): Promise<{ id: string; url: string }> {
    const { data } = await this.inst(ref.installationId, {
      method: 'POST',
      path: this.repoPath(ref, '/releases'),
      body: { tag_name: input.tag, name: input.name, body: input.body, draft: input.draft ?? false, prerelease: input.prerelease ?? false },
    });
    return { id: String(data.id), url: String(data.html_url) };
  }

  async getCommitStatus(ref: RepoRef, sha: string): Promise<CiStatus> {
    const [combined, runs] = await Promise.all([
      this.inst(ref.installationId, { path: this.repoPath(ref, `/commits/${enc(sha)}/status`) }),
      this.inst(ref.installationId, { path: this.repoPath(ref, `/commits/${enc(sha)}/check-runs`), query: { per_page: 100 } }),
    ]);
    const checks: CiStatus['checks'] = [];
    for (const s of (combined.data.statuses ?? []) as Json[]) {
      checks.push({ name: String(s.context), state: statusState(s.state), ...(s.target_url ? { url: String(s.target_url) } : {}) });
    }
    for (const r of (runs.data.check_runs ?? []) as Json[]) {
      checks.push({ name: String(r.name), state: runState(r.status, r.conclusion), ...(r.html_url ? { url: String(r.html_url) } : {}) });
    }
    const states = checks.map((c) => c.state);
    const state: CiState = states.length === 0 ? 'none' : states.includes('failure') ? 'failure' : states.includes('pending') ? 'pending' : 'success';
    return { state, checks };
  }

  async setSecret(ref: RepoRef, name: string, value: string): Promise<void> {
    const { data: key } = await this.inst(ref.installationId, { path: this.repoPath(ref, '/actions/secrets/public-key') });
    const encrypted = await sealForRepository(String(key.key), value);
    await this.inst(ref.installationId, { method: 'PUT', path: this.repoPath(ref, `/actions/secrets/${enc(name)}`), body: { encrypted_value: encrypted, key_id: key.key_id } });
  }

  async createGitAccess(ref: RepoRef, input: { write: boolean }): Promise<GitAccess> {
    if (!ref.installationId) throw new AdapterError('no_installation', 'git access needs the installation of the repository');
    const repo = await this.getRepository(ref);
    const name = ref.fullName.split('/')[1]!;
    // A token of its own, limited to this repository and to reading (or pushing) contents.
    const token = await this.mintInstallationToken(ref.installationId, { repositories: [name], permissions: { contents: input.write ? 'write' : 'read', metadata: 'read' } });
    return { token: token.token, expiresAt: token.expiresAt, cloneUrl: repo.cloneUrl };
  }

  // ---- webhooks and sign-in

  parseWebhook(headers: RawHeaders, rawBody: Buffer): CodeHostEvent {
    return parseHubWebhook(headers, rawBody);
  }

  private oauth(): { clientId: string; clientSecret: string } {
    if (!this.options.oauth) throw new NotSupportedError('sign-in with GitHub needs adapters.options.codehost-github.oauth (the app\'s client id and secret)');
    return this.options.oauth;
  }

  async authorizeUrl(input: AuthorizeInput): Promise<string> {
    const q = new URLSearchParams({
      client_id: this.oauth().clientId, redirect_uri: input.redirectUri, state: input.state,
      code_challenge: input.codeChallenge, code_challenge_method: 'S256', allow_signup: 'false',
    });
    return `${this.webUrl}/login/oauth/authorize?${q}`;
  }

  async exchangeCode(input: ExchangeInput): Promise<CodeHostUser> {
    const { clientId, clientSecret } = this.oauth();
    const { data } = await this.client.request<Json>({
      method: 'POST',
      path: `${this.webUrl}/login/oauth/access_token`,
      accept: 'application/json',
      body: { client_id: clientId, client_secret: clientSecret, code: input.code, redirect_uri: input.redirectUri, code_verifier: input.codeVerifier },
    });
    // GitHub answers 200 with an `error` field for a bad code.
    if (!data || typeof data.access_token !== 'string') throw new AdapterError('invalid_grant', `GitHub refused the code: ${String(data?.error ?? 'no token')}`);
    const token = data.access_token as string;
    const user = (await this.client.request<Json>({ path: '/user', authorization: `Bearer ${token}` })).data;
    let email: string | null = null;
    try {
      const emails = (await this.client.request<Json[]>({ path: '/user/emails', authorization: `Bearer ${token}` })).data;
      email = emails.find((e) => e.primary && e.verified)?.email ?? null;
    } catch {
      email = null; // the app may not have the email permission
    }
    return { login: String(user.login), email, token };
  }
}

function toRepository(r: Json): Repository {
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

function toPullRequest(p: Json): PullRequest {
  return {
    number: Number(p.number),
    url: String(p.html_url),
    title: String(p.title ?? ''),
    body: String(p.body ?? ''),
    state: p.merged || p.merged_at ? 'merged' : p.state === 'open' ? 'open' : 'closed',
    draft: Boolean(p.draft),
    head: { branch: String(p.head?.ref ?? ''), sha: String(p.head?.sha ?? '') },
    base: { branch: String(p.base?.ref ?? '') },
    labels: ((p.labels ?? []) as Json[]).map((l) => String(l.name)),
    mergeSha: p.merged || p.merged_at ? String(p.merge_commit_sha) : null,
  };
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
