/** Reaching code at a host: installations of the service's app, repositories, files, branches, comparisons, git access. */

/** An installation of the service's app on an account of the code host. */
export interface Installation {
  id: string;
  account: { login: string; type: 'user' | 'organization' };
  repositorySelection: 'all' | 'selected';
  /** Permission name → `read` | `write` | `admin`. */
  permissions: Record<string, string>;
  suspendedAt: Date | null;
}

export interface Repository {
  /** The code host's id (stable across renames). */
  id: string;
  /** `owner/name` */
  fullName: string;
  htmlUrl: string;
  cloneUrl: string;
  defaultBranch: string;
  isPublic: boolean;
  archived: boolean;
}

/** Which repository, reached through which installation (null: the adapter's own access, e.g. local). */
export interface RepoRef {
  installationId: string | null;
  fullName: string;
}

export interface RepoFile {
  path: string;
  content: Buffer;
  /** Blob id. */
  sha: string;
}

export interface TreeEntry {
  path: string;
  type: 'file' | 'dir' | 'symlink' | 'submodule';
  sha: string;
  size?: number;
}

export interface Branch {
  name: string;
  /** Head commit. */
  sha: string;
  protected: boolean;
}

export interface CompareResult {
  /** Unified diff of base...head. */
  diff: string;
  /** True when the host cut the diff short. */
  truncated: boolean;
  aheadBy: number;
  behindBy: number;
}

/** A short-lived token a job uses to clone (and, for a fix job, push). */
export interface GitAccess {
  token: string;
  expiresAt: Date;
  cloneUrl: string;
}
