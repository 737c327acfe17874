import type { Knex } from 'knex';
import { notFound } from '../../../core/http/errors.js';
import type { PrivacyDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { byTable, columnsOf } from './schema.js';

/**
 * Deletes a ticket for good: its messages, drafts, subscribers and files (foreign keys cascade),
 * the rows of every other table that point at it by `ticket_id` (jobs of the fix loop, inbound
 * email log, whatever later plugins add), the emails sent about it, and with the ticket its public
 * status page (the page is the ticket's, looked up by its token). Duplicates pointing at it are
 * detached. Audited, with an event other plugins can react to.
 */
export class TicketDeletionService {
  constructor(private readonly d: PrivacyDeps) {}

  async delete(actor: SignedInActor, ticketId: string): Promise<Record<string, number>> {
    const cols = byTable(await columnsOf(this.d.db));
    return this.d.db.transaction(async (trx) => {
      const ticket: { id: string; workspace_id: string; state: string } | undefined = await trx('tickets')
        .where({ id: ticketId, org_id: actor.orgId })
        .forUpdate()
        .first('id', 'workspace_id', 'state');
      if (!ticket) throw notFound('ticket');
      const counts: Record<string, number> = {};
      const tables = [...cols]
        .filter(
          ([t, c]) =>
            t !== 'tickets' && c.some((x) => x.column === 'org_id') && c.some((x) => x.column === 'ticket_id'),
        )
        .map(([t]) => t);
      Object.assign(
        counts,
        await deleteInAnyOrder(trx, tables, (q) => q.where({ org_id: actor.orgId, ticket_id: ticket.id })),
      );
      if (cols.get('mail_messages')?.some((c) => c.column === 'ticket_ref'))
        counts.mail_messages = (
          (await trx('mail_messages')
            .where({ org_id: actor.orgId, ticket_ref: ticket.id })
            .delete()
            .returning('org_id')) as unknown[]
        ).length;
      await trx('tickets')
        .where({ org_id: actor.orgId, duplicate_of_ticket_id: ticket.id })
        .update({ duplicate_of_ticket_id: null });
      counts.tickets = (
        (await trx('tickets').where({ id: ticket.id, org_id: actor.orgId }).delete().returning('id')) as unknown[]
      ).length;
      for (const k of Object.keys(counts)) if (!counts[k]) delete counts[k];
      await this.d.audit.record(trx, {
        actor,
        action: 'ticket.deleted',
        target: { type: 'ticket', id: ticket.id },
        workspaceId: ticket.workspace_id,
        metadata: { state: ticket.state, counts },
      });
      await this.d.outbox.add(
        trx,
        'privacy.ticket_deleted',
        { org_id: actor.orgId, workspace_id: ticket.workspace_id, ticket_id: ticket.id },
        { orgId: actor.orgId },
      );
      return counts;
    });
  }
}

/**
 * Deletes the matching rows of each table, in whatever order the foreign keys allow: a delete
 * that another table's rows still block is rolled back to its savepoint and tried again after
 * the others. Used by ticket deletion and the closure purge, which meet tables added later.
 */
export async function deleteInAnyOrder(
  trx: Knex.Transaction,
  tables: string[],
  where: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let pending = [...tables];
  for (let pass = 0; pending.length && pass < 8; pass++) {
    const blocked: string[] = [];
    for (const table of pending) {
      try {
        const n = await trx.transaction(
          async (sp): Promise<number> => ((await where(sp(table)).delete().returning('org_id')) as unknown[]).length,
        );
        counts[table] = (counts[table] ?? 0) + n;
      } catch (err) {
        if ((err as { code?: string }).code !== '23503') throw err; // foreign_key_violation
        blocked.push(table);
      }
    }
    if (blocked.length === pending.length)
      throw new Error(`cannot delete from ${blocked.join(', ')}: rows elsewhere still point at them`);
    pending = blocked;
  }
  return counts;
}
