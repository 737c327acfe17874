import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import { httpError } from '../../../core/http/errors.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { AuditOptions } from '../options.js';

/** The accounts plugin's `planCatalog` (billing's over it when on). */
export type PlanCatalogPort = Pick<Cradle['planCatalog'], 'hasFeature'>;

/** What the audit plugin's services need, resolved lazily from the container. */
export interface AuditDeps {
  readonly db: Knex;
  readonly audit: AuditWriter;
  readonly secretBox: SecretBox;
  readonly rateLimiter: RateLimiter;
  readonly planCatalog: PlanCatalogPort;
  readonly options: AuditOptions;
  readonly allowLoopbackFetch: boolean;
  clock(): Date;
}

export type AuditFeature = 'audit_export' | 'audit_stream';

const FEATURE_NAMES: Record<AuditFeature, string> = {
  audit_export: 'Audit log export',
  audit_stream: 'Audit log streaming',
};

/** 402 feature_not_in_plan unless the organization's plan has the feature. */
export async function requireFeature(
  d: Pick<AuditDeps, 'planCatalog'>,
  db: Knex,
  orgId: string,
  feature: AuditFeature,
): Promise<void> {
  const org: { plan: string | null } | undefined = await db('organizations').where({ id: orgId }).first('plan');
  if (!d.planCatalog.hasFeature(org?.plan ?? null, feature)) {
    throw httpError(402, 'feature_not_in_plan', `${FEATURE_NAMES[feature]} is not part of your plan`, {
      feature,
      plan: org?.plan ?? null,
    });
  }
}

export async function orgHasFeature(
  d: Pick<AuditDeps, 'planCatalog'>,
  db: Knex,
  orgId: string,
  feature: AuditFeature,
): Promise<boolean> {
  const org: { plan: string | null } | undefined = await db('organizations').where({ id: orgId }).first('plan');
  return d.planCatalog.hasFeature(org?.plan ?? null, feature);
}
