import type { AwilixContainer } from 'awilix';
import type { Knex } from 'knex';
import { paginate, type Page, type SortKey } from '../../../core/http/pagination.js';
import { TicketDraft } from '../models/index.js';
import { draftOut } from './serialize.js';

/**
 * The ticket page: what GET /v1/tickets/{id} (and every operation answering a Ticket) carries
 * beside the conversation. Each key is filled by the plugin that owns its records, through a
 * section registered in the container under `ticketPageSection:<plugin>` (docs/tickets.md,
 * "The ticket page"). A key no enabled plugin fills is null.
 */
export const TICKET_PAGE_KEYS = ['diagnosis', 'drafts', 'fixes', 'release', 'audit', 'jobs'] as const;
export type TicketPageKey = (typeof TICKET_PAGE_KEYS)[number];

/** Container keys of sections start with this (`ticketPageSection:fixes`). */
export const TICKET_PAGE_SECTION_PREFIX = 'ticketPageSection:';

/** How many rows the page carries of a list that can grow (the rest through its list operation). */
export const PAGE_LIST_LIMIT = 50;

/** A record of the ticket an audit entry can name as its target (`draft`, `fix_attempt`, `release` …). */
export interface TicketRecordRef {
  type: string;
  id: string;
}

export interface TicketPageInput {
  /** Every query of the section runs on it: the caller's transaction, or the pool. */
  db: Knex;
  ticket: { id: string; org_id: string; workspace_id: string };
  /** For sections that run `after`: the records the other sections reported (the audit section reads their entries). */
  related: readonly TicketRecordRef[];
}

export interface TicketPagePart {
  /** Values of the section's keys, as the Ticket schema declares them. */
  fields: Partial<Record<TicketPageKey, unknown>>;
  /** The ticket's records this section holds, for `after` sections. */
  related?: TicketRecordRef[];
}

/**
 * One plugin's part of the page. `load` reads one ticket's part in a constant number of queries
 * (never one per attempt, draft or message) and only through `input.db`.
 */
export interface TicketPageSection {
  readonly keys: readonly TicketPageKey[];
  /** Runs once the other sections are loaded, with the records they reported. */
  readonly after?: boolean;
  load(input: TicketPageInput): Promise<TicketPagePart>;
}

/**
 * The page's sections, read from the container at first use: plugins register in any order
 * (the audit plugin registers before tickets), and all have registered by the first request.
 */
export class TicketPage {
  private cached: TicketPageSection[] | null = null;

  constructor(private readonly container: AwilixContainer) {}

  private sections(): TicketPageSection[] {
    if (!this.cached) {
      this.cached = Object.keys(this.container.registrations)
        .filter((k) => k.startsWith(TICKET_PAGE_SECTION_PREFIX))
        .sort()
        .map((k) => this.container.resolve<TicketPageSection>(k));
    }
    return this.cached;
  }

  /** The page keys of one ticket: two rounds (sections, then `after` sections), each run together. */
  async load(db: Knex, ticket: TicketPageInput['ticket']): Promise<Record<TicketPageKey, unknown>> {
    const out = Object.fromEntries(TICKET_PAGE_KEYS.map((k) => [k, null])) as Record<TicketPageKey, unknown>;
    const sections = this.sections();
    const first = await Promise.all(sections.filter((s) => !s.after).map((s) => s.load({ db, ticket, related: [] })));
    const related = first.flatMap((p) => p.related ?? []);
    const second = await Promise.all(sections.filter((s) => s.after).map((s) => s.load({ db, ticket, related })));
    for (const part of [...first, ...second]) Object.assign(out, part.fields);
    return out;
  }
}

/** Drafts newest first: the page's first page and GET /v1/tickets/{id}/drafts share the keys, so the page's next_cursor continues the list. */
const DRAFT_KEYS: SortKey[] = [
  { column: 'ticket_drafts.created_at', direction: 'desc', type: 'date' },
  { column: 'ticket_drafts.id', direction: 'desc', type: 'string' },
];

/** A page of a ticket's drafts (the caller checked access to the ticket). */
export async function listDrafts(
  db: Knex,
  orgId: string,
  ticketId: string,
  q: { cursor?: string | null; limit?: number },
): Promise<Page<Record<string, unknown>>> {
  const query = TicketDraft.query(db)
    .forOrg(orgId)
    .where('ticket_drafts.ticket_id', ticketId)
    .select('ticket_drafts.*');
  const page = await paginate<Record<string, unknown>>(query.toKnexQuery(), DRAFT_KEYS, q);
  return {
    items: page.items.map((r) => draftOut(TicketDraft.fromDatabaseJson(r))),
    next_cursor: page.next_cursor,
  };
}

/** The tickets plugin's own section: `drafts`, the newest PAGE_LIST_LIMIT with the total, in one query. */
export const draftsSection: TicketPageSection = {
  keys: ['drafts'],
  async load({ db, ticket }) {
    const query = TicketDraft.query(db)
      .forOrg(ticket.org_id)
      .where('ticket_drafts.ticket_id', ticket.id)
      .select('ticket_drafts.*', db.raw('count(*) over () as _total'));
    const page = await paginate<Record<string, unknown>>(query.toKnexQuery(), DRAFT_KEYS, { limit: PAGE_LIST_LIMIT });
    const total = page.items.length ? Number(page.items[0]._total) : 0;
    const items = page.items.map(({ _total, ...r }) => TicketDraft.fromDatabaseJson(r));
    return {
      fields: { drafts: { items: items.map(draftOut), next_cursor: page.next_cursor, total } },
      related: items.map((d) => ({ type: 'draft', id: d.id })),
    };
  },
};
