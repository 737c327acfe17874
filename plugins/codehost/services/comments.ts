import type { Knex } from 'knex';
import { isAdapterError } from '../../../core/contracts/index.js';
import { increasingId } from '../../../core/data/ids.js';
import { CodehostCommentModel } from '../models/index.js';
import type { CodehostDeps } from './deps.js';
import type { RepositoryService } from './repositories.js';

export interface CommentInput {
  orgId: string;
  workspaceId: string;
  repositoryId: string;
  number: number;
  ticketId?: string | null;
  /** What asks for the comment (e.g. `draft:<id>`): one comment per source. */
  source: string;
  body: string;
}

const HOUR = 60 * 60_000;

/**
 * Comments the service posts on issues and pull requests, queued and posted within each
 * workspace's `oss_comments_per_hour` (0 pauses them). Container entry `codehostComments`:
 * `enqueue(trx, {...})` in the caller's transaction, then `flush()` after commit (a scheduled
 * flush posts what waits for the next hour).
 */
export class CommentService {
  private flushing: Promise<number> | null = null;

  constructor(
    private readonly d: CodehostDeps,
    private readonly repositories: () => RepositoryService,
  ) {}

  async enqueue(trx: Knex, input: CommentInput): Promise<void> {
    await trx('codehost_comments')
      .insert({
        // increasingId: comments enqueued together (one transaction, one created_at) post in order.
        id: increasingId(CodehostCommentModel.idPrefix),
        org_id: input.orgId,
        workspace_id: input.workspaceId,
        repository_id: input.repositoryId,
        number: input.number,
        ticket_id: input.ticketId ?? null,
        source: input.source,
        body: input.body.slice(0, 65_000),
        status: 'pending',
      })
      .onConflict(['org_id', 'source'])
      .ignore();
  }

  /** Posts the comments the hourly allowance lets through; returns how many were posted. One flush at a time per process. */
  flush(): Promise<number> {
    return (this.flushing ??= this.flushOnce().finally(() => (this.flushing = null)));
  }

  private async flushOnce(): Promise<number> {
    // Rows left `posting` by a process that died are offered again after ten minutes.
    await CodehostCommentModel.query(this.d.db)
      .acrossOrgs('comment queue recovery')
      .where({ status: 'posting' })
      .where('updated_at', '<', new Date(Date.now() - 10 * 60_000))
      .patch({ status: 'pending' });
    const pending = await CodehostCommentModel.query(this.d.db)
      .acrossOrgs('comment queue')
      .where({ status: 'pending' })
      .orderBy('created_at')
      .orderBy('id')
      .limit(200);
    const byWorkspace = new Map<string, CodehostCommentModel[]>();
    for (const c of pending) byWorkspace.set(c.workspace_id, [...(byWorkspace.get(c.workspace_id) ?? []), c]);
    let posted = 0;
    for (const [workspaceId, list] of byWorkspace) {
      const orgId = list[0].org_id;
      const ws = await this.d
        .workspaces()
        .get(orgId, workspaceId)
        .catch(() => null);
      if (!ws) continue;
      const used = Number(
        (
          (await this.d
            .db('codehost_comments')
            .where({ workspace_id: workspaceId, org_id: orgId, status: 'posted' })
            .where('posted_at', '>', new Date(Date.now() - HOUR))
            .count({ n: '*' })
            .first()) as { n: string | number } | undefined
        )?.n ?? 0,
      );
      let allowance = Math.max(0, ws.oss_comments_per_hour - used);
      for (const c of list) {
        if (allowance <= 0) break;
        const result = await this.postOne(c);
        if (result === 'posted') {
          posted++;
          allowance--;
        }
        if (result === 'retry') break;
      }
    }
    return posted;
  }

  private async postOne(c: CodehostCommentModel): Promise<'posted' | 'failed' | 'retry' | 'skipped'> {
    const claimed = await CodehostCommentModel.query(this.d.db)
      .forOrg(c.org_id)
      .where({ id: c.id, status: 'pending' })
      .patch({ status: 'posting', attempts: c.attempts + 1 });
    if (!claimed) return 'skipped';
    try {
      const ref = await this.repositories().ref(c.org_id, c.repository_id);
      const out = await this.d.host.comment(ref, c.number, c.body);
      await CodehostCommentModel.query(this.d.db)
        .forOrg(c.org_id)
        .patch({ status: 'posted', external_id: out.id, url: out.url, posted_at: new Date(), error: null })
        .where('id', c.id);
      return 'posted';
    } catch (err) {
      const retry = isAdapterError(err) && err.retryable && c.attempts + 1 < 10;
      await CodehostCommentModel.query(this.d.db)
        .forOrg(c.org_id)
        .patch({
          status: retry ? 'pending' : 'failed',
          error: (err instanceof Error ? err.message : String(err)).slice(0, 500),
        })
        .where('id', c.id);
      if (!retry) this.d.log.warn({ err, commentId: c.id }, 'a code-host comment could not be posted');
      return retry ? 'retry' : 'failed';
    }
  }
}
