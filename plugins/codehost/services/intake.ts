/**
 * Issues and pull requests become tickets (origin codehost) when the workspace's open-source
 * settings say so; comments on them join the ticket. Runs inside the webhook consumer's
 * transaction, so a redelivered message changes nothing twice.
 */
import type { Knex } from 'knex';
import { CodehostItemModel, type RepositoryModel } from '../models/index.js';
import type { CodehostDeps } from './deps.js';
import type { OssService, OssSettingsRow } from './oss.js';
import type { HostAccount, HostComment, HostItem, WebhookPayload } from './payload.js';

const OPENING = new Set(['opened', 'reopened', 'labeled', 'ready_for_review']);

export function isBot(user: HostAccount | null | undefined): boolean {
  if (!user) return false;
  return user.type === 'Bot' || (typeof user.login === 'string' && user.login.endsWith('[bot]'));
}

/** Why an item does (null) or does not become a ticket. */
export function intakeRefusal(
  s: OssSettingsRow,
  kind: 'issue' | 'pull_request',
  action: string,
  item: HostItem,
  extra: { addedLabel?: string | null; ownBranchPrefix: string },
): string | null {
  if (!s.enabled) return 'oss_disabled';
  if (kind === 'issue' && !s.issues) return 'issues_off';
  if (kind === 'pull_request' && !s.pull_requests) return 'pull_requests_off';
  if (item.state && item.state !== 'open') return 'closed';
  const labels = labelNames(item);
  if (labels.includes(s.opt_out_label)) return 'opted_out';
  if (s.intake === 'opt_in' && !labels.includes(s.opt_in_label)) return 'not_opted_in';
  if (action === 'labeled' && extra.addedLabel !== s.opt_in_label) return 'label_not_intake';
  if (s.ignore_bots && isBot(item.user)) return 'bot';
  if (kind === 'pull_request' && typeof item.head?.ref === 'string' && item.head.ref.startsWith(extra.ownBranchPrefix))
    return 'own_pull_request';
  if (kind === 'pull_request' && item.draft) return 'draft';
  return null;
}

export const labelNames = (item: HostItem): string[] =>
  (item.labels ?? []).map((l) => (typeof l === 'string' ? l : String(l.name)));

export class IntakeService {
  constructor(
    private readonly d: CodehostDeps,
    private readonly oss: () => OssService,
  ) {}

  /** An issue or pull request event on a connected repository. Answers the outcome. */
  async item(
    trx: Knex,
    repo: RepositoryModel,
    kind: 'issue' | 'pull_request',
    action: string,
    payload: WebhookPayload,
  ): Promise<string> {
    const item = kind === 'issue' ? payload.issue : payload.pull_request;
    if (!item || typeof item.number !== 'number') return 'no_item';
    const existing = await CodehostItemModel.query(trx)
      .forOrg(repo.org_id)
      .where({ repository_id: repo.id, number: item.number })
      .limit(1)
      .first();
    if (existing) {
      if (action === 'closed' || action === 'reopened') {
        await CodehostItemModel.query(trx)
          .forOrg(repo.org_id)
          .patch({ state: action === 'closed' ? 'closed' : 'open' })
          .where('id', existing.id);
        return `item_${action}`;
      }
      return 'already_followed';
    }
    if (!OPENING.has(action)) return 'ignored_action';
    const settings = await this.oss().settings(trx, repo.org_id, repo.workspace_id);
    const prefix = this.d.options.onboarding.branch.split('/')[0] + '/';
    const refusal = intakeRefusal(settings, kind, action, item, {
      addedLabel: payload.label?.name ?? null,
      ownBranchPrefix: prefix,
    });
    if (refusal) return refusal;
    const tickets = this.d.tickets();
    if (!tickets) return 'tickets_unavailable';
    if ((await this.d.workspaces().get(repo.org_id, repo.workspace_id, trx)).archived_at) return 'workspace_archived';
    const limits = this.d.planLimits();
    if (limits && !(await limits.check(trx, repo.org_id, 'tickets_per_month', { workspaceId: repo.workspace_id })).ok)
      return 'plan_limit_reached';
    const login = typeof item.user?.login === 'string' ? item.user.login : 'unknown';
    const title = String(item.title ?? `#${item.number}`);
    const ticket = await tickets.createTicket(trx, {
      orgId: repo.org_id,
      workspaceId: repo.workspace_id,
      origin: 'codehost',
      subject: title,
      externalId: typeof item.html_url === 'string' ? item.html_url : `${repo.full_name}#${item.number}`,
      customerName: login,
      customerEmail: null,
      labels: labelNames(item).slice(0, 20),
      codehostItemKind: kind,
      codehostNumber: item.number,
      // Received now (when it became a ticket): an old issue labelled today starts its SLA today.
      message: { fromName: login, subject: title, bodyText: String(item.body ?? ''), receivedAt: new Date() },
    });
    await CodehostItemModel.query(trx).insert({
      org_id: repo.org_id,
      workspace_id: repo.workspace_id,
      repository_id: repo.id,
      kind,
      number: item.number,
      ticket_id: ticket.id,
      html_url: typeof item.html_url === 'string' ? item.html_url : null,
      author_login: login,
      state: 'open',
    });
    await this.d.outbox.add(
      trx,
      'codehost.item_ticketed',
      { ticket_id: ticket.id, repository_id: repo.id, kind, number: item.number },
      { orgId: repo.org_id },
    );
    return 'ticket_opened';
  }

  /** A comment on an issue or pull request: it joins the ticket that follows the item. */
  async comment(trx: Knex, repo: RepositoryModel, action: string, payload: WebhookPayload): Promise<string> {
    if (action !== 'created') return 'ignored_action';
    const issue = payload.issue;
    const comment = payload.comment;
    if (!issue || !comment || typeof issue.number !== 'number') return 'no_item';
    const existing = await CodehostItemModel.query(trx)
      .forOrg(repo.org_id)
      .where({ repository_id: repo.id, number: issue.number })
      .limit(1)
      .first();
    if (!existing?.ticket_id) return 'not_followed';
    const ours: { id: string } | undefined = await trx('codehost_comments')
      .where({ org_id: repo.org_id, repository_id: repo.id, external_id: String(comment.id) })
      .first('id');
    if (ours) return 'own_comment';
    const settings = await this.oss().settings(trx, repo.org_id, repo.workspace_id);
    if (isBot(comment.user) && (settings.ignore_bots || this.isOwnApp(comment))) return 'bot';
    const tickets = this.d.tickets();
    if (!tickets) return 'tickets_unavailable';
    const login = typeof comment.user?.login === 'string' ? comment.user.login : 'unknown';
    const message = await tickets.addInboundMessage(trx, {
      orgId: repo.org_id,
      ticketId: existing.ticket_id,
      fromName: login,
      bodyText: String(comment.body ?? ''),
      receivedAt: comment.created_at ? new Date(comment.created_at) : new Date(),
    });
    await this.d.outbox.add(
      trx,
      'codehost.comment_received',
      { ticket_id: existing.ticket_id, repository_id: repo.id, number: issue.number, message_id: message.id },
      { orgId: repo.org_id },
    );
    return 'comment_added';
  }

  private isOwnApp(comment: HostComment): boolean {
    return typeof comment.performed_via_github_app?.slug === 'string';
  }
}
