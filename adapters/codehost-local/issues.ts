import type { LabelInput, RepoRef } from '../../core/contracts/index.js';
import { newId } from '../../core/data/ids.js';
import { labelsOf, type ItemRow, type ItemRows } from './item-rows.js';
import type { LocalHostContext } from './options.js';
import type { LocalRepositories } from './repositories.js';

/** Issues, labels and comments (of issues and pull requests alike). */
export class LocalIssues {
  constructor(
    private readonly ctx: LocalHostContext,
    private readonly repos: LocalRepositories,
    private readonly items: ItemRows,
  ) {}

  /**
   * Opens an issue (development and tests: people open issues on a host's own pages).
   *
   * @example await host.openIssue('acme/web', { title: 'Login fails', body: '…', author: 'ada' })
   */
  async openIssue(
    fullName: string,
    input: { title: string; body?: string; author: string; labels?: string[] },
  ): Promise<{ number: number; url: string }> {
    const repo = this.repos.canonical(fullName);
    await this.repos.repo(repo);
    await this.repos.repoRow(repo);
    return this.ctx.db.transaction(async (trx) => {
      const number = await this.items.nextNumber(trx, repo);
      await trx('codehost_local_items').insert({
        repo,
        number,
        kind: 'issue',
        title: input.title,
        body: input.body ?? '',
        author: input.author,
        state: 'open',
        labels: JSON.stringify(input.labels ?? []),
      });
      return { number, url: this.items.url(repo, { kind: 'issue', number }) };
    });
  }

  async addLabels(ref: RepoRef, number: number, labels: string[]): Promise<void> {
    const row = await this.items.must(ref, number);
    for (const name of labels) {
      await this.ctx
        .db('codehost_local_labels')
        .insert({ repo: row.repo, name, color: 'ededed' })
        .onConflict(['repo', 'name'])
        .ignore();
    }
    const merged = [...new Set([...labelsOf(row), ...labels])];
    await this.ctx
      .db('codehost_local_items')
      .where({ repo: row.repo, number })
      .update({ labels: JSON.stringify(merged), updated_at: new Date() });
  }

  async ensureLabel(ref: RepoRef, label: LabelInput): Promise<void> {
    const repo = this.repos.canonical(ref.fullName);
    await this.repos.repo(repo);
    await this.ctx
      .db('codehost_local_labels')
      .insert({ repo, name: label.name, color: label.color.toLowerCase(), description: label.description ?? null })
      .onConflict(['repo', 'name'])
      .merge(['color', 'description']);
  }

  /** Labels of a repository (the labels page). */
  async listLabels(fullName: string): Promise<LabelInput[]> {
    const rows = await this.ctx
      .db('codehost_local_labels')
      .where({ repo: this.repos.canonical(fullName) })
      .orderBy('name');
    return rows.map((r: { name: string; color: string; description: string | null }) => ({
      name: r.name,
      color: r.color,
      ...(r.description ? { description: r.description } : {}),
    }));
  }

  async comment(ref: RepoRef, number: number, body: string): Promise<{ id: string; url: string }> {
    return this.commentAs(ref, number, body, 'patchwell[bot]');
  }

  /** A comment by someone (development and tests). */
  async commentAs(ref: RepoRef, number: number, body: string, author: string): Promise<{ id: string; url: string }> {
    const row = await this.items.must(ref, number);
    const id = newId('lcm');
    await this.ctx.db('codehost_local_comments').insert({ id, repo: row.repo, number, author, body });
    return { id, url: `${this.items.url(row.repo, row)}#comment-${id}` };
  }

  /** Comments of an issue or pull request, oldest first. */
  async listComments(
    fullName: string,
    number: number,
  ): Promise<Array<{ id: string; author: string; body: string; createdAt: Date }>> {
    const rows = await this.ctx
      .db('codehost_local_comments')
      .where({ repo: this.repos.canonical(fullName), number })
      .orderBy('created_at')
      .orderBy('id');
    return rows.map((r: { id: string; author: string; body: string; created_at: Date }) => ({
      id: r.id,
      author: r.author,
      body: r.body,
      createdAt: new Date(r.created_at),
    }));
  }

  /** An issue's state (tests and pages). */
  async getIssue(
    fullName: string,
    number: number,
  ): Promise<{ number: number; title: string; state: string; stateReason: string | null; labels: string[] } | null> {
    const row = await this.items.get(this.repos.canonical(fullName), number);
    return row
      ? { number, title: row.title, state: row.state, stateReason: row.state_reason, labels: labelsOf(row) }
      : null;
  }

  async closeIssue(ref: RepoRef, number: number, reason: 'completed' | 'not_planned'): Promise<void> {
    const row = await this.items.must(ref, number);
    if (row.state !== 'open') return;
    await this.ctx
      .db('codehost_local_items')
      .where({ repo: row.repo, number })
      .update({ state: 'closed', state_reason: reason, closed_at: new Date(), updated_at: new Date() });
  }

  /** Issues and pull requests of a repository, newest first (the repository page). */
  async listItems(
    fullName: string,
  ): Promise<Array<{ number: number; kind: string; title: string; state: string; url: string }>> {
    const repo = this.repos.canonical(fullName);
    const rows = await this.ctx.db('codehost_local_items').where({ repo }).orderBy('number', 'desc').limit(200);
    return rows.map((r: ItemRow) => ({
      number: r.number,
      kind: r.kind,
      title: r.title,
      state: r.state,
      url: this.items.url(repo, r),
    }));
  }
}
