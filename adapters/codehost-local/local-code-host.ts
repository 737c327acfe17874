/**
 * codehost-local: a code host inside the service, for one machine and no account anywhere.
 * Repositories are bare git repositories under `<dataDir>/git/<owner>/<name>.git` driven with the
 * git CLI; issues, pull requests, comments, labels, releases, CI statuses and CI secrets live in
 * the `codehost_local_*` tables. Merges run with git at exactly the approved commit. Pages (a pull
 * request with its diff, the install and sign-in pages) are in pages.ts.
 */
import type { ServerRoute } from '@hapi/hapi';
import type { Knex } from 'knex';
import {
  AbstractCodeHost,
  AdapterError,
  type AuthorizeInput,
  type Branch,
  type CiState,
  type CiStatus,
  type CodeHostEvent,
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
import { LocalAccess } from './access.js';
import type { BareRepo, CommitFilesInput } from './bare-repo.js';
import { LocalChecks } from './checks.js';
import { LocalInstallations } from './installations.js';
import { LocalIssues } from './issues.js';
import { ItemRows } from './item-rows.js';
import { localCodeHostSchema, type LocalCodeHostOptions, type LocalHostContext, type SecretSealer } from './options.js';
import { localPageRoutes, type LocalPageAccess } from './pages.js';
import { LocalPullRequests } from './pull-requests.js';
import { LocalRepositories } from './repositories.js';
import { LocalSignIn } from './sign-in.js';

export type { LocalCodeHostOptions, LocalUser } from './options.js';

/** A context whose every property is read through `read` at the time of use. */
function liveContext(read: { [K in keyof LocalHostContext]: () => LocalHostContext[K] }): LocalHostContext {
  return {
    get db() {
      return read.db();
    },
    get options() {
      return read.options();
    },
    get publicUrl() {
      return read.publicUrl();
    },
    get sealer() {
      return read.sealer();
    },
  };
}

/**
 * The CodeHost contract over the local host's parts: repositories.ts (bare repositories and their
 * rows), installations.ts, issues.ts and pull-requests.ts (over item-rows.ts), checks.ts (tags,
 * releases, CI statuses), access.ts (CI secrets, git access) and sign-in.ts. The methods that are
 * no part of the contract are what a host's own pages, a push or a CI system do (development and tests).
 */
export class LocalCodeHost extends AbstractCodeHost<LocalCodeHostOptions> {
  static override identifier = 'codehost-local';
  static override optionsSchema = localCodeHostSchema;

  private readonly repos: LocalRepositories;
  private readonly installations: LocalInstallations;
  private readonly issues: LocalIssues;
  private readonly pulls: LocalPullRequests;
  private readonly checks: LocalChecks;
  private readonly access: LocalAccess;
  private readonly signIn: LocalSignIn;

  constructor(...args: ConstructorParameters<typeof AbstractCodeHost<LocalCodeHostOptions>>) {
    super(...args);
    // The parts read the dependencies when used (the database may be absent until then).
    const ctx = liveContext({
      db: () => this.db,
      options: () => this.options,
      publicUrl: () => this.publicUrl,
      sealer: () => this.sealer,
    });
    this.repos = new LocalRepositories(ctx, () => this.deps.config as { dataDir?: string } | undefined);
    const items = new ItemRows(ctx, this.repos);
    this.installations = new LocalInstallations(ctx, this.repos);
    this.issues = new LocalIssues(ctx, this.repos, items);
    this.checks = new LocalChecks(ctx, this.repos);
    this.pulls = new LocalPullRequests(ctx, this.repos, items, this.checks);
    this.access = new LocalAccess(ctx, this.repos);
    this.signIn = new LocalSignIn(ctx);
  }

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
    return this.repos.root();
  }

  /** Removes the temporary root of a `:memory:` service (called on shutdown). */
  close(): Promise<void> {
    return this.repos.close();
  }

  // ---- repositories on disk (repositories.ts)

  /** The bare repository of a ref; AdapterNotFoundError when absent. */
  repo(ref: RepoRef | string): Promise<BareRepo> {
    return this.repos.repo(ref);
  }

  /**
   * Creates a bare repository with a first commit (development and tests: the local host has no
   * "new repository" page). Idempotent on the name only when `ifMissing`.
   *
   * @example await host.createRepository('acme/web', { isPublic: true, files: { 'README.md': '# Web\n' } })
   */
  createRepository(
    fullName: string,
    opts: { isPublic?: boolean; defaultBranch?: string; files?: Record<string, string>; message?: string } = {},
  ): Promise<Repository> {
    return this.repos.createRepository(fullName, opts);
  }

  /** Commits files to a branch (a push, for development and tests). Returns the commit. */
  commitFiles(fullName: string, input: CommitFilesInput): Promise<string> {
    return this.repos.commitFiles(fullName, input);
  }

  /** Changes visibility or archive state of a repository (what a host's settings page does). */
  setRepositorySettings(fullName: string, patch: { isPublic?: boolean; archived?: boolean }): Promise<void> {
    return this.repos.setRepositorySettings(fullName, patch);
  }

  getRepository(ref: RepoRef): Promise<Repository> {
    return this.repos.getRepository(ref);
  }

  // ---- installations (installations.ts)

  installUrl(state: string): Promise<string> {
    return Promise.resolve(this.installations.installUrl(state));
  }

  /**
   * The built-in installation of an account (created once), and, with `state`, the install page
   * for that state sends the browser to `setupUrl` with the installation id, as a host's setup
   * redirect does.
   */
  builtinInstallation(accountLogin: string, pending?: { state: string; setupUrl: string }): Promise<Installation> {
    return this.installations.builtinInstallation(accountLogin, pending);
  }

  /** Where the install page sends a browser holding `state`, or null for an unknown state. */
  setupRedirect(state: string): Promise<string | null> {
    return this.installations.setupRedirect(state);
  }

  /** Suspends or resumes an installation (what the host's settings page does). */
  setInstallationSuspended(installationId: string, suspended: boolean): Promise<void> {
    return this.installations.setInstallationSuspended(installationId, suspended);
  }

  getInstallation(installationId: string): Promise<Installation> {
    return this.installations.getInstallation(installationId);
  }

  listRepositories(installationId: string): Promise<Repository[]> {
    return this.installations.listRepositories(installationId);
  }

  // ---- contents

  async readFile(ref: RepoRef, path: string, at?: string): Promise<RepoFile | null> {
    const repo = await this.repos.repo(ref);
    const blob = await repo.readFile(at ?? `refs/heads/${await repo.headBranch()}`, path);
    return blob ? { path, content: blob.content, sha: blob.sha } : null;
  }

  async listTree(ref: RepoRef, at?: string): Promise<TreeEntry[]> {
    const repo = await this.repos.repo(ref);
    return repo.listTree(at ?? `refs/heads/${await repo.headBranch()}`);
  }

  async getBranch(ref: RepoRef, branch: string): Promise<Branch | null> {
    const repo = await this.repos.repo(ref);
    const sha = await repo.branchSha(branch);
    return sha ? { name: branch, sha, protected: branch === (await repo.headBranch()) } : null;
  }

  async compare(ref: RepoRef, base: string, head: string): Promise<CompareResult> {
    return (await this.repos.repo(ref)).compare(base, head, this.options.maxDiffBytes);
  }

  // ---- issues, labels, comments (issues.ts) and pull requests (pull-requests.ts)

  /**
   * Opens an issue (development and tests: people open issues on a host's own pages).
   *
   * @example await host.openIssue('acme/web', { title: 'Login fails', body: '…', author: 'ada' })
   */
  openIssue(
    fullName: string,
    input: { title: string; body?: string; author: string; labels?: string[] },
  ): Promise<{ number: number; url: string }> {
    return this.issues.openIssue(fullName, input);
  }

  openPullRequest(ref: RepoRef, input: OpenPullRequestInput): Promise<PullRequest> {
    return this.pulls.openPullRequest(ref, input);
  }

  getPullRequest(ref: RepoRef, number: number): Promise<PullRequest | null> {
    return this.pulls.getPullRequest(ref, number);
  }

  findPullRequestByBranch(ref: RepoRef, branch: string): Promise<PullRequest | null> {
    return this.pulls.findPullRequestByBranch(ref, branch);
  }

  updatePullRequest(ref: RepoRef, number: number, input: UpdatePullRequestInput): Promise<PullRequest> {
    return this.pulls.updatePullRequest(ref, number, input);
  }

  closePullRequest(ref: RepoRef, number: number): Promise<PullRequest> {
    return this.pulls.closePullRequest(ref, number);
  }

  mergePullRequest(ref: RepoRef, number: number, input: MergeInput): Promise<{ sha: string }> {
    return this.pulls.mergePullRequest(ref, number, input);
  }

  addLabels(ref: RepoRef, number: number, labels: string[]): Promise<void> {
    return this.issues.addLabels(ref, number, labels);
  }

  ensureLabel(ref: RepoRef, label: LabelInput): Promise<void> {
    return this.issues.ensureLabel(ref, label);
  }

  /** Labels of a repository (the labels page). */
  listLabels(fullName: string): Promise<LabelInput[]> {
    return this.issues.listLabels(fullName);
  }

  comment(ref: RepoRef, number: number, body: string): Promise<{ id: string; url: string }> {
    return this.issues.comment(ref, number, body);
  }

  /** A comment by someone (development and tests). */
  commentAs(ref: RepoRef, number: number, body: string, author: string): Promise<{ id: string; url: string }> {
    return this.issues.commentAs(ref, number, body, author);
  }

  /** Comments of an issue or pull request, oldest first. */
  listComments(
    fullName: string,
    number: number,
  ): Promise<Array<{ id: string; author: string; body: string; createdAt: Date }>> {
    return this.issues.listComments(fullName, number);
  }

  /** An issue's state (tests and pages). */
  getIssue(
    fullName: string,
    number: number,
  ): Promise<{ number: number; title: string; state: string; stateReason: string | null; labels: string[] } | null> {
    return this.issues.getIssue(fullName, number);
  }

  closeIssue(ref: RepoRef, number: number, reason: 'completed' | 'not_planned'): Promise<void> {
    return this.issues.closeIssue(ref, number, reason);
  }

  // ---- tags, releases, CI (checks.ts), secrets and git access (access.ts)

  createTag(ref: RepoRef, input: TagInput): Promise<{ name: string; sha: string }> {
    return this.checks.createTag(ref, input);
  }

  createRelease(ref: RepoRef, input: ReleaseInput): Promise<{ id: string; url: string }> {
    return this.checks.createRelease(ref, input);
  }

  /** Releases of a repository, newest first. */
  listReleases(fullName: string): Promise<Array<{ id: string; tag: string; name: string; body: string }>> {
    return this.checks.listReleases(fullName);
  }

  /** Records a CI status of a commit (what a CI system reports to a host). */
  setCommitStatus(
    fullName: string,
    sha: string,
    status: { context: string; state: Exclude<CiState, 'none'>; targetUrl?: string },
  ): Promise<void> {
    return this.checks.setCommitStatus(fullName, sha, status);
  }

  getCommitStatus(ref: RepoRef, sha: string): Promise<CiStatus> {
    return this.checks.getCommitStatus(ref, sha);
  }

  setSecret(ref: RepoRef, name: string, value: string): Promise<void> {
    return this.access.setSecret(ref, name, value);
  }

  /** A CI secret in clear, for the local runner (a real host gives it to CI jobs only). Null when unset. */
  readSecret(fullName: string, name: string): Promise<string | null> {
    return this.access.readSecret(fullName, name);
  }

  createGitAccess(ref: RepoRef, _input: { write: boolean }): Promise<GitAccess> {
    return this.access.createGitAccess(ref, _input);
  }

  // ---- webhooks and sign-in (sign-in.ts)

  parseWebhook(headers: RawHeaders, rawBody: Buffer): CodeHostEvent {
    return parseHubWebhook(headers, rawBody);
  }

  authorizeUrl(input: AuthorizeInput): Promise<string> {
    return Promise.resolve(this.signIn.authorizeUrl(input));
  }

  /** Whether the local sign-in page has accounts. */
  get signInAvailable(): boolean {
    return this.options.users.length > 0;
  }

  /**
   * The local sign-in page's check: a configured account's password, then a single-use code for
   * the redirect. Null for a wrong login or password.
   */
  authorizeWithPassword(input: {
    login: string;
    password: string;
    codeChallenge: string;
    redirectUri: string;
  }): Promise<string | null> {
    return this.signIn.authorizeWithPassword(input);
  }

  exchangeCode(input: ExchangeInput): Promise<CodeHostUser> {
    return this.signIn.exchangeCode(input);
  }

  // ---- pages

  /** The host's pages (install, sign-in, repository, issue and pull request views) for the service to mount. */
  pageRoutes(access: LocalPageAccess): ServerRoute[] {
    return localPageRoutes(this, access);
  }

  /** Issues and pull requests of a repository, newest first (the repository page). */
  listItems(
    fullName: string,
  ): Promise<Array<{ number: number; kind: string; title: string; state: string; url: string }>> {
    return this.issues.listItems(fullName);
  }

  /** An issue or pull request with what its page shows. */
  itemDetail(fullName: string, number: number): ReturnType<LocalPullRequests['itemDetail']> {
    return this.pulls.itemDetail(fullName, number);
  }
}
