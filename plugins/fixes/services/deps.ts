import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { AgentExecutor, CodeHost } from '../../../core/contracts/index.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { FixesOptions } from '../options.js';
import type { MailerPort } from '../../../core/contracts/mail.js';

/** What the loop needs of `ticketService` (tickets plugin). */
export type TicketPort = Pick<
  Cradle['ticketService'],
  'mustGet' | 'load' | 'transition' | 'update' | 'detail' | 'statusUrl'
>;
/** A ticket as the tickets plugin stores it. */
export type LoopTicket = Awaited<ReturnType<TicketPort['mustGet']>>;
/** An event of the tickets plugin's state machine. */
export type TicketEvent = Parameters<TicketPort['transition']>[2];

/** `approvalGovernance` (sso plugin), when present: who may approve fixes and releases. */
export type GovernancePort = Pick<Cradle['approvalGovernance'], 'policy' | 'canApprove'>;

/** What the loop needs of `draftService` (tickets plugin). */
export type DraftPort = Pick<Cradle['draftService'], 'createForAgent' | 'send' | 'sendNotice'>;

/** What the release notices need of `subscriberService` (tickets plugin). */
export type SubscriberPort = Pick<Cradle['subscriberService'], 'unsubscribeLink' | 'notify' | 'markNotified'>;

/** What the loop needs of `ticketActions` (tickets plugin). */
export type TicketActionsPort = Pick<Cradle['ticketActions'], 'escalateBySystem'>;

export type WorkspacePort = Pick<Cradle['workspaceService'], 'get'>;
/** A workspace's settings as the workspaces plugin stores them (the loop's and the releases'). */
export type LoopWorkspace = Awaited<ReturnType<WorkspacePort['get']>>;
export type ReleaseWorkspace = LoopWorkspace;

/** `codeIndex` (codehost plugin), when present. */
export type CodeIndexPort = Pick<Cradle['codeIndex'], 'search'>;

/** `codehostRepositories` (codehost plugin): the RepoRef of a connected repository. */
export type RepositoriesPort = Pick<Cradle['codehostRepositories'], 'ref'>;

export interface FixesDeps {
  readonly db: Knex;
  readonly outbox: Outbox;
  readonly audit: AuditWriter;
  readonly config: AppConfig;
  readonly log: Logger;
  readonly options: FixesOptions;
  readonly executors: AgentExecutor[];
  readonly tickets: TicketPort;
  readonly drafts: DraftPort;
  readonly subscribers: SubscriberPort;
  readonly ticketActions: TicketActionsPort;
  readonly workspaces: WorkspacePort;
  readonly codeIndex: CodeIndexPort | null;
  readonly codeHost: CodeHost | null;
  readonly repositories: RepositoriesPort | null;
  readonly governance: GovernancePort | null;
  readonly mailer: MailerPort;
  readonly billingGate: BillingGatePort | null;
  /** Optional: known fixes of similar problems are offered to diagnosis and fix jobs. */
  readonly patternMatcher?: PatternMatcherPort | null;
}

/** `patternMatcher` (proactive plugin), when present: learned problem → fix patterns that fit a ticket, best first. */
export type PatternMatcherPort = Pick<Cradle['patternMatcher'], 'matchTicket'>;

/** `billingGate` (billing plugin), when present: caps and fix credits. */
export type BillingGatePort = Pick<Cradle['billingGate'], 'authorizeJob'>;
