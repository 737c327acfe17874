import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { RequestDetails, SignedInActor } from '../../../core/contracts/index.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { Principal } from '../../../core/http/auth.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { OnboardingOptions } from '../options.js';

/** The workspace fields this plugin reads (workspaces plugin, `workspaceService`). */
export interface WorkspaceLike {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  client_name: string | null;
  locale: string;
  execution_mode: string;
  agent_id: string;
  auth_method: string | null;
  runner_transport: string | null;
  agent_config: { credential_id?: string | null };
  inbound_address: string | null;
  archived_at: Date | null;
}

export interface WorkspacePort {
  get(orgId: string, id: string, trx?: Knex): Promise<WorkspaceLike>;
  open(principal: Principal, id: string, trx?: Knex): Promise<WorkspaceLike>;
  update(
    principal: Principal,
    id: string,
    input: Record<string, unknown>,
    from: RequestDetails,
  ): Promise<WorkspaceLike>;
}

/** A connected repository as the codehost plugin stores it. */
export interface RepositoryRow {
  id: string;
  org_id: string;
  workspace_id: string;
  full_name: string;
  html_url: string;
  default_branch: string;
  is_public: boolean;
  agent_key_last4: string | null;
  agent_key_set_at: Date | null;
  onboarding_pr: {
    number: number | null;
    url: string | null;
    status: string;
    requested_at: string | null;
    error: string | null;
    title: string | null;
  } | null;
  runs_on: string[];
  cloud_auth: Record<string, unknown>;
  index_status: string;
  created_at: Date;
}

/** The codehost plugin's `codehostRepositories` (the same service as POST /v1/repositories/{id}/onboarding-pr). */
export interface RepositoriesPort {
  load(principal: Principal, id: string, trx?: Knex): Promise<RepositoryRow>;
  loadForOrg(orgId: string, id: string, trx?: Knex): Promise<RepositoryRow>;
  openOnboardingPr(actor: SignedInActor, id: string): Promise<RepositoryRow>;
  setAgentKey(actor: SignedInActor, id: string, key: string): Promise<RepositoryRow>;
  list(
    principal: Principal,
    q: { workspace_id?: string; limit: number },
  ): Promise<{ items: Array<OnboardingRepositoryJson & Record<string, unknown>> }>;
  json(row: RepositoryRow): OnboardingRepositoryJson & Record<string, unknown>;
  onboardingPreview(
    orgId: string,
    id: string,
    runsOn?: string[],
  ): Promise<{ files: Record<string, string>; workflowPath: string; secretName: string }>;
}

/** The OnboardingRepository fields of the codehost plugin's repository answer. */
export interface OnboardingRepositoryJson {
  id: string;
  full_name: string;
  html_url: string;
  default_branch: string;
  is_public: boolean;
  onboarding_pr: {
    number: number | null;
    url: string | null;
    status: string;
    requested_at: string | null;
    error: string | null;
    title: string | null;
  };
  agent_key: { last4: string | null; set_at: string | null };
  runs_on: string[];
  cloud_auth: Record<string, unknown>;
}

/** The codehost plugin's `codeIndex` (case selection of the demo). */
export interface CodeIndexPort {
  search(
    orgId: string,
    repositoryId: string,
    query: string,
    opts?: { limit?: number; trx?: Knex },
  ): Promise<Array<{ path: string; line_start: number; line_end: number; symbol: string | null; snippet: string }>>;
  tree(
    orgId: string,
    repositoryId: string,
  ): Promise<Array<{ path: string; size: number; language: string | null; indexed: boolean }>>;
}

/** The tickets plugin's `ticketService` (the demo ticket). */
export interface TicketPort {
  createTicket(
    trx: Knex,
    input: {
      orgId: string;
      workspaceId: string;
      origin: 'email';
      subject: string;
      customerEmail?: string | null;
      customerName?: string | null;
      language?: string | null;
      isDemo?: boolean;
      errorGroupId?: string | null;
      message?: {
        from?: string | null;
        fromName?: string | null;
        subject?: string | null;
        bodyText?: string | null;
        receivedAt?: Date;
      };
    },
  ): Promise<{ id: string; state: string }>;
  mustGet(trx: Knex, orgId: string, id: string): Promise<{ id: string; state: string; closed_at?: Date | null }>;
  statusUrl(ticket: unknown): string;
  detail(orgId: string, id: string, trx?: Knex): Promise<Record<string, unknown>>;
}

/** The accounts plugin's `planCatalog`. */
export interface PlanCatalogPort {
  get(id: string | null | undefined): { execution_modes: string[] };
}

/**
 * The fix loop's records of the demo's tickets, read through the fixes plugin's `fixRecords`
 * (its tables stay its own). Absent when the fix loop is off: the run then never progresses.
 */
export interface FixRecordsPort {
  progress(db: Knex, orgId: string, ticketIds: string[], attemptOf: string | null): Promise<FixProgress>;
}

export interface FixProgress {
  /** The tickets' jobs, oldest first. */
  jobs: Array<{
    ticket_id: string;
    kind: string;
    status: string;
    mode: string;
    cost_usd: string | number;
    error_code: string | null;
    error_detail: string | null;
  }>;
  /** The tickets' diagnoses, oldest first. */
  diagnoses: Array<{
    id: string;
    ticket_id: string;
    category: string;
    confidence: number;
    root_cause_md: string;
    references: Array<{ path: string; line_start?: number; line_end?: number; symbol?: string | null }>;
    public_summary: string | null;
    outcome: string;
    created_at: Date;
  }>;
  /** The latest attempt of the run's ticket. */
  attempt: {
    status: string;
    verify_passed: boolean;
    tests_passed: boolean;
    tests_ran: boolean;
    reason: string | null;
    pr_number: number | null;
    pr_url: string | null;
    branch: string;
  } | null;
}

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

export const iso = (d: Date | string | null | undefined): string | null =>
  d == null ? null : d instanceof Date ? d.toISOString() : new Date(d).toISOString();
