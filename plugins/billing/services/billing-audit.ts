import type { Knex } from 'knex';
import type { AuditedActor } from '../../../core/audit/audit-writer.js';
import type { BillingDeps } from './deps.js';

/** Records a billing change in the audit log, in the transaction that makes it. */
export async function auditBilling(
  d: Pick<BillingDeps, 'audit'>,
  trx: Knex,
  orgId: string,
  actor: AuditedActor,
  action: string,
  target: { type: string; id: string | null },
  changes?: Record<string, { before: unknown; after: unknown }>,
  extra: { workspaceId?: string | null; metadata?: Record<string, unknown> } = {},
): Promise<void> {
  await d.audit.record(trx, { orgId, actor, action, target, changes, ...extra });
}
