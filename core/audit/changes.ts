import type { Knex } from 'knex';
import type { Outbox } from '../bus/outbox.js';
import { auditOrgOf, type AuditEntryInput, type AuditWriter } from './audit-writer.js';

type Changes = Record<string, { before: unknown; after: unknown }>;

/**
 * An administrative update's record, in the update's transaction: the audit entry with the changed
 * fields, and the `<plugin>.<thing>_updated` event that names them (`fields`, after `payload`'s ids)
 * so consumers know what to read again. Nothing is written when nothing changed.
 */
export async function recordChanges(
  d: { readonly audit: AuditWriter; readonly outbox: Outbox },
  trx: Knex,
  entry: AuditEntryInput & { changes: Changes },
  eventType: string,
  payload: Record<string, unknown>,
): Promise<void> {
  const fields = Object.keys(entry.changes);
  if (fields.length === 0) return;
  await d.audit.record(trx, entry);
  await d.outbox.add(trx, eventType, { ...payload, fields }, { orgId: auditOrgOf(entry) });
}
