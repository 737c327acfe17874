/**
 * One bare git repository, driven with the git CLI: reads, diffs, commits without a work tree
 * (a temporary index), merges with `merge-tree --write-tree` and ref updates that only succeed
 * when the branch still points where it was read (compare-and-swap).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterError, type MergeMethod, type TreeEntry } from '../../core/contracts/index.js';
import { git, gitText, GitError } from './git.js';

const SHA = /^[0-9a-f]{40,64}$/;

export interface CommitFilesInput {
  branch: string;
  /** Parent: a branch or commit; default the branch's head (none for a new branch without base). */
  base?: string;
  /** Path → content; null deletes the path. */
  files: Record<string, string | Buffer | null>;
  message: string;
  author?: { name: string; email: string };
}

export class BareRepo {
  constructor(readonly dir: string) {}

  private run(args: string[], opts: Parameters<typeof git>[1] = {}) {
    return git(args, { ...opts, gitDir: this.dir });
  }

  private text(args: string[], opts: Parameters<typeof git>[1] = {}) {
    return gitText(args, { ...opts, gitDir: this.dir });
  }

  static async init(dir: string, defaultBranch: string): Promise<BareRepo> {
    await gitText(['init', '--bare', '--quiet', `--initial-branch=${defaultBranch}`, dir]);
    return new BareRepo(dir);
  }

  /** The branch HEAD names (the default branch). */
  async headBranch(): Promise<string> {
    const ref = await this.text(['symbolic-ref', 'HEAD']);
    return ref.replace(/^refs\/heads\//, '');
  }

  /** Commit a ref (branch, tag or sha) resolves to, or null. */
  async resolve(ref: string): Promise<string | null> {
    if (!ref || ref.startsWith('-')) return null;
    const { stdout, code } = await this.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      okCodes: [1, 128],
    });
    const sha = stdout.toString('utf8').trim();
    return code === 0 && SHA.test(sha) ? sha : null;
  }

  async branchSha(branch: string): Promise<string | null> {
    if (!(await this.isValidBranchName(branch))) return null;
    return this.resolve(`refs/heads/${branch}`);
  }

  async isValidBranchName(branch: string): Promise<boolean> {
    if (!branch || branch.startsWith('-')) return false;
    const { code } = await git(['check-ref-format', '--branch', branch], { okCodes: [1, 128] });
    return code === 0;
  }

  async mustResolve(ref: string, what = 'ref'): Promise<string> {
    const sha = await this.resolve(ref);
    if (!sha) throw new AdapterError('not_found', `${what} ${ref} does not exist`);
    return sha;
  }

  /** Blob at ref:path, or null. */
  async readFile(ref: string, path: string): Promise<{ sha: string; content: Buffer } | null> {
    const commit = await this.resolve(ref);
    if (!commit || path.startsWith('/') || path.split('/').includes('..')) return null;
    const { stdout, code } = await this.run(['rev-parse', '--verify', '--quiet', `${commit}:${path}`], {
      okCodes: [1, 128],
    });
    const sha = stdout.toString('utf8').trim();
    if (code !== 0 || !SHA.test(sha)) return null;
    const type = await this.text(['cat-file', '-t', sha]);
    if (type !== 'blob') return null;
    const content = (await this.run(['cat-file', 'blob', sha])).stdout;
    return { sha, content };
  }

  /** Every entry of the tree at ref, recursively, directories included. */
  async listTree(ref: string): Promise<TreeEntry[]> {
    const commit = await this.mustResolve(ref);
    const out = (await this.run(['ls-tree', '-r', '-t', '-l', '-z', commit])).stdout.toString('utf8');
    const entries: TreeEntry[] = [];
    for (const line of out.split('\0')) {
      if (!line) continue;
      const tab = line.indexOf('\t');
      const [mode, type, sha, size] = line.slice(0, tab).split(/\s+/);
      const path = line.slice(tab + 1);
      if (!mode || !type || !sha) continue;
      if (type === 'tree') entries.push({ path, type: 'dir', sha });
      else if (type === 'commit') entries.push({ path, type: 'submodule', sha });
      else entries.push({ path, type: mode === '120000' ? 'symlink' : 'file', sha, size: Number(size) || 0 });
    }
    return entries;
  }

  /** Diff of base...head and the commit counts each way. */
  async compare(
    base: string,
    head: string,
    maxBytes: number,
  ): Promise<{ diff: string; truncated: boolean; aheadBy: number; behindBy: number }> {
    const b = await this.mustResolve(base);
    const h = await this.mustResolve(head);
    const counts = await this.text(['rev-list', '--left-right', '--count', `${b}...${h}`]);
    const [behind, ahead] = counts.split(/\s+/).map(Number);
    const raw =
      b === h ? Buffer.alloc(0) : (await this.run(['diff', '--no-color', '--no-ext-diff', `${b}...${h}`])).stdout;
    const truncated = raw.length > maxBytes;
    return {
      diff: (truncated ? raw.subarray(0, maxBytes) : raw).toString('utf8'),
      truncated,
      aheadBy: ahead ?? 0,
      behindBy: behind ?? 0,
    };
  }

  /** Commits files on a branch without a work tree; returns the new commit. */
  async commitFiles(input: CommitFilesInput): Promise<string> {
    if (!(await this.isValidBranchName(input.branch)))
      throw new AdapterError('invalid_branch', `"${input.branch}" is not a valid branch name`);
    const current = await this.branchSha(input.branch);
    const parent = input.base ? await this.mustResolve(input.base, 'base') : current;
    const tmp = await mkdtemp(join(tmpdir(), 'pw-index-'));
    try {
      const env = { GIT_INDEX_FILE: join(tmp, 'index'), ...authorEnv(input.author) };
      await this.run(parent ? ['read-tree', parent] : ['read-tree', '--empty'], { env });
      for (const [path, content] of Object.entries(input.files)) {
        if (!path || path.startsWith('/') || path.split('/').includes('..'))
          throw new AdapterError('invalid_path', `"${path}" is not a repository path`);
        if (content === null) {
          await this.run(['update-index', '--force-remove', '--', path], { env });
          continue;
        }
        const blob = await this.text(['hash-object', '-w', '--stdin'], { input: content });
        await this.run(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { env });
      }
      const tree = await this.text(['write-tree'], { env });
      const commit = await this.text(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', input.message], {
        env,
      });
      await this.updateRef(input.branch, commit, current);
      return commit;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }

  /** Moves a branch only if it still points at `expected` (null: it must not exist). */
  async updateRef(branch: string, sha: string, expected: string | null): Promise<void> {
    try {
      await this.run(['update-ref', `refs/heads/${branch}`, sha, expected ?? ''.padEnd(40, '0')]);
    } catch (err) {
      if (err instanceof GitError)
        throw new AdapterError('sha_mismatch', `branch ${branch} moved while it was updated`, { cause: err });
      throw err;
    }
  }

  /**
   * Merges head into base the way a host's merge button does, from exactly these commits:
   * `merge` (a merge commit), `squash` (one commit with head's tree changes) or `rebase` (head's
   * commits replayed on base). Returns the new tip of base. `not_mergeable` on conflicts.
   */
  async merge(
    method: MergeMethod,
    baseBranch: string,
    headSha: string,
    message: { title: string; body: string },
  ): Promise<string> {
    const baseSha = await this.mustResolve(`refs/heads/${baseBranch}`, 'base branch');
    const text = message.body ? `${message.title}\n\n${message.body}` : message.title;
    let result: string;
    if (method === 'rebase') {
      result = await this.rebase(baseSha, headSha);
    } else {
      const tree = await this.mergeTree(baseSha, headSha);
      const parents = method === 'merge' ? ['-p', baseSha, '-p', headSha] : ['-p', baseSha];
      result = await this.text(['commit-tree', tree, ...parents, '-m', text]);
    }
    await this.updateRef(baseBranch, result, baseSha);
    return result;
  }

  private async mergeTree(ours: string, theirs: string): Promise<string> {
    const { stdout, code } = await this.run(['merge-tree', '--write-tree', '--no-messages', ours, theirs], {
      okCodes: [1],
    });
    const tree = stdout.toString('utf8').split('\n')[0]?.trim() ?? '';
    if (code === 1)
      throw new AdapterError('not_mergeable', 'the changes conflict with the base branch', {
        details: { conflicts: stdout.toString('utf8').split('\n').slice(1).filter(Boolean).slice(0, 20) },
      });
    return tree;
  }

  /** head's commits replayed on base, in a temporary worktree (authors kept); the new tip. */
  private async rebase(baseSha: string, headSha: string): Promise<string> {
    const tmp = await mkdtemp(join(tmpdir(), 'pw-rebase-'));
    const wt = join(tmp, 'wt');
    try {
      await this.run(['worktree', 'add', '--detach', '--quiet', wt, headSha]);
      try {
        await git(['rebase', '--quiet', '--no-autosquash', baseSha], { cwd: wt });
      } catch (err) {
        await git(['rebase', '--abort'], { cwd: wt }).catch(() => undefined);
        throw new AdapterError('not_mergeable', 'the commits do not apply on the base branch', { cause: err });
      }
      return await gitText(['rev-parse', 'HEAD'], { cwd: wt });
    } finally {
      await this.run(['worktree', 'remove', '--force', wt]).catch(() => undefined);
      await rm(tmp, { recursive: true, force: true });
      await this.run(['worktree', 'prune']).catch(() => undefined);
    }
  }

  /** Tag lookup: the commit a tag points at, or null. */
  async tagTarget(name: string): Promise<string | null> {
    const { code } = await git(['check-ref-format', `refs/tags/${name}`], { okCodes: [1, 128] });
    if (code !== 0) throw new AdapterError('invalid_tag', `"${name}" is not a valid tag name`);
    return this.resolve(`refs/tags/${name}`);
  }

  async createTag(name: string, sha: string, message?: string): Promise<void> {
    if (message) await this.run(['tag', '-a', name, sha, '-m', message]);
    else await this.run(['update-ref', `refs/tags/${name}`, sha, ''.padEnd(40, '0')]);
  }

  /** One line per commit of base..head: sha and subject. */
  async log(base: string, head: string, limit = 50): Promise<Array<{ sha: string; subject: string; author: string }>> {
    const out = await this.text(['log', `--max-count=${limit}`, '--format=%H%x00%s%x00%an', `${base}..${head}`]);
    return out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [sha, subject, author] = l.split('\0');
        return { sha: sha ?? '', subject: subject ?? '', author: author ?? '' };
      });
  }
}

function authorEnv(author?: { name: string; email: string }): Record<string, string> {
  return author ? { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email } : {};
}
