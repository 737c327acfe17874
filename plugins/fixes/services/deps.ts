import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { AgentExecutor, CodeHost, RepoRef, SignedInActor } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { FixesOptions } from '../options.js';
import type { MailerPort } from '../../../core/contracts/mail.js';

/** The ticket row fields the loop reads (tickets plugin). */
export interface LoopTicket {
  id: string;
  org_id: string;
  workspace_id: string;
  state: string;
  origin: 'email' | 'widget' | 'codehost' | 'proactive';
  subject: string;
  category: string;
  language: string;
  reopened_count: number;
  assignee_user_id: string | null;
}

/** What the loop needs of `ticketService` (tickets plugin). */
export interface TicketPort {
  mustGet(trx: Knex, orgId: string, id: string): Promise<LoopTicket>;
  load(principal: Principal, id: string, trx?: Knex, opts?: { forUpdate?: boolean }): Promise<LoopTicket>;
  transition(trx: Knex, ticket: LoopTicket, event: string, patch?: Record<string, unknown>): Promise<LoopTicket>;
  update(trx: Knex, ticket: LoopTicket, patch: Record<string, unknown>): Promise<LoopTicket>;
  detail(orgId: string, id: string, trx?: Knex): Promise<Record<string, unknown>>;
  /** The ticket's public status page URL (a ticket as mustGet reads it). */
  statusUrl(ticket: LoopTicket): string;
}

/** `approvalGovernance` (sso plugin), when present: who may approve fixes and releases. */
export interface GovernancePort {
  policy(orgId: string, db?: Knex): Promise<{ minApprovers: number; roles: string[] }>;
  canApprove(
    principal: Pick<Principal, 'orgId' | 'role' | 'workspaceIds' | 'userId'>,
    workspaceId: string,
    db?: Knex,
  ): Promise<boolean>;
}

/** What the loop needs of `draftService` (tickets plugin). */
export interface DraftPort {
  createForAgent(
    trx: Knex,
    ticket: LoopTicket,
    input: {
      kind: 'reply' | 'needs_info' | 'interim';
      body_md: string;
      public_summary?: string | null;
      diagnosis_id?: string | null;
      language?: string | null;
    },
  ): Promise<{ id: string } | undefined>;
  send(
    actor: SignedInActor,
    ticketId: string,
    draftId: string,
    input: { body_md?: string; public_summary?: string | null },
  ): Promise<void>;
  /** A release notice as a `release_notice` Draft row, sent (or waiting when the white-label guard refuses); undefined without a customer address. */
  sendNotice(
    trx: Knex,
    ticket: LoopTicket,
    input: {
      kind: 'release_notice';
      template: string;
      data: Record<string, unknown>;
      headers?: Record<string, string>;
    },
  ): Promise<{ draft: { id: string; status: string }; mailId: string | null } | undefined>;
}

/** What the release notices need of `subscriberService` (tickets plugin). */
export interface SubscriberPort {
  /** A notice's unsubscribe link and its List-Unsubscribe headers. */
  unsubscribeLink(ticketId: string, email: string): { url: string; headers: Record<string, string> };
  /** A notice to a subscriber who follows a ticket they did not write; sets notified_at. */
  notify(
    trx: Knex,
    ticket: LoopTicket,
    sub: { id: string; email: string },
    input: { template: string; data: Record<string, unknown> },
  ): Promise<string>;
  markNotified(trx: Knex, orgId: string, ids: string[], at?: Date): Promise<void>;
}

/** What the loop needs of `ticketActions` (tickets plugin). */
export interface TicketActionsPort {
  escalateBySystem(trx: Knex, ticket: LoopTicket, reason: string): Promise<boolean>;
}

/** The workspace settings the loop reads (workspaces plugin). */
export interface LoopWorkspace {
  id: string;
  org_id: string;
  execution_mode: 'managed' | 'runner' | 'mcp';
  agent_id: string;
  /** How the agent authenticates (spec auth methods); `api-key` managed workspaces go to agent-model when it is on. */
  auth_method?: string | null;
  agent_config: {
    model?: string | null;
    effort?: string | null;
    max_minutes?: number | null;
    max_cost_usd?: number | null;
  } | null;
  autonomy: 'copilot' | 'approve' | 'autopilot';
  autopilot_categories: string[];
  confidence_threshold: number;
  test_command: string | null;
  name: string;
  merge_method: 'squash' | 'merge' | 'rebase';
  release_strategy: 'semver' | 'calver' | 'manual';
  release_batching: 'per_ticket' | 'batched';
  github_release_enabled: boolean;
}

/** Workspace settings the releases read beyond the loop's. */
export type ReleaseWorkspace = LoopWorkspace & { changelog_enabled?: boolean; auto_close_days?: number | null };

export interface WorkspacePort {
  get(orgId: string, id: string, trx?: Knex): Promise<LoopWorkspace>;
}

export interface CodeSearchHit {
  path: string;
  line_start: number;
  line_end: number;
  symbol: string | null;
  snippet: string;
}

/** `codeIndex` (codehost plugin), when present. */
export interface CodeIndexPort {
  search(
    orgId: string,
    repositoryId: string,
    query: string,
    opts?: { limit?: number; trx?: Knex },
  ): Promise<CodeSearchHit[]>;
}

/** `codehostRepositories` (codehost plugin): the RepoRef of a connected repository. */
export interface RepositoriesPort {
  ref(orgId: string, repositoryId: string, trx?: Knex): Promise<RepoRef>;
}

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
export interface PatternMatcherPort {
  matchTicket(
    orgId: string,
    ticketId: string,
    limit?: number,
  ): Promise<Array<{ score: number; pattern: Record<string, unknown> }>>;
}

/** `billingGate` (billing plugin), when present: caps and fix credits. */
export interface BillingGatePort {
  authorizeJob(
    trx: Knex,
    input: {
      orgId: string;
      workspaceId: string | null;
      kind: 'fix' | 'diagnosis';
      estimatedCostUsd: number;
      jobId?: string;
    },
  ): Promise<unknown>;
}
