import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { OnboardingOptions } from '../options.js';

/** The workspaces plugin's `workspaceService`, as far as onboarding uses it. */
export type WorkspacePort = Pick<Cradle['workspaceService'], 'get' | 'open' | 'update'>;
/** A workspace as the workspaces plugin stores it. */
export type WorkspaceLike = Awaited<ReturnType<WorkspacePort['get']>>;

/** The codehost plugin's `codehostRepositories` (the same service as POST /v1/repositories/{id}/onboarding-pr). */
export type RepositoriesPort = Pick<
  Cradle['codehostRepositories'],
  'load' | 'loadForOrg' | 'openOnboardingPr' | 'setAgentKey' | 'list' | 'json' | 'onboardingPreview'
>;
/** A connected repository as the codehost plugin stores it. */
export type RepositoryRow = Awaited<ReturnType<RepositoriesPort['load']>>;
/** The codehost plugin's repository answer (its OnboardingRepository fields are what onboarding shows). */
export type OnboardingRepositoryJson = ReturnType<RepositoriesPort['json']>;

/** The codehost plugin's `codeIndex` (case selection of the demo). */
export type CodeIndexPort = Pick<Cradle['codeIndex'], 'search' | 'tree'>;

/** The tickets plugin's `ticketService` (the demo ticket). */
export type TicketPort = Pick<Cradle['ticketService'], 'createTicket' | 'mustGet' | 'statusUrl' | 'detail'>;

/** The accounts plugin's `planCatalog`. */
export type PlanCatalogPort = Pick<Cradle['planCatalog'], 'get'>;

/**
 * The fix loop's records of the demo's tickets, read through the fixes plugin's `fixRecords`
 * (its tables stay its own). Absent when the fix loop is off: the run then never progresses.
 */
export type FixRecordsPort = Pick<Cradle['fixRecords'], 'progress'>;
/** The tickets' jobs and diagnoses (oldest first) and the latest attempt of the run's ticket. */
export type FixProgress = Awaited<ReturnType<FixRecordsPort['progress']>>;

export interface OnboardingDeps {
  readonly db: Knex;
  readonly audit: AuditWriter;
  readonly outbox: Outbox;
  readonly secretBox: SecretBox;
  readonly workspaces: WorkspacePort;
  readonly repositories: RepositoriesPort | null;
  readonly codeIndex: CodeIndexPort | null;
  readonly tickets: TicketPort;
  readonly plans: PlanCatalogPort | null;
  readonly fixRecords: FixRecordsPort | null;
  readonly options: OnboardingOptions;
  readonly log: Logger;
  clock(): Date;
}
