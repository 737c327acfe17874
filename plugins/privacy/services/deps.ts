import type { Knex } from 'knex';
import { auditActorOf, type AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { Logger } from 'pino';
import type { PrivacyOptions } from '../options.js';
import type { PersonalDataRegistry } from './registry.js';

/** The billing plugin's actions this plugin uses (container key `billingActions`). */
export interface BillingActionsPort {
  cancel(p: unknown, meta: { actor: { type: 'user' | 'token' | 'job' | 'system'; id: string | null; email: string | null }; ip: string | null; userAgent: string | null; requestId: string | null }, key: string): Promise<void>;
}

export interface PrivacyDeps {
  readonly db: Knex;
  readonly audit: AuditWriter;
  readonly outbox: Outbox;
  readonly registry: PersonalDataRegistry;
  readonly billing: BillingActionsPort | null;
  readonly options: PrivacyOptions;
  readonly log: Logger;
  clock(): Date;
}

/** Who does something, with request details for the audit log. */
export interface Actor {
  orgId: string;
  userId: string | null;
  email: string | null;
  kind: 'session' | 'token' | 'job';
  tokenId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
}

/** The audit actor (the core mapping: an API token's change is recorded as the token) and the request details. */
export function auditActor(a: Actor) {
  return {
    actor: auditActorOf(a),
    ip: a.ip ?? null,
    userAgent: a.userAgent ?? null,
    requestId: a.requestId ?? null,
  };
}
