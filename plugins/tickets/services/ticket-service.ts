import type { Knex } from 'knex';
import type { OutboxEvent } from '../../../core/bus/outbox.js';
import { newId } from '../../../core/data/ids.js';
import { WriteBatch } from '../../../core/data/write-batch.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { forbidden, notFound } from '../../../core/http/errors.js';
import { run } from '../../../core/data/statements.js';
import type { Page } from '../../../core/http/pagination.js';
import { hashToken, newToken } from '../../../core/security/tokens.js';
import { FILE_META_COLUMNS, TICKET_COLUMNS, Ticket, TicketFile, TicketMessage } from '../models/index.js';
import type { TicketsDeps, TicketWorkspace } from './deps.js';
import { ticketDetail } from './serialize.js';
import { listDrafts, type TicketPage } from './ticket-page.js';
import { slaDueAt } from './sla.js';
import type { CountQuery, CreateTicketInput, InboundMessageInput, ListQuery, TicketCounts } from './ticket-inputs.js';
import {
  countStatement,
  listStatement,
  nextCursor,
  pageItems,
  pageJson,
  type CountRow,
  type ListRow,
} from './ticket-list.js';
import { inboundMessageRows, statusContext, ticketRow, type StatusTokenColumns } from './ticket-rows.js';
import { TICKET_STATES, needsTeamActionIn, nextState, type TicketEvent, type TicketState } from './state-machine.js';

/**
 * Tickets: intake (createTicket, addInboundMessage) for the channel plugins, the state machine
 * applied with its side effects (SLA, needs_team_action, events), access-checked reads, and the
 * public status link.
 */
export class TicketService {
  constructor(
    private readonly deps: TicketsDeps,
    private readonly page: TicketPage,
  ) {}

  // ---- intake (inbox, widget, code host, proactive)

  /**
   * Opens a ticket (state received) with its opening message, files and events, written as one
   * statement (WriteBatch) in `trx`, which may be the pool: nothing is read back. With
   * `opts.batch`, the rows join the caller's batch instead and the caller runs it (the inbox
   * writes its log row in the same statement).
   */
  async createTicket(trx: Knex, input: CreateTicketInput, opts: { batch?: WriteBatch } = {}): Promise<Ticket> {
    const given = input.workspace;
    if (given && (given.id !== input.workspaceId || given.org_id !== input.orgId))
      throw new TypeError("createTicket: the workspace given is not the ticket's");
    const ws = given ?? (await this.deps.workspaceService.get(input.orgId, input.workspaceId, trx));
    const id = newId(Ticket.idPrefix);
    const now = input.message?.receivedAt ?? new Date();
    const row = ticketRow(id, input, ws, now, this.newStatusToken(id));
    const batch = opts.batch ?? new WriteBatch();
    batch.insert(Ticket, [row]);
    const ticket = Ticket.fromDatabaseJson(row);
    const created = {
      type: 'tickets.created',
      payload: { ticket_id: id, workspace_id: ws.id, origin: input.origin, state: 'received' },
      orgId: input.orgId,
    };
    if (input.message)
      this.queueInboundMessage(batch, ticket, { ...input.message, receivedAt: now, orgId: input.orgId, ticketId: id }, [
        created,
      ]);
    else this.deps.outbox.queue(batch, [created]);
    if (!opts.batch) await batch.run(trx);
    return ticket;
  }

  /**
   * Adds a customer's message to a ticket: counters, the customer's clock, files, and the
   * `customer_replied` transition (a waiting ticket goes back to triage; a closed one reopens,
   * except one closed as spam).
   */
  async addInboundMessage(trx: Knex, input: InboundMessageInput): Promise<TicketMessage> {
    const ticket = await Ticket.query(trx).forOrg(input.orgId).findById(input.ticketId).forUpdate();
    if (!ticket) throw notFound('ticket');
    const batch = new WriteBatch();
    const message = this.queueInboundMessage(batch, ticket, input);
    await batch.run(trx);
    const at = message.created_at;
    const counters = { message_count: ticket.message_count + 1, last_message_at: at, last_customer_message_at: at };
    if (ticket.state === 'closed' && ticket.close_reason === 'spam') {
      await Ticket.query(trx).forOrg(ticket.org_id).patch(counters).where('id', ticket.id);
    } else {
      const reopening = ticket.state === 'closed';
      const patch: Partial<Ticket> = reopening
        ? {
            ...counters,
            reopened_count: ticket.reopened_count + 1,
            closed_at: null,
            close_reason: null,
            duplicate_of_ticket_id: null,
            sla_started_at: at,
          }
        : counters;
      await this.transition(trx, ticket, 'customer_replied', patch);
      if (reopening)
        await this.deps.outbox.add(
          trx,
          'tickets.reopened',
          {
            ticket_id: ticket.id,
            workspace_id: ticket.workspace_id,
            by: 'customer',
            reopened_count: ticket.reopened_count + 1,
          },
          { orgId: ticket.org_id },
        );
    }
    return message;
  }

  /**
   * Queues the message row, its files and `tickets.message_received` (after `before`: a new
   * ticket's tickets.created) into `batch`; the caller keeps the ticket's counters.
   */
  private queueInboundMessage(
    batch: WriteBatch,
    ticket: Ticket,
    input: InboundMessageInput,
    before: OutboxEvent[] = [],
  ): TicketMessage {
    const { row, files } = inboundMessageRows(ticket, input, input.receivedAt ?? new Date());
    const messageId = row.id;
    batch.insert(TicketMessage, [row]);
    batch.insert(TicketFile, files);
    this.deps.outbox.queue(batch, [
      ...before,
      {
        type: 'tickets.message_received',
        payload: { ticket_id: ticket.id, workspace_id: ticket.workspace_id, message_id: messageId },
        orgId: ticket.org_id,
      },
    ]);
    return TicketMessage.fromDatabaseJson(row);
  }

  /** The ticket a per-ticket reply address points at (`…+t_<token>@…`), any organization. */
  async findByReplyToken(trx: Knex, token: string): Promise<Ticket | undefined> {
    return Ticket.query(trx)
      .acrossOrgs('reply address routing')
      .where({ reply_token: token.toLowerCase() })
      .limit(1)
      .first();
  }

  /** The ticket of a workspace whose conversation holds one of these Message-IDs (threading). */
  async findByEmailMessageIds(
    trx: Knex,
    orgId: string,
    workspaceId: string,
    messageIds: string[],
  ): Promise<Ticket | undefined> {
    if (messageIds.length === 0) return undefined;
    const hit = await TicketMessage.query(trx)
      .forOrg(orgId)
      .where({ workspace_id: workspaceId })
      .whereIn('email_message_id', messageIds)
      .orderBy('created_at', 'desc')
      .select('ticket_id')
      .limit(1)
      .first();
    return hit ? Ticket.query(trx).forOrg(orgId).findById(hit.ticket_id) : undefined;
  }

  /**
   * Delivery news of outgoing messages (the inbox's delivery events and bounces): by the mail
   * plugin's ids, or by Message-ID within an organization. A bounce or complaint is final (a
   * later `delivered` does not undo it); a message that did not reach the customer puts the ticket
   * back on the team's list (needs_team_action). Returns the ids of the messages changed.
   */
  async setDeliveryStatus(
    trx: Knex,
    where: { mailMessageIds: string[] } | { orgId: string; emailMessageIds: string[] },
    status: 'delivered' | 'bounced' | 'complained' | 'failed',
  ): Promise<string[]> {
    const q =
      'mailMessageIds' in where
        ? TicketMessage.query(trx)
            .acrossOrgs('delivery events by mail id')
            .whereIn('mail_message_id', where.mailMessageIds.length ? where.mailMessageIds : [''])
        : TicketMessage.query(trx)
            .forOrg(where.orgId)
            .whereIn('email_message_id', where.emailMessageIds.length ? where.emailMessageIds : ['']);
    q.where('direction', 'out').where('is_internal_note', false);
    if (status === 'delivered')
      q.where((w) => w.whereNull('delivery_status').orWhereIn('delivery_status', ['queued', 'sent']));
    else q.where((w) => w.whereNull('delivery_status').orWhereNot('delivery_status', status));
    const changed = (await q
      .patch({ delivery_status: status })
      .returning(['id', 'org_id', 'ticket_id'])) as unknown as { id: string; org_id: string; ticket_id: string }[];
    if (status !== 'delivered') {
      for (const m of changed)
        await Ticket.query(trx).forOrg(m.org_id).patch({ needs_team_action: true }).where('id', m.ticket_id);
    }
    for (const m of changed) {
      await this.deps.outbox.add(
        trx,
        'tickets.delivery_status_changed',
        { ticket_id: m.ticket_id, message_id: m.id, status },
        { orgId: m.org_id },
      );
    }
    return changed.map((m) => m.id);
  }

  // ---- state machine

  /**
   * Applies an event of the state machine (409 invalid_transition when the current state does
   * not allow it) with `patch`, recomputes needs_team_action and the SLA due time, and announces
   * a change of state (`tickets.state_changed`). The fixes plugin moves tickets through this.
   */
  async transition(
    trx: Knex,
    ticket: Ticket,
    event: TicketEvent,
    patch: Partial<Ticket> = {},
    ws?: TicketWorkspace,
  ): Promise<Ticket> {
    const from = ticket.state;
    const to = nextState(from, event);
    const workspace = ws ?? (await this.deps.workspaceService.get(ticket.org_id, ticket.workspace_id, trx));
    const merged = { ...ticket, ...patch, state: to } as Ticket;
    const full: Partial<Ticket> = {
      ...patch,
      state: to,
      needs_team_action: patch.needs_team_action ?? needsTeamActionIn(to),
      sla_due_at: slaDueAt(merged, workspace),
    };
    const updated = await Ticket.query(trx).forOrg(ticket.org_id).patchAndFetchById(ticket.id, full);
    if (from !== to) {
      await this.deps.outbox.add(
        trx,
        'tickets.state_changed',
        { ticket_id: ticket.id, workspace_id: ticket.workspace_id, from, to, event },
        { orgId: ticket.org_id },
      );
    }
    return updated;
  }

  /** Updates fields that do not move the state, keeping the SLA due time in step. */
  async update(trx: Knex, ticket: Ticket, patch: Partial<Ticket>, ws?: TicketWorkspace): Promise<Ticket> {
    const workspace = ws ?? (await this.deps.workspaceService.get(ticket.org_id, ticket.workspace_id, trx));
    const merged = { ...ticket, ...patch } as Ticket;
    return Ticket.query(trx)
      .forOrg(ticket.org_id)
      .patchAndFetchById(ticket.id, { ...patch, sla_due_at: slaDueAt(merged, workspace) });
  }

  // ---- reads

  /** The ticket, when the caller may open its workspace: 404 (unknown, another organization), 403. */
  async load(principal: Principal, id: string, trx?: Knex, opts: { forUpdate?: boolean } = {}): Promise<Ticket> {
    const q = Ticket.query(trx ?? this.deps.db)
      .forOrg(principal.orgId)
      .findById(id)
      .select(TICKET_COLUMNS);
    if (opts.forUpdate) q.forUpdate();
    const ticket = await q;
    if (!ticket) throw notFound('ticket');
    if (!canOpenWorkspace(principal, ticket.workspace_id)) throw forbidden("You cannot open this ticket's workspace");
    return ticket;
  }

  async mustGet(trx: Knex, orgId: string, id: string): Promise<Ticket> {
    const ticket = await Ticket.query(trx).forOrg(orgId).findById(id).select(TICKET_COLUMNS);
    if (!ticket) throw notFound('ticket');
    return ticket;
  }

  /** A page of the list as TicketPage JSON text: what GET /v1/tickets sends (items kept as JSON, never parsed here). */
  async listJson(principal: Principal, query: ListQuery): Promise<string> {
    return pageJson(await this.listRows(principal, query), query.limit);
  }

  /** A page of the list as objects, for callers that read the items (the MCP server). */
  async list(principal: Principal, query: ListQuery): Promise<Page<Record<string, unknown>>> {
    const rows = await this.listRows(principal, query);
    return { items: pageItems(rows, query.limit), next_cursor: nextCursor(rows, query.limit) };
  }

  /**
   * How many tickets the list's filters match, per state and waiting for the team, over the
   * workspaces the caller can open (the list's own access rules and conditions: ticketWhere).
   */
  async counts(principal: Principal, query: CountQuery): Promise<TicketCounts> {
    if (query.workspace_id && !canOpenWorkspace(principal, query.workspace_id))
      await this.deps.workspaceService.open(principal, query.workspace_id);
    const by_state = Object.fromEntries(TICKET_STATES.map((s) => [s, 0])) as Record<TicketState, number>;
    const out: TicketCounts = { by_state, needs_team_action: 0, total: 0 };
    const counts = countStatement(principal, query);
    if (!counts) return out;
    for (const row of await run<CountRow>(this.deps.db, counts.stmt, counts.values)) {
      const n = Number(row.n);
      if (row.key === 'needs_team_action') out.needs_team_action = n;
      else if (row.key in by_state) {
        by_state[row.key as TicketState] = n;
        out.total += n;
      }
    }
    // As the list: an unknown workspace id is 404, read only when nothing was counted.
    if (query.workspace_id && out.total === 0) await this.deps.workspaceService.open(principal, query.workspace_id);
    return out;
  }

  /** The rows of a page: `limit + 1` at most (the extra one says a next page exists). */
  private async listRows(principal: Principal, query: ListQuery): Promise<ListRow[]> {
    // 403 or 404 before anything is read when the caller may not open the workspace; one the caller
    // may open is proven to exist by any ticket of the page (joined within the organization), so
    // it is read only for an empty page (404 for an unknown id): one statement less per page.
    if (query.workspace_id && !canOpenWorkspace(principal, query.workspace_id))
      await this.deps.workspaceService.open(principal, query.workspace_id);
    const page = listStatement(principal, query);
    if (!page) return [];
    const rows = await run<ListRow>(this.deps.db, page.stmt, page.values);
    if (query.workspace_id && rows.length === 0) await this.deps.workspaceService.open(principal, query.workspace_id);
    return rows;
  }

  /** The Ticket answer: the ticket with its conversation (notes included), files and the page's sections. */
  async detail(orgId: string, id: string, trx?: Knex): Promise<Record<string, unknown>> {
    return this.detailOf(await this.mustGet(trx ?? this.deps.db, orgId, id), trx);
  }

  /**
   * The Ticket answer of a ticket just read (GET /v1/tickets/{id} loads it for the access check):
   * a constant number of queries whatever the number of messages, drafts, attempts or jobs
   * (docs/tickets.md, "The ticket page"), all on `trx` when given.
   */
  async detailOf(ticket: Ticket, trx?: Knex): Promise<Record<string, unknown>> {
    const db = trx ?? this.deps.db;
    const { org_id: orgId, id } = ticket;
    const [ws, messages, files, page] = await Promise.all([
      this.deps.workspaceService.get(orgId, ticket.workspace_id, db),
      TicketMessage.query(db)
        .forOrg(orgId)
        .where({ ticket_id: id })
        .orderBy([{ column: 'created_at' }, { column: 'id' }]),
      TicketFile.query(db).forOrg(orgId).where({ ticket_id: id }).select(FILE_META_COLUMNS).orderBy('created_at'),
      this.page.load(db, ticket),
    ]);
    return ticketDetail(ticket, ws, messages, files, this.deps.fileLinks, this.statusUrl(ticket), page);
  }

  /** GET /v1/tickets/{id}/drafts: the ticket's drafts, newest first (keyset; the page's drafts.next_cursor continues it). */
  async listDrafts(
    principal: Principal,
    id: string,
    q: { cursor?: string; limit?: number },
  ): Promise<Page<Record<string, unknown>>> {
    const ticket = await this.load(principal, id);
    return listDrafts(this.deps.db, ticket.org_id, ticket.id, q);
  }

  // ---- status page link

  statusUrl(ticket: Ticket): string {
    const token = this.deps.secretBox.decrypt(ticket.public_token_sealed, statusContext(ticket.id));
    return `${this.deps.config.server.publicBaseUrl.replace(/\/+$/, '')}/status/${token}`;
  }

  /** A new status token (the old URL answers 404 from now on). */
  newStatusToken(ticketId: string): StatusTokenColumns {
    const status = newToken('st');
    return {
      public_token_hash: status.hash,
      public_token_sealed: this.deps.secretBox.encrypt(status.token, statusContext(ticketId)),
      public_token_revoked_at: null,
    };
  }

  /** The ticket behind a live status token (any organization), or undefined. */
  async findByStatusToken(token: string): Promise<Ticket | undefined> {
    if (!/^st_[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
    return Ticket.query(this.deps.db)
      .acrossOrgs('public status page by token')
      .where({ public_token_hash: hashToken(token) })
      .whereNull('public_token_revoked_at')
      .limit(1)
      .first();
  }
}

export type { TicketState };
