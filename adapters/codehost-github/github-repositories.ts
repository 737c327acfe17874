import type {
  Branch,
  CompareResult,
  Installation,
  RepoFile,
  RepoRef,
  Repository,
  TreeEntry,
} from '../../core/contracts/index.js';
import { GithubConnection, enc, encPath } from './github-connection.js';
import { toRepository, type GhSchemas } from './github-json.js';

/** What GET /repos/{owner}/{repo}/contents/{path} answers: a directory's entries, or a file, symlink or submodule. */
type GhContent =
  | GhSchemas['content-directory']
  | GhSchemas['content-file']
  | GhSchemas['content-symlink']
  | GhSchemas['content-submodule'];

/** What GET /installation/repositories answers: a page of the repositories an installation reaches. */
interface GhInstallationRepositories {
  total_count: number;
  repositories: Array<GhSchemas['repository']>;
}

/** The GitHub App's reads: installations, the repositories they grant, files, trees, branches and comparisons. */
export abstract class GithubRepositoryReads extends GithubConnection {
  installUrl(state: string): Promise<string> {
    return Promise.resolve(`${this.webUrl}/apps/${enc(this.options.appSlug)}/installations/new?state=${enc(state)}`);
  }

  async getInstallation(installationId: string): Promise<Installation> {
    const { data } = await this.app<GhSchemas['installation']>('GET', `/app/installations/${enc(installationId)}`);
    // A user's or an organization's account (`simple-user`) has a login and a type; an enterprise's has neither.
    const account = data.account && 'login' in data.account ? data.account : null;
    return {
      id: String(data.id),
      account: {
        login: String(account?.login ?? ''),
        type: account?.type === 'User' ? 'user' : 'organization',
      },
      repositorySelection: data.repository_selection === 'selected' ? 'selected' : 'all',
      permissions: { ...(data.permissions ?? {}) },
      suspendedAt: data.suspended_at ? new Date(data.suspended_at) : null,
    };
  }

  async listRepositories(installationId: string): Promise<Repository[]> {
    const out: Repository[] = [];
    for (let page = 1; page <= 100; page++) {
      const { data } = await this.inst<GhInstallationRepositories>(installationId, {
        path: '/installation/repositories',
        query: { per_page: 100, page },
      });
      out.push(...data.repositories.map(toRepository));
      if (data.repositories.length < 100 || out.length >= data.total_count) break;
    }
    return out;
  }

  async getRepository(ref: RepoRef): Promise<Repository> {
    return toRepository(
      (await this.inst<GhSchemas['full-repository']>(ref.installationId, { path: this.repoPath(ref) })).data,
    );
  }

  async readFile(ref: RepoRef, path: string, at?: string): Promise<RepoFile | null> {
    const res = await this.orNull(
      this.inst<GhContent>(ref.installationId, {
        path: this.repoPath(ref, `/contents/${encPath(path)}`),
        query: { ref: at },
      }),
    );
    if (!res || Array.isArray(res.data) || res.data.type !== 'file') return null;
    const f = res.data;
    let content = typeof f.content === 'string' && f.encoding === 'base64' ? Buffer.from(f.content, 'base64') : null;
    if (!content || (content.length === 0 && f.size > 0)) {
      // Files over 1 MB come without content: read the blob.
      const blob = await this.inst<GhSchemas['blob']>(ref.installationId, {
        path: this.repoPath(ref, `/git/blobs/${enc(f.sha)}`),
      });
      content = Buffer.from(String(blob.data.content ?? ''), 'base64');
    }
    return { path, content, sha: String(f.sha) };
  }

  async listTree(ref: RepoRef, at?: string): Promise<TreeEntry[]> {
    const treeRef = at ?? (await this.getRepository(ref)).defaultBranch;
    const { data } = await this.inst<GhSchemas['git-tree']>(ref.installationId, {
      path: this.repoPath(ref, `/git/trees/${enc(treeRef)}`),
      query: { recursive: 1 },
    });
    return data.tree.map((e): TreeEntry => {
      if (e.type === 'tree') return { path: e.path, type: 'dir' as const, sha: e.sha };
      if (e.type === 'commit') return { path: e.path, type: 'submodule' as const, sha: e.sha };
      return {
        path: e.path,
        type: e.mode === '120000' ? ('symlink' as const) : ('file' as const),
        sha: e.sha,
        size: Number(e.size ?? 0),
      };
    });
  }

  async getBranch(ref: RepoRef, branch: string): Promise<Branch | null> {
    const res = await this.orNull(
      this.inst<GhSchemas['branch-with-protection']>(ref.installationId, {
        path: this.repoPath(ref, `/branches/${enc(branch)}`),
      }),
    );
    return res ? { name: res.data.name, sha: res.data.commit.sha, protected: Boolean(res.data.protected) } : null;
  }

  async compare(ref: RepoRef, base: string, head: string): Promise<CompareResult> {
    const path = this.repoPath(ref, `/compare/${enc(base)}...${enc(head)}`);
    const { data } = await this.inst<GhSchemas['commit-comparison']>(ref.installationId, { path });
    if (data.ahead_by === 0 && data.behind_by === 0 && (data.files?.length ?? 0) === 0)
      return { diff: '', truncated: false, aheadBy: 0, behindBy: 0 };
    const text = String(
      (await this.inst<string>(ref.installationId, { path, accept: 'application/vnd.github.diff' })).data ?? '',
    );
    const raw = Buffer.from(text);
    const truncated = raw.length > this.options.maxDiffBytes;
    return {
      diff: truncated ? raw.subarray(0, this.options.maxDiffBytes).toString('utf8') : text,
      truncated,
      aheadBy: Number(data.ahead_by ?? 0),
      behindBy: Number(data.behind_by ?? 0),
    };
  }
}
