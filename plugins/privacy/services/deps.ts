import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { Logger } from 'pino';
import type { PrivacyOptions } from '../options.js';
import type { PersonalDataRegistry } from './registry.js';

/** The billing plugin's actions this plugin uses (container key `billingActions`). */
export type BillingActionsPort = Pick<Cradle['billingActions'], 'cancel'>;

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
