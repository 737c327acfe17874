/**
 * Git against a repository of the code host, through the CodeHost's short-lived GitAccess
 * (clone URL and token): shallow fetches of one branch into a cache (the code index reads files
 * from it) and commits pushed to a branch without a work tree (the onboarding pull request).
 * Runs the git CLI with execFile, never a shell; the token travels in the environment as an
 * HTTP header, never in arguments or URLs.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GitAccess } from '../../../core/contracts/index.js';
import { cleanGitEnv } from '../../../core/security/git-env.js';

export class GitCommandError extends Error {
  override name = 'GitCommandError';
}

interface RunOptions {
  gitDir?: string;
  env?: Record<string, string>;
  input?: Buffer | string;
  maxBuffer?: number;
}

function run(args: string[], opts: RunOptions = {}): Promise<Buffer> {
  const env = { ...cleanGitEnv(process.env.HOME ?? '/tmp'), ...opts.env };
  const full = opts.gitDir ? [`--git-dir=${opts.gitDir}`, ...args] : args;
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      full,
      { env, encoding: 'buffer', maxBuffer: opts.maxBuffer ?? 512 * 1024 * 1024, timeout: 10 * 60_000 },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        // Never echo a URL with credentials; the token is not in args, but keep messages short.
        reject(
          new GitCommandError(`git ${args[0]} failed: ${stderr.toString('utf8').trim().slice(0, 500) || err.message}`),
        );
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

const text = async (args: string[], opts: RunOptions = {}) => (await run(args, opts)).toString('utf8').trim();

/** Environment that authenticates HTTP(S) git with the access token; nothing for local paths. */
function authEnv(access: GitAccess): Record<string, string> {
  if (!/^https?:\/\//.test(access.cloneUrl)) return {};
  const basic = Buffer.from(`x-access-token:${access.token}`).toString('base64');
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
  };
}

export interface BlobEntry {
  path: string;
  sha: string;
  size: number;
  mode: string;
}

export class GitRemote {
  constructor(private readonly cacheRoot: () => Promise<string>) {}

  private async cacheDirOf(repositoryId: string): Promise<string> {
    if (!/^[A-Za-z0-9_-]+$/.test(repositoryId)) throw new GitCommandError('bad repository id');
    return join(await this.cacheRoot(), `${repositoryId}.git`);
  }

  /** Fetches the tip of `branch` (depth 1) into the repository's cache; returns the cache and the commit. */
  async fetchBranch(repositoryId: string, access: GitAccess, branch: string): Promise<{ gitDir: string; sha: string }> {
    const gitDir = await this.cacheDirOf(repositoryId);
    if (!existsSync(join(gitDir, 'HEAD'))) {
      await mkdir(gitDir, { recursive: true });
      await run(['init', '--bare', '--quiet', gitDir]);
    }
    const ref = `refs/remotes/origin/${branch}`;
    await run(
      ['fetch', '--quiet', '--depth=1', '--no-tags', '--force', access.cloneUrl, `+refs/heads/${branch}:${ref}`],
      { gitDir, env: authEnv(access) },
    );
    return { gitDir, sha: await text(['rev-parse', '--verify', `${ref}^{commit}`], { gitDir }) };
  }

  /** Removes the repository's cache. */
  async dropCache(repositoryId: string): Promise<void> {
    await rm(await this.cacheDirOf(repositoryId), { recursive: true, force: true });
  }

  /** Regular files of a commit with their blob ids and sizes. */
  async listBlobs(gitDir: string, sha: string): Promise<BlobEntry[]> {
    const out = (await run(['ls-tree', '-r', '-l', '-z', sha], { gitDir })).toString('utf8');
    const entries: BlobEntry[] = [];
    for (const line of out.split('\0')) {
      if (!line) continue;
      const tab = line.indexOf('\t');
      const [mode, type, blob, size] = line.slice(0, tab).split(/\s+/);
      if (type !== 'blob' || mode === '120000' || !blob) continue;
      entries.push({ path: line.slice(tab + 1), sha: blob, size: Number(size) || 0, mode: mode ?? '100644' });
    }
    return entries;
  }

  /** Contents of blobs, read in one `cat-file --batch` per call. */
  async readBlobs(gitDir: string, shas: string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    if (shas.length === 0) return out;
    const buf = await run(['cat-file', '--batch'], { gitDir, input: shas.join('\n') + '\n' });
    let pos = 0;
    while (pos < buf.length) {
      const nl = buf.indexOf(0x0a, pos);
      if (nl < 0) break;
      const header = buf.subarray(pos, nl).toString('utf8').split(' ');
      pos = nl + 1;
      if (header[1] === 'missing' || header.length < 3) continue;
      const size = Number(header[2]);
      out.set(header[0], buf.subarray(pos, pos + size));
      pos += size + 1;
    }
    return out;
  }

  /**
   * Commits `files` on top of `base` (a branch of the remote) and pushes the commit to `branch`
   * (replacing what it held). Returns the commit.
   */
  async commitAndPush(
    access: GitAccess,
    input: { base: string; branch: string; files: Record<string, string>; message: string },
  ): Promise<string> {
    const tmp = await mkdtemp(join(tmpdir(), 'pw-push-'));
    const gitDir = join(tmp, 'repo.git');
    try {
      await run(['init', '--bare', '--quiet', gitDir]);
      const env = authEnv(access);
      await run(
        [
          'fetch',
          '--quiet',
          '--depth=1',
          '--no-tags',
          access.cloneUrl,
          `+refs/heads/${input.base}:refs/remotes/origin/base`,
        ],
        { gitDir, env },
      );
      const parent = await text(['rev-parse', '--verify', 'refs/remotes/origin/base^{commit}'], { gitDir });
      const indexEnv = { GIT_INDEX_FILE: join(tmp, 'index') };
      await run(['read-tree', parent], { gitDir, env: indexEnv });
      for (const [path, content] of Object.entries(input.files)) {
        const blob = await text(['hash-object', '-w', '--stdin'], { gitDir, input: content });
        await run(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { gitDir, env: indexEnv });
      }
      const tree = await text(['write-tree'], { gitDir, env: indexEnv });
      const commit = await text(['commit-tree', tree, '-p', parent, '-m', input.message], { gitDir });
      await run(['push', '--quiet', '--force', access.cloneUrl, `${commit}:refs/heads/${input.branch}`], {
        gitDir,
        env,
      });
      return commit;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
}
