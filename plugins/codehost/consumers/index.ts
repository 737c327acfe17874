/**
 * Bus consumers of the code-host plugin:
 * - `webhooks` (codehost.webhook_received): what a delivery changes, in the consumer's transaction
 *   (idempotent through the inbox).
 * - `index` (codehost.repository_connected, codehost.index_requested): rebuilds a code index; git
 *   work runs outside any transaction and a rebuild of the same commit is a no-op.
 * - `replies` (drafts.sent): a reply sent on a code-host ticket becomes a comment on its issue or
 *   pull request, within oss_comments_per_hour.
 * - `auto-close` (tickets.closed): closes the issue when the workspace has oss_auto_close_issues.
 */
import type { PluginContext } from '../../../core/kernel/plugin.js';
import { CodehostItemModel } from '../models/index.js';
import type { CodeIndexService } from '../services/code-index.js';
import type { CommentService } from '../services/comments.js';
import type { CodehostDeps } from '../services/deps.js';
import type { EventHandler } from '../services/events.js';
import type { RepositoryService } from '../services/repositories.js';

interface Services {
  deps: CodehostDeps;
  events: EventHandler;
  codeIndex: CodeIndexService;
  comments: CommentService;
  repositories: RepositoryService;
}

const CLOSED_AS_DONE = new Set(['resolved', 'answered']);

export function registerConsumers(ctx: PluginContext<unknown>, s: Services): void {
  ctx.consume('webhooks', ['codehost.webhook_received'], async (message, scope) => {
    const trx = scope.cradle.trx;
    const p = message.payload as { host: string; delivery_id: string };
    const outcome = await s.events.handle(trx, p);
    s.deps.log.debug({ delivery: p.delivery_id, outcome }, 'code-host webhook handled');
  });

  ctx.consume(
    'index',
    ['codehost.repository_connected', 'codehost.index_requested'],
    async (message) => {
      const p = message.payload as { repository_id: string };
      if (!message.orgId) return;
      await s.codeIndex.build(message.orgId, p.repository_id);
    },
    { idempotent: false },
  );

  ctx.consume(
    'replies',
    ['drafts.sent'],
    async (message) => {
      const p = message.payload as { ticket_id: string; draft_id: string; message_id: string };
      const orgId = message.orgId;
      const tickets = s.deps.tickets();
      if (!orgId || !tickets) return;
      const item = await CodehostItemModel.query(s.deps.db)
        .forOrg(orgId)
        .where({ ticket_id: p.ticket_id })
        .limit(1)
        .first();
      if (!item) return;
      const detail = await tickets.detail(orgId, p.ticket_id);
      const sent = ((detail.messages ?? []) as Array<{ id: string; body_text?: string | null }>).find(
        (m) => m.id === p.message_id,
      );
      if (!sent?.body_text) return;
      await s.deps.db.transaction((trx) =>
        s.comments.enqueue(trx, {
          orgId,
          workspaceId: item.workspace_id,
          repositoryId: item.repository_id,
          number: item.number,
          ticketId: p.ticket_id,
          source: `draft:${p.draft_id}`,
          body: sent.body_text!,
        }),
      );
      await s.comments.flush();
    },
    { idempotent: false },
  );

  ctx.consume(
    'auto-close',
    ['tickets.closed'],
    async (message) => {
      const p = message.payload as { ticket_id: string; workspace_id: string; reason: string };
      const orgId = message.orgId;
      if (!orgId) return;
      const item = await CodehostItemModel.query(s.deps.db)
        .forOrg(orgId)
        .where({ ticket_id: p.ticket_id, kind: 'issue', state: 'open' })
        .limit(1)
        .first();
      if (!item) return;
      const ws = await s.deps.workspaces().get(orgId, item.workspace_id);
      if (!ws.oss_auto_close_issues) return;
      const ref = await s.repositories.ref(orgId, item.repository_id);
      await s.deps.host.closeIssue(ref, item.number, CLOSED_AS_DONE.has(p.reason) ? 'completed' : 'not_planned');
      await s.deps.db.transaction(async (trx) => {
        await CodehostItemModel.query(trx)
          .forOrg(orgId)
          .patch({ state: 'closed', closed_by_service_at: new Date() })
          .where('id', item.id);
        await s.deps.outbox.add(
          trx,
          'codehost.issue_closed',
          { ticket_id: p.ticket_id, repository_id: item.repository_id, number: item.number, reason: p.reason },
          { orgId },
        );
      });
    },
    { idempotent: false },
  );
}
