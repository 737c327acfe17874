import type { Knex } from 'knex';
import { ERASED, type PersonalDataRegistry } from './registry.js';

/**
 * Declarations for the plugins written before the registry existed (tickets, inbox, mail). New
 * plugins declare their own tables (see registry.ts). Order matters: files of the person's
 * messages go before the messages are emptied.
 */
export function declareBuiltins(r: PersonalDataRegistry): void {
  r.declare({
    plugin: 'tickets',
    table: 'ticket_files',
    custom: async (trx: Knex.Transaction, orgId, s) => {
      if (!s.email) return 0;
      return trx('ticket_files')
        .where('org_id', orgId)
        .whereIn(
          'message_id',
          trx('ticket_messages').select('id').where('org_id', orgId).whereRaw('lower(from_address) = ?', [s.email]),
        )
        .delete()
        .returning('org_id')
        .then((rows) => rows.length);
    },
  });
  r.declare({
    plugin: 'tickets',
    table: 'ticket_messages',
    emailColumns: ['from_address'],
    onMatch: {
      set: {
        from_address: null,
        from_name: null,
        subject: null,
        body_text: ERASED,
        body_html: null,
        widget_context: null,
      },
    },
  });
  r.declare({
    plugin: 'tickets',
    table: 'tickets',
    emailColumns: ['customer_email'],
    onMatch: { set: { customer_email: null, customer_name: null } },
  });
  r.declare({ plugin: 'tickets', table: 'ticket_subscribers', emailColumns: ['email'], onMatch: 'delete' });
  r.declare({ plugin: 'inbox', table: 'inbox_emails', emailColumns: ['from_address'], onMatch: 'delete' });
  r.declare({ plugin: 'mail', table: 'mail_messages', emailColumns: ['to_address'], onMatch: 'delete' });
}
