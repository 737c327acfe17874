import type { FixesDeps, LoopTicket } from './deps.js';
import { systemActor } from '../../../core/contracts/index.js';

/** How often the scheduler looks for resolved tickets to close (auto_close_days). */
export const AUTO_CLOSE_EVERY_MS = 15 * 60_000;
const DAY_MS = 86_400_000;

/** Closes resolved tickets after their workspace's auto_close_days (run by the fixes plugin's schedule). */
export class ReleaseAutoClose {
  constructor(private readonly d: FixesDeps) {}

  /**
   * Closes tickets resolved (customer_notified) more than their workspace's auto_close_days ago
   * (0 or unset: never), through the tickets service: reason `resolved`, audited as system,
   * `tickets.closed` as the close operation emits it. Answers how many were closed.
   */
  async autoClose(now = new Date()): Promise<number> {
    const due: Array<{
      id: string;
      org_id: string;
      auto_close_days: number;
    }> = await this.d
      .db('tickets')
      .join('workspaces', 'workspaces.id', 'tickets.workspace_id')
      .where('tickets.state', 'customer_notified')
      .where('workspaces.auto_close_days', '>', 0)
      .whereNotNull('tickets.released_at')
      .whereRaw('tickets.released_at < ?::timestamptz - make_interval(days => workspaces.auto_close_days)', [
        now.toISOString(),
      ])
      .orderBy('tickets.released_at')
      .limit(500)
      .select('tickets.id', 'tickets.org_id', 'workspaces.auto_close_days');
    let closed = 0;
    for (const row of due) {
      const done = await this.d.db.transaction(async (trx) => {
        const ticket = (await this.d.tickets.mustGet(trx, row.org_id, row.id)) as LoopTicket & {
          released_at: Date | null;
        };
        if (
          ticket.state !== 'customer_notified' ||
          !ticket.released_at ||
          now.getTime() - new Date(ticket.released_at).getTime() <= row.auto_close_days * DAY_MS
        )
          return false;
        await this.d.tickets.transition(trx, ticket, 'close', { closed_at: now, close_reason: 'resolved' });
        await this.d.audit.record(trx, {
          orgId: row.org_id,
          actor: systemActor('fixes', row.org_id),
          action: 'ticket.closed',
          target: { type: 'ticket', id: ticket.id },
          workspaceId: ticket.workspace_id,
          changes: { state: { before: ticket.state, after: 'closed' } },
          metadata: { reason: 'resolved', auto_close_days: row.auto_close_days },
        });
        await this.d.outbox.add(
          trx,
          'tickets.closed',
          {
            ticket_id: ticket.id,
            workspace_id: ticket.workspace_id,
            reason: 'resolved',
            duplicate_of_ticket_id: null,
            by: 'auto_close',
          },
          { orgId: row.org_id },
        );
        return true;
      });
      if (done) closed++;
    }
    return closed;
  }
}
