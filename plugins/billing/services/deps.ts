import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import { systemActor } from '../../../core/http/actor.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { PaymentProvider } from '../../../core/contracts/index.js';
import type { MailerPort } from '../../../core/contracts/mail.js';
import type { BillingOptions } from '../options.js';
import type { BillingPlanCatalog } from './plans.js';
import type { CreditLedger } from './credit-ledger.js';

/** What billing's services share. */
export interface BillingDeps {
  db: Knex;
  outbox: Outbox;
  audit: AuditWriter;
  log: Logger;
  options: BillingOptions;
  catalog: BillingPlanCatalog;
  ledger: CreditLedger;
  /** The active payment provider; null when config selects none (payments disabled). */
  provider: PaymentProvider | null;
  /** The mail plugin's mailer; null when mail is off. */
  mailer: Pick<MailerPort, 'registerTemplates' | 'enqueue'> | null;
  publicBaseUrl: string;
  clock: () => Date;
}

/** Billing acting on its own (provider events, schedules, automatic approvals): the audit log shows `billing`. */
export const BILLING = systemActor('billing');

export const locale = (v: string | null | undefined): 'en' | 'it' => (v === 'it' ? 'it' : 'en');

/** Whether a table exists (other plugins' tables: tickets, repositories), cached per process. */
const tableCache = new Map<string, Promise<boolean>>();
export function hasTable(db: Knex, table: string): Promise<boolean> {
  let p = tableCache.get(table);
  if (!p) {
    p = db.schema.hasTable(table).then((yes) => {
      if (!yes) tableCache.delete(table); // look again next time: the table may come with a later migration
      return yes;
    });
    tableCache.set(table, p);
  }
  return p;
}
