import type { Knex } from 'knex';
import { AdapterNotFoundError, type RepoRef } from '../../core/contracts/index.js';
import type { LocalHostContext } from './options.js';
import type { LocalRepositories, RepositoryRow } from './repositories.js';

/** An issue or pull request as stored (`codehost_local_items`). */
export interface ItemRow {
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

/** The labels of a row (a JSON array, or its text). */
export const labelsOf = (row: { labels: string[] | string }): string[] =>
  typeof row.labels === 'string' ? (JSON.parse(row.labels) as string[]) : row.labels;

/** Issue and pull request rows of a repository: numbering, lookup, links. */
export class ItemRows {
  constructor(
    private readonly ctx: LocalHostContext,
    private readonly repos: LocalRepositories,
  ) {}

  /** The page of an issue or pull request. */
  url(repo: string, row: { kind: string; number: number }): string {
    return `${this.repos.repoUrl(repo)}/${row.kind === 'pull_request' ? 'pull' : 'issues'}/${row.number}`;
  }

  async get(repo: string, number: number): Promise<ItemRow | undefined> {
    return this.ctx.db<ItemRow>('codehost_local_items').where({ repo, number }).first();
  }

  /** Next issue/pull request number; the repository row must exist (repoRow) before the transaction. */
  async nextNumber(trx: Knex, repo: string): Promise<number> {
    const [row] = await trx<RepositoryRow>('codehost_local_repositories')
      .where({ full_name: repo })
      .increment('last_number', 1)
      .returning('last_number');
    return Number(row.last_number);
  }

  /** An issue or pull request of the ref's repository; not found otherwise. */
  async must(ref: RepoRef, number: number): Promise<ItemRow> {
    const repoName = this.repos.canonical(ref.fullName);
    await this.repos.repo(repoName);
    const row = await this.get(repoName, number);
    if (!row) throw new AdapterNotFoundError(`issue or pull request #${number} does not exist`);
    return row;
  }
}
