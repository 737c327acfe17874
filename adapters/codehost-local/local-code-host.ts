/**
 * codehost-local: a code host inside the service, for one machine and no account anywhere.
 * Repositories are bare git repositories under `<dataDir>/git/<owner>/<name>.git` driven with the
 * git CLI; issues, pull requests, comments, labels, releases, CI statuses and CI secrets live in
 * the `codehost_local_*` tables. Merges run with git at exactly the approved commit. Pages (a pull
 * request with its diff, the install and sign-in pages) are in pages.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Joi from 'joi';
import type { Knex } from 'knex';
import {
  AbstractCodeHost,
  AdapterError,
  AdapterNotFoundError,
  codeHostOptionKeys,
  pkceChallenge,
  safeEqual,
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
import { newId } from '../../core/data/ids.js';
import { parseHubWebhook } from '../codehost-common/hub-webhook.js';
import { BareRepo, type CommitFilesInput } from './bare-repo.js';
import { localPageRoutes, type LocalPageAccess } from './pages.js';
import type { ServerRoute } from '@hapi/hapi';

export interface LocalUser {
  login: string;
  email?: string | null;
  password: string;
}

export interface LocalCodeHostOptions extends CodeHostOptions {
  /** Where bare repositories live; default `<dataDir>/git` (a temporary directory for `:memory:`). */
  root?: string;
  /** Base of the host's pages and links; default server.publicBaseUrl. */
  publicUrl?: string;
  /** Accounts of the local sign-in page (development only; empty: sign-in through the local host is off). */
  users: LocalUser[];
  /** Diffs longer than this are cut (CompareResult.truncated). */
  maxDiffBytes: number;
}

interface SecretSealer {
  encrypt(plain: string, context?: string): string;
  decrypt(box: string, context?: string): string;
}

interface ItemRow {
  repo: string;
  number: number;
  kind: 'issue' | 'pull_request';
  title: string;
  body: string;
  author: string;
  state: 'open' | 'closed' | 'merged';
  state_reason: string | null;
  draft: boolean;
  head_branch: string | null;
  head_sha: string | null;
  base_branch: string | null;
  merge_sha: string | null;
  labels: string[] | string;
  created_at: Date;
  updated_at: Date;
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
const CODE_TTL_MS = 10 * 60_000;
const hash = (s: string) => createHash('sha256').update(s).digest('hex');
const labelsOf = (row: { labels: string[] | string }): string[] => (typeof row.labels === 'string' ? (JSON.parse(row.labels) as string[]) : row.labels);

export class LocalCodeHost extends AbstractCodeHost<LocalCodeHostOptions> {
  static override identifier = 'codehost-local';
  static override optionsSchema = Joi.object<LocalCodeHostOptions>({
    ...codeHostOptionKeys,
    root: Joi.string(),
    publicUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
    users: Joi.array()
      .items(Joi.object({ login: Joi.string().pattern(NAME).required(), email: Joi.string().email({ tlds: { allow: false } }).allow(null), password: Joi.string().min(8).required() }))
      .default([]),
    maxDiffBytes: Joi.number().integer().min(1024).default(1024 * 1024),
  });

  private rootPromise: Promise<string> | null = null;
  private tempRoot: string | null = null;

  private get db(): Knex {
    const db = this.deps.db as Knex | undefined;
    if (!db) throw new AdapterError('not_configured', 'codehost-local needs the database (deps.db)');
    return db;
  }

  private get sealer(): SecretSealer | null {
    return (this.deps.secretBox as SecretSealer | undefined) ?? null;
  }

  /** Base URL of pages and links. */
  get publicUrl(): string {
    const cfg = this.deps.config as { server?: { publicBaseUrl?: string } } | undefined;
    return (this.options.publicUrl ?? cfg?.server?.publicBaseUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
  }

  /** Directory holding `<owner>/<name>.git`. */
  root(): Promise<string> {
    return (this.rootPromise ??= (async () => {
      if (this.options.root) return resolve(this.options.root);
      const dataDir = (this.deps.config as { dataDir?: string } | undefined)?.dataDir ?? ':memory:';
      if (dataDir === ':memory:') return (this.tempRoot = await mkdtemp(join(tmpdir(), 'patchwell-git-')));
      return resolve(dataDir, 'git');
    })());
  }

  /** Removes the temporary root of a `:memory:` service (called on shutdown). */
  async close(): Promise<void> {
    if (this.tempRoot) await rm(this.tempRoot, { recursive: true, force: true });
  }

  // ---- repositories on disk

  private split(fullName: string): [string, string] {
    const [owner, name, ...rest] = fullName.split('/');
    if (!owner || !name || rest.length || !NAME.test(owner) || !NAME.test(name) || owner.startsWith('.') || name.startsWith('.')) {
      throw new AdapterNotFoundError(`repository ${fullName} does not exist`);
    }
    return [owner, name.replace(/\.git$/, '')];
  }

  private async dirOf(fullName: string): Promise<string> {
    const [owner, name] = this.split(fullName);
    return join(await this.root(), owner, `${name}.git`);
  }

  /** The bare repository of a ref; AdapterNotFoundError when absent. */
  async repo(ref: RepoRef | string): Promise<BareRepo> {
    const fullName = typeof ref === 'string' ? ref : ref.fullName;
    const dir = await this.dirOf(fullName);
    if (!existsSync(join(dir, 'HEAD'))) throw new AdapterNotFoundError(`repository ${fullName} does not exist`);
    return new BareRepo(dir);
  }

  private canonical(fullName: string): string {
    const [owner, name] = this.split(fullName);
    return `${owner}/${name}`;
  }

  /**
   * Creates a bare repository with a first commit (development and tests: the local host has no
   * "new repository" page). Idempotent on the name only when `ifMissing`.
   *
   * @example await host.createRepository('acme/web', { isPublic: true, files: { 'README.md': '# Web\n' } })
   */
  async createRepository(fullName: string, opts: { isPublic?: boolean; defaultBranch?: string; files?: Record<string, string>; message?: string } = {}): Promise<Repository> {
    const dir = await this.dirOf(fullName);
    const name = this.canonical(fullName);
    if (existsSync(join(dir, 'HEAD'))) throw new AdapterError('already_exists', `repository ${name} exists`);
    await mkdir(join(dir, '..'), { recursive: true });
    const repo = await BareRepo.init(dir, opts.defaultBranch ?? 'main');
    await this.db('codehost_local_repositories').insert({ id: newId('lrp'), full_name: name, is_public: opts.isPublic ?? false }).onConflict('full_name').merge(['is_public']);
    const files = opts.files ?? { 'README.md': `# ${name}\n` };
    await repo.commitFiles({ branch: opts.defaultBranch ?? 'main', files, message: opts.message ?? 'Initial commit' });
    return this.getRepository({ installationId: null, fullName: name });
  }

  /** Commits files to a branch (a push, for development and tests). Returns the commit. */
  async commitFiles(fullName: string, input: CommitFilesInput): Promise<string> {
    return (await this.repo(fullName)).commitFiles(input);
  }

  /** Changes visibility or archive state of a repository (what a host's settings page does). */
  async setRepositorySettings(fullName: string, patch: { isPublic?: boolean; archived?: boolean }): Promise<void> {
    await this.getRepository({ installationId: null, fullName });
    const row: Record<string, unknown> = {};
    if (patch.isPublic !== undefined) row.is_public = patch.isPublic;
    if (patch.archived !== undefined) row.archived = patch.archived;
    if (Object.keys(row).length) await this.db('codehost_local_repositories').where({ full_name: this.canonical(fullName) }).update(row);
  }

  private async repoRow(fullName: string): Promise<{ id: string; full_name: string; is_public: boolean; archived: boolean }> {
    const name = this.canonical(fullName);
    const found = await this.db('codehost_local_repositories').where({ full_name: name }).first();
    if (found) return found;
    await this.db('codehost_local_repositories').insert({ id: newId('lrp'), full_name: name }).onConflict('full_name').ignore();
    return this.db('codehost_local_repositories').where({ full_name: name }).first();
  }

  private repoUrl(fullName: string): string {
    return `${this.publicUrl}/codehost/local/${fullName}`;
  }

  // ---- installations

  async installUrl(state: string): Promise<string> {
    return `${this.publicUrl}/codehost/local/install?state=${encodeURIComponent(state)}`;
  }

  /**
   * The built-in installation of an account (created once), and, with `state`, the install page
   * for that state sends the browser to `setupUrl` with the installation id, as a host's setup
   * redirect does.
   */
  async builtinInstallation(accountLogin: string, pending?: { state: string; setupUrl: string }): Promise<Installation> {
    if (!NAME.test(accountLogin)) throw new AdapterError('invalid_account', `"${accountLogin}" is not a valid account name`);
    await this.db('codehost_local_installations').insert({ id: newId('lin'), account_login: accountLogin }).onConflict('account_login').ignore();
    if (pending) {
      await this.db('codehost_local_installations').where({ account_login: accountLogin }).update({ pending_state_hash: hash(pending.state), pending_setup_url: pending.setupUrl });
    }
    await mkdir(join(await this.root(), accountLogin), { recursive: true });
    const row = await this.db('codehost_local_installations').where({ account_login: accountLogin }).first();
    return this.installationOf(row);
  }

  /** Where the install page sends a browser holding `state`, or null for an unknown state. */
  async setupRedirect(state: string): Promise<string | null> {
    const row = await this.db('codehost_local_installations').where({ pending_state_hash: hash(state) }).first();
    if (!row?.pending_setup_url) return null;
    const u = new URL(row.pending_setup_url as string);
    u.searchParams.set('installation_id', row.id as string);
    u.searchParams.set('setup_action', 'install');
    u.searchParams.set('state', state);
    return u.toString();
  }

  /** Suspends or resumes an installation (what the host's settings page does). */
  async setInstallationSuspended(installationId: string, suspended: boolean): Promise<void> {
    await this.getInstallation(installationId);
    await this.db('codehost_local_installations').where({ id: installationId }).update({ suspended_at: suspended ? new Date() : null });
  }

  private installationOf(row: { id: string; account_login: string; account_type: string; suspended_at: Date | null }): Installation {
    return {
      id: row.id,
      account: { login: row.account_login, type: row.account_type === 'user' ? 'user' : 'organization' },
      repositorySelection: 'all',
      permissions: { contents: 'write', issues: 'write', pull_requests: 'write', metadata: 'read', secrets: 'write', statuses: 'read' },
      suspendedAt: row.suspended_at ? new Date(row.suspended_at) : null,
    };
  }

  async getInstallation(installationId: string): Promise<Installation> {
    const row = await this.db('codehost_local_installations').where({ id: installationId }).first();
    if (!row) throw new AdapterNotFoundError(`installation ${installationId} does not exist`);
    return this.installationOf(row);
  }

  async listRepositories(installationId: string): Promise<Repository[]> {
    const inst = await this.getInstallation(installationId);
    const dir = join(await this.root(), inst.account.login);
    const names = existsSync(dir) ? await readdir(dir) : [];
    const repos: Repository[] = [];
    for (const n of names.sort()) {
      if (!n.endsWith('.git') || !(await stat(join(dir, n))).isDirectory()) continue;
      try {
        repos.push(await this.getRepository({ installationId, fullName: `${inst.account.login}/${n.slice(0, -4)}` }));
      } catch {
        // not a repository: skipped
      }
    }
    return repos;
  }

  async getRepository(ref: RepoRef): Promise<Repository> {
    const repo = await this.repo(ref);
    const name = this.canonical(ref.fullName);
    const row = await this.repoRow(name);
    return {
      id: row.id,
      fullName: name,
      htmlUrl: this.repoUrl(name),
      cloneUrl: repo.dir,
      defaultBranch: await repo.headBranch(),
      isPublic: row.is_public,
      archived: row.archived,
    };
  }

  // ---- contents

  async readFile(ref: RepoRef, path: string, at?: string): Promise<RepoFile | null> {
    const repo = await this.repo(ref);
    const blob = await repo.readFile(at ?? `refs/heads/${await repo.headBranch()}`, path);
    return blob ? { path, content: blob.content, sha: blob.sha } : null;
  }

  async listTree(ref: RepoRef, at?: string): Promise<TreeEntry[]> {
    const repo = await this.repo(ref);
    return repo.listTree(at ?? `refs/heads/${await repo.headBranch()}`);
  }

  async getBranch(ref: RepoRef, branch: string): Promise<Branch | null> {
    const repo = await this.repo(ref);
    const sha = await repo.branchSha(branch);
    return sha ? { name: branch, sha, protected: branch === (await repo.headBranch()) } : null;
  }

  async compare(ref: RepoRef, base: string, head: string): Promise<CompareResult> {
    return (await this.repo(ref)).compare(base, head, this.options.maxDiffBytes);
  }

  // ---- issues and pull requests

  private itemUrl(repo: string, row: { kind: string; number: number }): string {
    return `${this.repoUrl(repo)}/${row.kind === 'pull_request' ? 'pull' : 'issues'}/${row.number}`;
  }

  private async item(repo: string, number: number): Promise<ItemRow | undefined> {
    return this.db('codehost_local_items').where({ repo, number }).first();
  }

  /** Next issue/pull request number; the repository row must exist (repoRow) before the transaction. */
  private async nextNumber(trx: Knex, repo: string): Promise<number> {
    const [row] = await trx('codehost_local_repositories').where({ full_name: repo }).increment('last_number', 1).returning('last_number');
    return Number((row as { last_number: number }).last_number);
  }

  private async toPullRequest(repoName: string, row: ItemRow): Promise<PullRequest> {
    let headSha = row.head_sha ?? '';
    if (row.state === 'open' && row.head_branch) {
      const live = await (await this.repo(repoName)).branchSha(row.head_branch);
      if (live && live !== headSha) {
        headSha = live;
        await this.db('codehost_local_items').where({ repo: repoName, number: row.number }).update({ head_sha: live, updated_at: new Date() });
      }
    }
    return {
      number: row.number,
      url: this.itemUrl(repoName, row),
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

  /**
   * Opens an issue (development and tests: people open issues on a host's own pages).
   *
   * @example await host.openIssue('acme/web', { title: 'Login fails', body: '…', author: 'ada' })
   */
  async openIssue(fullName: string, input: { title: string; body?: string; author: string; labels?: string[] }): Promise<{ number: number; url: string }> {
    const repo = this.canonical(fullName);
    await this.repo(repo);
    await this.repoRow(repo);
    return this.db.transaction(async (trx) => {
      const number = await this.nextNumber(trx, repo);
      await trx('codehost_local_items').insert({ repo, number, kind: 'issue', title: input.title, body: input.body ?? '', author: input.author, state: 'open', labels: JSON.stringify(input.labels ?? []) });
      return { number, url: this.itemUrl(repo, { kind: 'issue', number }) };
    });
  }

  async openPullRequest(ref: RepoRef, input: OpenPullRequestInput): Promise<PullRequest> {
    const repoName = this.canonical(ref.fullName);
    const repo = await this.repo(repoName);
    const headSha = await repo.branchSha(input.head);
    if (!headSha) throw new AdapterError('invalid_head', `branch ${input.head} does not exist`);
    if (!(await repo.branchSha(input.base))) throw new AdapterError('invalid_base', `branch ${input.base} does not exist`);
    const existing = await this.db('codehost_local_items').where({ repo: repoName, kind: 'pull_request', head_branch: input.head, base_branch: input.base, state: 'open' }).first();
    if (existing) throw new AdapterError('already_exists', `pull request #${existing.number} already exists for ${input.head}`, { details: { number: existing.number } });
    await this.repoRow(repoName);
    const number = await this.db.transaction(async (trx) => {
      const n = await this.nextNumber(trx, repoName);
      await trx('codehost_local_items').insert({
        repo: repoName, number: n, kind: 'pull_request', title: input.title, body: input.body, author: 'patchwell[bot]', state: 'open',
        draft: input.draft ?? false, head_branch: input.head, head_sha: headSha, base_branch: input.base, labels: '[]',
      });
      return n;
    });
    return (await this.getPullRequest(ref, number))!;
  }

  async getPullRequest(ref: RepoRef, number: number): Promise<PullRequest | null> {
    const repoName = this.canonical(ref.fullName);
    await this.repo(repoName);
    const row = await this.item(repoName, number);
    return row && row.kind === 'pull_request' ? this.toPullRequest(repoName, row) : null;
  }

  async findPullRequestByBranch(ref: RepoRef, branch: string): Promise<PullRequest | null> {
    const repoName = this.canonical(ref.fullName);
    await this.repo(repoName);
    const row = await this.db('codehost_local_items').where({ repo: repoName, kind: 'pull_request', head_branch: branch }).orderBy('number', 'desc').first();
    return row ? this.toPullRequest(repoName, row) : null;
  }

  private async mustPull(ref: RepoRef, number: number): Promise<ItemRow> {
    const repoName = this.canonical(ref.fullName);
    await this.repo(repoName);
    const row = await this.item(repoName, number);
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
      if (!(await (await this.repo(ref)).branchSha(input.base))) throw new AdapterError('invalid_base', `branch ${input.base} does not exist`);
      patch.base_branch = input.base;
    }
    await this.db('codehost_local_items').where({ repo: row.repo, number }).update(patch);
    return (await this.getPullRequest(ref, number))!;
  }

  async closePullRequest(ref: RepoRef, number: number): Promise<PullRequest> {
    const row = await this.mustPull(ref, number);
    if (row.state === 'open') {
      const pr = await this.toPullRequest(row.repo, row);
      await this.db('codehost_local_items').where({ repo: row.repo, number }).update({ state: 'closed', head_sha: pr.head.sha, closed_at: new Date(), updated_at: new Date() });
    }
    return (await this.getPullRequest(ref, number))!;
  }

  async mergePullRequest(ref: RepoRef, number: number, input: MergeInput): Promise<{ sha: string }> {
    const row = await this.mustPull(ref, number);
    const pr = await this.toPullRequest(row.repo, row);
    if (pr.state !== 'open') throw new AdapterError('not_mergeable', `pull request #${number} is ${pr.state}`);
    if (pr.head.sha !== input.sha) throw new AdapterError('sha_mismatch', `the head of #${number} is ${pr.head.sha}, not the approved ${input.sha}`, { details: { head_sha: pr.head.sha } });
    if (pr.draft) throw new AdapterError('not_mergeable', `pull request #${number} is a draft`);
    const ci = await this.getCommitStatus(ref, input.sha);
    if (ci.state === 'failure') throw new AdapterError('not_mergeable', `checks fail on ${input.sha}`, { details: { checks: ci.checks } });
    const repo = await this.repo(ref);
    const sha = await repo.merge(input.method, pr.base.branch, input.sha, {
      title: input.commitTitle ?? (input.method === 'merge' ? `Merge pull request #${number} from ${pr.head.branch}` : `${pr.title} (#${number})`),
      body: input.commitMessage ?? '',
    });
    const now = new Date();
    await this.db('codehost_local_items').where({ repo: row.repo, number }).update({ state: 'merged', merge_sha: sha, merge_method: input.method, head_sha: input.sha, merged_at: now, closed_at: now, updated_at: now });
    return { sha };
  }

  private async mustItem(ref: RepoRef, number: number): Promise<ItemRow> {
    const repoName = this.canonical(ref.fullName);
    await this.repo(repoName);
    const row = await this.item(repoName, number);
    if (!row) throw new AdapterNotFoundError(`issue or pull request #${number} does not exist`);
    return row;
  }

  async addLabels(ref: RepoRef, number: number, labels: string[]): Promise<void> {
    const row = await this.mustItem(ref, number);
    for (const name of labels) {
      await this.db('codehost_local_labels').insert({ repo: row.repo, name, color: 'ededed' }).onConflict(['repo', 'name']).ignore();
    }
    const merged = [...new Set([...labelsOf(row), ...labels])];
    await this.db('codehost_local_items').where({ repo: row.repo, number }).update({ labels: JSON.stringify(merged), updated_at: new Date() });
  }

  async ensureLabel(ref: RepoRef, label: LabelInput): Promise<void> {
    const repo = this.canonical(ref.fullName);
    await this.repo(repo);
    await this.db('codehost_local_labels')
      .insert({ repo, name: label.name, color: label.color.toLowerCase(), description: label.description ?? null })
      .onConflict(['repo', 'name'])
      .merge(['color', 'description']);
  }

  /** Labels of a repository (the labels page). */
  async listLabels(fullName: string): Promise<LabelInput[]> {
    const rows = await this.db('codehost_local_labels').where({ repo: this.canonical(fullName) }).orderBy('name');
    return rows.map((r: { name: string; color: string; description: string | null }) => ({ name: r.name, color: r.color, ...(r.description ? { description: r.description } : {}) }));
  }

  async comment(ref: RepoRef, number: number, body: string): Promise<{ id: string; url: string }> {
    return this.commentAs(ref, number, body, 'patchwell[bot]');
  }

  /** A comment by someone (development and tests). */
  async commentAs(ref: RepoRef, number: number, body: string, author: string): Promise<{ id: string; url: string }> {
    const row = await this.mustItem(ref, number);
    const id = newId('lcm');
    await this.db('codehost_local_comments').insert({ id, repo: row.repo, number, author, body });
    return { id, url: `${this.itemUrl(row.repo, row)}#comment-${id}` };
  }

  /** Comments of an issue or pull request, oldest first. */
  async listComments(fullName: string, number: number): Promise<Array<{ id: string; author: string; body: string; createdAt: Date }>> {
    const rows = await this.db('codehost_local_comments').where({ repo: this.canonical(fullName), number }).orderBy('created_at').orderBy('id');
    return rows.map((r: { id: string; author: string; body: string; created_at: Date }) => ({ id: r.id, author: r.author, body: r.body, createdAt: new Date(r.created_at) }));
  }

  /** An issue's state (tests and pages). */
  async getIssue(fullName: string, number: number): Promise<{ number: number; title: string; state: string; stateReason: string | null; labels: string[] } | null> {
    const row = await this.item(this.canonical(fullName), number);
    return row ? { number, title: row.title, state: row.state, stateReason: row.state_reason, labels: labelsOf(row) } : null;
  }

  async closeIssue(ref: RepoRef, number: number, reason: 'completed' | 'not_planned'): Promise<void> {
    const row = await this.mustItem(ref, number);
    if (row.state !== 'open') return;
    await this.db('codehost_local_items').where({ repo: row.repo, number }).update({ state: 'closed', state_reason: reason, closed_at: new Date(), updated_at: new Date() });
  }

  // ---- tags, releases, CI

  async createTag(ref: RepoRef, input: TagInput): Promise<{ name: string; sha: string }> {
    const repo = await this.repo(ref);
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
    const repoName = this.canonical(ref.fullName);
    const repo = await this.repo(repoName);
    if (!(await repo.tagTarget(input.tag))) {
      const head = await repo.mustResolve(`refs/heads/${await repo.headBranch()}`);
      await repo.createTag(input.tag, head);
    }
    const url = `${this.repoUrl(repoName)}/releases/tag/${encodeURIComponent(input.tag)}`;
    const found = await this.db('codehost_local_releases').where({ repo: repoName, tag: input.tag }).first();
    if (found) return { id: found.id as string, url };
    const id = newId('lrl');
    await this.db('codehost_local_releases').insert({ id, repo: repoName, tag: input.tag, name: input.name, body: input.body, draft: input.draft ?? false, prerelease: input.prerelease ?? false });
    return { id, url };
  }

  /** Releases of a repository, newest first. */
  async listReleases(fullName: string): Promise<Array<{ id: string; tag: string; name: string; body: string }>> {
    return this.db('codehost_local_releases').where({ repo: this.canonical(fullName) }).orderBy('created_at', 'desc').select('id', 'tag', 'name', 'body');
  }

  /** Records a CI status of a commit (what a CI system reports to a host). */
  async setCommitStatus(fullName: string, sha: string, status: { context: string; state: Exclude<CiState, 'none'>; targetUrl?: string }): Promise<void> {
    const repo = this.canonical(fullName);
    await (await this.repo(repo)).mustResolve(sha, 'commit');
    await this.db('codehost_local_statuses')
      .insert({ repo, sha, context: status.context, state: status.state, target_url: status.targetUrl ?? null, updated_at: new Date() })
      .onConflict(['repo', 'sha', 'context'])
      .merge(['state', 'target_url', 'updated_at']);
  }

  async getCommitStatus(ref: RepoRef, sha: string): Promise<CiStatus> {
    const repo = this.canonical(ref.fullName);
    await this.repo(repo);
    const rows = await this.db('codehost_local_statuses').where({ repo, sha }).orderBy('context');
    const checks = rows.map((r: { context: string; state: CiState; target_url: string | null }) => ({ name: r.context, state: r.state, ...(r.target_url ? { url: r.target_url } : {}) }));
    return { state: combine(checks.map((c: { state: CiState }) => c.state)), checks };
  }

  async setSecret(ref: RepoRef, name: string, value: string): Promise<void> {
    const repo = this.canonical(ref.fullName);
    await this.repo(repo);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new AdapterError('invalid_secret_name', `"${name}" is not a valid secret name`);
    const sealer = this.sealer;
    if (!sealer) throw new AdapterError('not_configured', 'codehost-local needs the secret box to store secrets');
    const sealed = sealer.encrypt(value, `codehost-local:secret:${repo}:${name}`);
    await this.db('codehost_local_secrets').insert({ repo, name, value_sealed: sealed, updated_at: new Date() }).onConflict(['repo', 'name']).merge(['value_sealed', 'updated_at']);
  }

  /** A CI secret in clear, for the local runner (a real host gives it to CI jobs only). Null when unset. */
  async readSecret(fullName: string, name: string): Promise<string | null> {
    const repo = this.canonical(fullName);
    const row = await this.db('codehost_local_secrets').where({ repo, name }).first();
    return row && this.sealer ? this.sealer.decrypt(row.value_sealed as string, `codehost-local:secret:${repo}:${name}`) : null;
  }

  async createGitAccess(ref: RepoRef, _input: { write: boolean }): Promise<GitAccess> {
    const repo = await this.repo(ref);
    // The local host serves repositories from disk; the token exists for the shape only.
    return { token: `lgt_${randomBytes(24).toString('base64url')}`, expiresAt: new Date(Date.now() + 60 * 60_000), cloneUrl: repo.dir };
  }

  // ---- webhooks and sign-in

  parseWebhook(headers: RawHeaders, rawBody: Buffer): CodeHostEvent {
    return parseHubWebhook(headers, rawBody);
  }

  async authorizeUrl(input: AuthorizeInput): Promise<string> {
    const q = new URLSearchParams({ client_id: 'patchwell', redirect_uri: input.redirectUri, state: input.state, code_challenge: input.codeChallenge, code_challenge_method: 'S256' });
    return `${this.publicUrl}/codehost/local/login/oauth/authorize?${q}`;
  }

  /** Whether the local sign-in page has accounts. */
  get signInAvailable(): boolean {
    return this.options.users.length > 0;
  }

  /**
   * The local sign-in page's check: a configured account's password, then a single-use code for
   * the redirect. Null for a wrong login or password.
   */
  async authorizeWithPassword(input: { login: string; password: string; codeChallenge: string; redirectUri: string }): Promise<string | null> {
    let match: LocalUser | null = null;
    for (const u of this.options.users) {
      const sameLogin = u.login.toLowerCase() === input.login.toLowerCase();
      const samePassword = safeEqual(hash(u.password), hash(input.password));
      if (sameLogin && samePassword) match = u;
    }
    if (!match) return null;
    const code = randomBytes(24).toString('base64url');
    await this.db('codehost_local_oauth_codes').insert({
      code_hash: hash(code), login: match.login, email: match.email ?? null, code_challenge: input.codeChallenge,
      redirect_uri: input.redirectUri, expires_at: new Date(Date.now() + CODE_TTL_MS),
    });
    return code;
  }

  async exchangeCode(input: ExchangeInput): Promise<CodeHostUser> {
    const used = await this.db('codehost_local_oauth_codes')
      .where({ code_hash: hash(input.code) })
      .whereNull('used_at')
      .where('expires_at', '>', new Date())
      .update({ used_at: new Date() })
      .returning(['login', 'email', 'code_challenge', 'redirect_uri']);
    const row = used[0] as { login: string; email: string | null; code_challenge: string; redirect_uri: string } | undefined;
    if (!row) throw new AdapterError('invalid_grant', 'the code is unknown, used or expired');
    if (row.redirect_uri !== input.redirectUri || !safeEqual(row.code_challenge, pkceChallenge(input.codeVerifier))) {
      throw new AdapterError('invalid_grant', 'the code verifier or redirect URI does not match');
    }
    return { login: row.login, email: row.email, token: `lut_${randomBytes(24).toString('base64url')}` };
  }

  // ---- pages

  /** The host's pages (install, sign-in, repository, issue and pull request views) for the service to mount. */
  pageRoutes(access: LocalPageAccess): ServerRoute[] {
    return localPageRoutes(this, access);
  }

  /** Issues and pull requests of a repository, newest first (the repository page). */
  async listItems(fullName: string): Promise<Array<{ number: number; kind: string; title: string; state: string; url: string }>> {
    const repo = this.canonical(fullName);
    const rows = await this.db('codehost_local_items').where({ repo }).orderBy('number', 'desc').limit(200);
    return rows.map((r: ItemRow) => ({ number: r.number, kind: r.kind, title: r.title, state: r.state, url: this.itemUrl(repo, r) }));
  }

  /** An issue or pull request with what its page shows. */
  async itemDetail(fullName: string, number: number): Promise<{ item: ItemRow; pull: PullRequest | null; diff: CompareResult | null; commits: Array<{ sha: string; subject: string; author: string }> } | null> {
    const repo = this.canonical(fullName);
    const row = await this.item(repo, number);
    if (!row) return null;
    if (row.kind !== 'pull_request') return { item: row, pull: null, diff: null, commits: [] };
    const pull = await this.toPullRequest(repo, row);
    const git = await this.repo(repo);
    const base = row.state === 'merged' && row.merge_sha ? `${row.merge_sha}^1` : `refs/heads/${pull.base.branch}`;
    let diff: CompareResult | null = null;
    let commits: Array<{ sha: string; subject: string; author: string }> = [];
    try {
      diff = await git.compare(base, pull.head.sha, this.options.maxDiffBytes);
      commits = await git.log(base, pull.head.sha);
    } catch {
      diff = null;
    }
    return { item: row, pull, diff, commits };
  }
}

function combine(states: CiState[]): CiState {
  if (states.length === 0) return 'none';
  if (states.includes('failure')) return 'failure';
  if (states.includes('pending')) return 'pending';
  return 'success';
}
