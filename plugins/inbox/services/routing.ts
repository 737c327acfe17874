import type { Knex } from 'knex';
import { EmailDomain } from '../models/index.js';
import type { InboxWorkspace, TicketPort, TicketRef, WorkspacePort } from './deps.js';

/** Where one envelope recipient leads. */
export interface InboundRoute {
  workspace: InboxWorkspace;
  /** The ticket of a per-ticket reply address (`…+t_<token>@…`) of this workspace. */
  ticket: TicketRef | null;
  via: 'inbound_address' | 'reply_address' | 'receiving_domain';
}

const REPLY_TOKEN = /^(.+)\+t_([a-z0-9]{16})$/i;

/**
 * Routes an envelope recipient to its workspace: the workspace's inbound address, a per-ticket
 * reply address built on it, or any address at a receiving domain registered for the workspace.
 */
export class InboundRouter {
  constructor(
    private readonly db: Knex,
    private readonly workspaces: WorkspacePort,
    private readonly tickets: () => TicketPort,
  ) {}

  async route(recipient: string): Promise<InboundRoute | null> {
    const address = recipient.trim().toLowerCase();
    const at = address.lastIndexOf('@');
    if (at <= 0) return null;
    const local = address.slice(0, at);
    const domain = address.slice(at + 1);
    const token = REPLY_TOKEN.exec(local);
    const base = token ? `${token[1]}@${domain}` : address;

    let workspace = await this.workspaces.findByInboundAddress(base);
    let via: InboundRoute['via'] = 'inbound_address';
    if (!workspace) {
      workspace = await this.byReceivingDomain(domain);
      via = 'receiving_domain';
    }
    if (!workspace) return null;
    let ticket: TicketRef | null = null;
    if (token) {
      const found = await this.tickets().findByReplyToken(this.db, token[2]);
      // A token of another workspace's ticket is ignored: the address's workspace decides.
      if (found && found.workspace_id === workspace.id && found.org_id === workspace.org_id) {
        ticket = found;
        via = 'reply_address';
      }
    }
    return { workspace, ticket, via };
  }

  private async byReceivingDomain(domain: string): Promise<InboxWorkspace | undefined> {
    const row = await EmailDomain.query(this.db)
      .acrossOrgs('inbound mail routing by receiving domain')
      .where({ purpose: 'receiving' })
      .whereRaw('lower(name) = ?', [domain])
      .whereNotNull('workspace_id')
      .select('org_id', 'workspace_id')
      .limit(1)
      .first();
    if (!row?.workspace_id) return undefined;
    return this.workspaces.get(row.org_id, row.workspace_id).catch(() => undefined);
  }
}
