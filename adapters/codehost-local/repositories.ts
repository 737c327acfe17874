import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AdapterError, AdapterNotFoundError, type RepoRef, type Repository } from '../../core/contracts/index.js';
import { newId } from '../../core/data/ids.js';
import { BareRepo, type CommitFilesInput } from './bare-repo.js';
import { NAME, type LocalHostContext } from './options.js';

/** A repository's row (`codehost_local_repositories`). */
export interface RepositoryRow {
  id: string;
  full_name: string;
  is_public: boolean;
  archived: boolean;
  last_number: number;
  created_at: Date;
}

/** Repositories: bare git directories under the root, with a row each (visibility, archive state, issue numbers). */
export class LocalRepositories {
  private rootPromise: Promise<string> | null = null;
  private tempRoot: string | null = null;

  constructor(
    private readonly ctx: LocalHostContext,
    private readonly config: () => { dataDir?: string } | undefined,
  ) {}

  /** Directory holding `<owner>/<name>.git`. */
  root(): Promise<string> {
    return (this.rootPromise ??= (async () => {
      if (this.ctx.options.root) return resolve(this.ctx.options.root);
      const dataDir = this.config()?.dataDir ?? ':memory:';
      if (dataDir === ':memory:') return (this.tempRoot = await mkdtemp(join(tmpdir(), 'patchwell-git-')));
      return resolve(dataDir, 'git');
    })());
  }

  /** Removes the temporary root of a `:memory:` service (called on shutdown). */
  async close(): Promise<void> {
    if (this.tempRoot) await rm(this.tempRoot, { recursive: true, force: true });
  }

  /** `owner/name` of a full name; a name that cannot be a repository is not found. */
  private split(fullName: string): [string, string] {
    const [owner, name, ...rest] = fullName.split('/');
    if (
      !owner ||
      !name ||
      rest.length ||
      !NAME.test(owner) ||
      !NAME.test(name) ||
      owner.startsWith('.') ||
      name.startsWith('.')
    ) {
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

  /** The full name as stored (`.git` dropped). */
  canonical(fullName: string): string {
    const [owner, name] = this.split(fullName);
    return `${owner}/${name}`;
  }

  /**
   * Creates a bare repository with a first commit (development and tests: the local host has no
   * "new repository" page). Idempotent on the name only when `ifMissing`.
   *
   * @example await host.createRepository('acme/web', { isPublic: true, files: { 'README.md': '# Web\n' } })
   */
  async createRepository(
    fullName: string,
    opts: { isPublic?: boolean; defaultBranch?: string; files?: Record<string, string>; message?: string } = {},
  ): Promise<Repository> {
    const dir = await this.dirOf(fullName);
    const name = this.canonical(fullName);
    if (existsSync(join(dir, 'HEAD'))) throw new AdapterError('already_exists', `repository ${name} exists`);
    await mkdir(join(dir, '..'), { recursive: true });
    const repo = await BareRepo.init(dir, opts.defaultBranch ?? 'main');
    await this.ctx
      .db('codehost_local_repositories')
      .insert({ id: newId('lrp'), full_name: name, is_public: opts.isPublic ?? false })
      .onConflict('full_name')
      .merge(['is_public']);
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
    if (Object.keys(row).length)
      await this.ctx
        .db('codehost_local_repositories')
        .where({ full_name: this.canonical(fullName) })
        .update(row);
  }

  /** The repository's row (created on first use: repositories pushed to disk have none yet). */
  async repoRow(fullName: string): Promise<RepositoryRow> {
    const name = this.canonical(fullName);
    const found = await this.ctx.db<RepositoryRow>('codehost_local_repositories').where({ full_name: name }).first();
    if (found) return found;
    await this.ctx
      .db('codehost_local_repositories')
      .insert({ id: newId('lrp'), full_name: name })
      .onConflict('full_name')
      .ignore();
    // Inserted above, or by a concurrent call whose insert won.
    return (await this.ctx.db<RepositoryRow>('codehost_local_repositories').where({ full_name: name }).first())!;
  }

  repoUrl(fullName: string): string {
    return `${this.ctx.publicUrl}/codehost/local/${fullName}`;
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
}
