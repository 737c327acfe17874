import Joi from 'joi';
import { AbstractAdapter, verifySha256Header, type RawHeaders } from './adapter.js';
import type {
  CiStatus,
  LabelInput,
  MergeInput,
  OpenPullRequestInput,
  PullRequest,
  ReleaseInput,
  TagInput,
  UpdatePullRequestInput,
} from './code-host-changes.js';
import type { CodeHostEvent } from './code-host-events.js';
import type {
  Branch,
  CompareResult,
  GitAccess,
  Installation,
  RepoFile,
  RepoRef,
  Repository,
  TreeEntry,
} from './code-host-repositories.js';
import type { AuthorizeInput, CodeHostUser, ExchangeInput } from './code-host-sign-in.js';

// The contract's types, by concept; partners keep importing them from here or from index.ts.
export * from './code-host-repositories.js';
export * from './code-host-changes.js';
export * from './code-host-events.js';
export * from './code-host-sign-in.js';

/**
 * Installations, repositories, branches, pull requests, merges, tags, releases, CI status,
 * repository secrets, webhooks and user sign-in of a code host. One is active (`adapters.codeHost`).
 */
export interface CodeHost {
  /**
   * Name of the adapter in config and container keys.
   *
   * @example host.identifier // 'codehost-github'
   */
  readonly identifier: string;

  /**
   * Where a user installs the app; `state` comes back on the setup redirect.
   *
   * @example await host.installUrl('st_9f…') // 'https://github.com/apps/patchwell/installations/new?state=st_9f…'
   */
  installUrl(state: string): Promise<string>;

  /**
   * Reads one installation (account, permissions, suspension). AdapterNotFoundError when gone.
   *
   * @example (await host.getInstallation('4242')).account.login // 'acme'
   */
  getInstallation(installationId: string): Promise<Installation>;

  /**
   * Repositories an installation reaches.
   *
   * @example (await host.listRepositories('4242')).map((r) => r.fullName) // ['acme/web']
   */
  listRepositories(installationId: string): Promise<Repository[]>;

  /**
   * Reads one repository (name, default branch, visibility). AdapterNotFoundError when gone.
   *
   * @example (await host.getRepository({ installationId: '4242', fullName: 'acme/web' })).defaultBranch // 'main'
   */
  getRepository(repo: RepoRef): Promise<Repository>;

  /**
   * Reads a file at a ref (default: the default branch); null when it does not exist.
   *
   * @example (await host.readFile(repo, 'CONTRIBUTING.md'))?.content.toString()
   */
  readFile(repo: RepoRef, path: string, ref?: string): Promise<RepoFile | null>;

  /**
   * Lists the tree at a ref, recursively (default: the default branch).
   *
   * @example (await host.listTree(repo)).filter((e) => e.type === 'file').length
   */
  listTree(repo: RepoRef, ref?: string): Promise<TreeEntry[]>;

  /**
   * Reads a branch; null when it does not exist.
   *
   * @example (await host.getBranch(repo, 'main'))?.sha // 'a1b2…'
   */
  getBranch(repo: RepoRef, branch: string): Promise<Branch | null>;

  /**
   * Diff of base...head (branches or commits): the FixDiff text.
   *
   * @example (await host.compare(repo, 'main', 'patchwell/tkt_1-1')).diff
   */
  compare(repo: RepoRef, base: string, head: string): Promise<CompareResult>;

  /**
   * Opens a pull request.
   *
   * @example await host.openPullRequest(repo, { head: 'patchwell/tkt_1-1', base: 'main', title: 'Fix login', body })
   */
  openPullRequest(repo: RepoRef, input: OpenPullRequestInput): Promise<PullRequest>;

  /**
   * Reads a pull request by number; null when it does not exist.
   *
   * @example (await host.getPullRequest(repo, 12))?.head.sha
   */
  getPullRequest(repo: RepoRef, number: number): Promise<PullRequest | null>;

  /**
   * Finds the newest pull request whose head is `branch` (any state); null when none.
   *
   * @example await host.findPullRequestByBranch(repo, 'patchwell/tkt_1-1')
   */
  findPullRequestByBranch(repo: RepoRef, branch: string): Promise<PullRequest | null>;

  /**
   * Changes title, body, base or draft state.
   *
   * @example await host.updatePullRequest(repo, 12, { title: 'Fix login (v2)' })
   */
  updatePullRequest(repo: RepoRef, number: number, input: UpdatePullRequestInput): Promise<PullRequest>;

  /**
   * Closes a pull request without merging; succeeds when it is already closed.
   *
   * @example await host.closePullRequest(repo, 12)
   */
  closePullRequest(repo: RepoRef, number: number): Promise<PullRequest>;

  /**
   * Merges at exactly `input.sha`. AdapterError `sha_mismatch` when the head moved,
   * `not_mergeable` on conflicts or failing required checks.
   *
   * @example const { sha } = await host.mergePullRequest(repo, 12, { method: 'squash', sha: approvedSha })
   */
  mergePullRequest(repo: RepoRef, number: number, input: MergeInput): Promise<{ sha: string }>;

  /**
   * Adds labels to an issue or pull request (creating missing labels).
   *
   * @example await host.addLabels(repo, 12, ['patchwell'])
   */
  addLabels(repo: RepoRef, number: number, labels: string[]): Promise<void>;

  /**
   * Creates a label or updates its colour and description.
   *
   * @example await host.ensureLabel(repo, { name: 'patchwell', color: '5319e7', description: 'Handled by Patchwell' })
   */
  ensureLabel(repo: RepoRef, label: LabelInput): Promise<void>;

  /**
   * Comments on an issue or pull request.
   *
   * @example await host.comment(repo, 7, 'Fixed in 1.4.2')
   */
  comment(repo: RepoRef, number: number, body: string): Promise<{ id: string; url: string }>;

  /**
   * Closes an issue; succeeds when it is already closed.
   *
   * @example await host.closeIssue(repo, 7, 'completed')
   */
  closeIssue(repo: RepoRef, number: number, reason: 'completed' | 'not_planned'): Promise<void>;

  /**
   * Creates a tag at a commit. AdapterError `tag_exists` when the name points elsewhere;
   * succeeds when it already points at `sha`.
   *
   * @example await host.createTag(repo, { name: 'v1.4.2', sha, message: 'Release 1.4.2' })
   */
  createTag(repo: RepoRef, input: TagInput): Promise<{ name: string; sha: string }>;

  /**
   * Publishes a release for a tag.
   *
   * @example await host.createRelease(repo, { tag: 'v1.4.2', name: '1.4.2', body: notes })
   */
  createRelease(repo: RepoRef, input: ReleaseInput): Promise<{ id: string; url: string }>;

  /**
   * Combined CI state of a commit; `none` when nothing reports on it.
   *
   * @example (await host.getCommitStatus(repo, sha)).state // 'pending'
   */
  getCommitStatus(repo: RepoRef, sha: string): Promise<CiStatus>;

  /**
   * Stores a CI secret of the repository (encrypted as the host requires).
   *
   * @example await host.setSecret(repo, 'PATCHWELL_AGENT_KEY', key)
   */
  setSecret(repo: RepoRef, name: string, value: string): Promise<void>;

  /**
   * A short-lived token for a job: read only, or with push for a fix job.
   *
   * @example const { token, cloneUrl } = await host.createGitAccess(repo, { write: true })
   */
  createGitAccess(repo: RepoRef, input: { write: boolean }): Promise<GitAccess>;

  /**
   * Checks a webhook's signature (X-Hub-Signature-256 over the raw body). False for anything
   * missing or wrong; never throws.
   *
   * @example host.verifyWebhook(request.headers, rawBody) // false → 401
   */
  verifyWebhook(headers: RawHeaders, rawBody: Buffer): boolean;

  /**
   * Reads a delivery `verifyWebhook` accepted. PayloadError when the body cannot be read.
   *
   * @example const { deliveryId, kind, action } = host.parseWebhook(request.headers, rawBody)
   */
  parseWebhook(headers: RawHeaders, rawBody: Buffer): CodeHostEvent;

  /**
   * User sign-in (OAuth with PKCE): the address to send the user to.
   *
   * @example await host.authorizeUrl({ state, codeChallenge, redirectUri: `${base}/v1/auth/codehost/callback` })
   */
  authorizeUrl(input: AuthorizeInput): Promise<string>;

  /**
   * Exchanges the callback's code for the user. AdapterError `invalid_grant` for a bad or used code.
   *
   * @example const { login, email, token } = await host.exchangeCode({ code, codeVerifier, redirectUri })
   */
  exchangeCode(input: ExchangeInput): Promise<CodeHostUser>;
}

/** Options every code host accepts. */
export interface CodeHostOptions {
  /** Secret of webhook signatures (X-Hub-Signature-256). */
  webhookSecret?: string;
  /** API base URL (an enterprise host, or a local peer in tests). */
  baseUrl?: string;
  /** OAuth app for user sign-in. */
  oauth?: { clientId: string; clientSecret: string };
}

export const codeHostOptionKeys: Joi.PartialSchemaMap<CodeHostOptions> = {
  webhookSecret: Joi.string().min(16),
  baseUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
  oauth: Joi.object({ clientId: Joi.string().required(), clientSecret: Joi.string().required() }),
};

export const codeHostOptionsSchema = Joi.object<CodeHostOptions>(codeHostOptionKeys);

/** Base of code hosts: options, the X-Hub-Signature-256 check and the PKCE helpers. */
export abstract class AbstractCodeHost<O extends CodeHostOptions = CodeHostOptions>
  extends AbstractAdapter<O>
  implements CodeHost
{
  static override optionsSchema: Joi.ObjectSchema<CodeHostOptions> = codeHostOptionsSchema;

  abstract installUrl(state: string): Promise<string>;
  abstract getInstallation(installationId: string): Promise<Installation>;
  abstract listRepositories(installationId: string): Promise<Repository[]>;
  abstract getRepository(repo: RepoRef): Promise<Repository>;
  abstract readFile(repo: RepoRef, path: string, ref?: string): Promise<RepoFile | null>;
  abstract listTree(repo: RepoRef, ref?: string): Promise<TreeEntry[]>;
  abstract getBranch(repo: RepoRef, branch: string): Promise<Branch | null>;
  abstract compare(repo: RepoRef, base: string, head: string): Promise<CompareResult>;
  abstract openPullRequest(repo: RepoRef, input: OpenPullRequestInput): Promise<PullRequest>;
  abstract getPullRequest(repo: RepoRef, number: number): Promise<PullRequest | null>;
  abstract findPullRequestByBranch(repo: RepoRef, branch: string): Promise<PullRequest | null>;
  abstract updatePullRequest(repo: RepoRef, number: number, input: UpdatePullRequestInput): Promise<PullRequest>;
  abstract closePullRequest(repo: RepoRef, number: number): Promise<PullRequest>;
  abstract mergePullRequest(repo: RepoRef, number: number, input: MergeInput): Promise<{ sha: string }>;
  abstract addLabels(repo: RepoRef, number: number, labels: string[]): Promise<void>;
  abstract ensureLabel(repo: RepoRef, label: LabelInput): Promise<void>;
  abstract comment(repo: RepoRef, number: number, body: string): Promise<{ id: string; url: string }>;
  abstract closeIssue(repo: RepoRef, number: number, reason: 'completed' | 'not_planned'): Promise<void>;
  abstract createTag(repo: RepoRef, input: TagInput): Promise<{ name: string; sha: string }>;
  abstract createRelease(repo: RepoRef, input: ReleaseInput): Promise<{ id: string; url: string }>;
  abstract getCommitStatus(repo: RepoRef, sha: string): Promise<CiStatus>;
  abstract setSecret(repo: RepoRef, name: string, value: string): Promise<void>;
  abstract createGitAccess(repo: RepoRef, input: { write: boolean }): Promise<GitAccess>;
  abstract parseWebhook(headers: RawHeaders, rawBody: Buffer): CodeHostEvent;
  abstract authorizeUrl(input: AuthorizeInput): Promise<string>;
  abstract exchangeCode(input: ExchangeInput): Promise<CodeHostUser>;

  /** X-Hub-Signature-256 with `webhookSecret`; false when no secret is configured. */
  verifyWebhook(headers: RawHeaders, rawBody: Buffer): boolean {
    const secret = this.options.webhookSecret;
    if (!secret) return false;
    return verifySha256Header(headers, 'x-hub-signature-256', secret, rawBody);
  }
}
