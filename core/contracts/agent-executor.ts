import Joi from 'joi';
import { AbstractAdapter, NotSupportedError } from './adapter.js';

/**
 * Where a job runs: `builtin` in the service with no model (offline), `managed` in a sandboxed
 * checkout the service runs, `runner` in the customer's CI or container runner driving the jobs
 * API, `mcp` by an IDE agent through the MCP endpoint. The last three are the spec's execution_mode.
 */
export type ExecutorMode = 'builtin' | 'managed' | 'runner' | 'mcp';
export const EXECUTOR_MODES: readonly ExecutorMode[] = ['builtin', 'managed', 'runner', 'mcp'];

/**
 * Who drives a job of the executor: `worker` — the service's fixes worker claims it and calls
 * `start` in-process (builtin, managed); `remote` — the job stays queued until the remote side
 * (a runner, an IDE agent) claims it through its own API; the worker never claims it.
 */
export type ExecutorPlacement = 'worker' | 'remote';
export const EXECUTOR_PLACEMENTS: readonly ExecutorPlacement[] = ['worker', 'remote'];

export type JobKind = 'diagnose' | 'fix';
export type JobStatus = 'succeeded' | 'failed' | 'cancelled';
export const JOB_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];

export type TicketCategory = 'usage' | 'config' | 'docs' | 'bug' | 'feature_request' | 'unknown';
export const TICKET_CATEGORIES: readonly TicketCategory[] = [
  'usage',
  'config',
  'docs',
  'bug',
  'feature_request',
  'unknown',
];

/** What the job knows of its ticket (snake_case: this is the job payload of `GET /v1/jobs/{id}`). */
export interface JobTicketSummary {
  id: string;
  subject: string;
  /** The customer's report and the conversation so far, masked, as plain text. */
  body: string;
  origin: 'email' | 'widget' | 'codehost' | 'proactive';
  category?: TicketCategory;
  language?: string;
  /** Error group context (stack, frames) for proactive and widget tickets. */
  error_context?: Record<string, unknown>;
}

/** The repository a job works on. */
export interface JobRepository {
  id: string;
  full_name: string;
  default_branch: string;
  /** Commit the job starts from. */
  base_sha?: string;
  is_public?: boolean;
}

export interface JobLimits {
  max_minutes: number;
  max_cost_usd: number;
}

/** One diagnosis or fix job. */
export interface AgentJob {
  id: string;
  kind: JobKind;
  org_id: string;
  workspace_id: string;
  ticket: JobTicketSummary;
  /** Null when the workspace has no repository (diagnosis from docs and history only). */
  repository: JobRepository | null;
  /** What to do, in words, including reviewer notes for a new fix attempt. */
  instructions: string;
  limits: JobLimits;
  /** Branch a fix job pushes to (service-prefixed, e.g. `patchwell/tkt_…-1`). */
  branch?: string;
  /** Command the fix must pass (Workspace.test_command). */
  test_command?: string | null;
  /** Agent choice of the workspace (Workspace.agent_id, agent_config). */
  agent?: { agent_id: string; model?: string; effort?: string };
}

/** One line of the job's log (spec: JobEvent, without ids). Masked again before it is stored. */
export interface JobEventInput {
  level: 'info' | 'warn' | 'error';
  /** Short machine word, e.g. `phase`, `command`, `test_output`. */
  type: string;
  message: string;
  data?: Record<string, unknown>;
}

export interface DiagnosisResult {
  category: TicketCategory;
  /** 0..1 */
  confidence: number;
  root_cause_md: string;
  references: Array<{ path: string; line_start?: number; line_end?: number; symbol?: string; url?: string }>;
  public_summary?: string;
}

export interface DraftResult {
  kind: 'reply' | 'needs_info' | 'interim';
  body_md: string;
  language?: string;
}

/**
 * Joi schemas of a diagnosis and a draft as a JobResult carries them: an executor that builds them
 * from a model's answer checks them here before it completes the job.
 */
export const diagnosisResultSchema: Joi.ObjectSchema<DiagnosisResult> = Joi.object<DiagnosisResult>({
  category: Joi.string()
    .valid(...TICKET_CATEGORIES)
    .required(),
  confidence: Joi.number().min(0).max(1).required(),
  root_cause_md: Joi.string().min(1).required(),
  references: Joi.array()
    .items(
      Joi.object({
        path: Joi.string().min(1).required(),
        line_start: Joi.number().integer().min(1),
        line_end: Joi.number().integer().min(1),
        symbol: Joi.string(),
        url: Joi.string().uri({ scheme: ['http', 'https'] }),
      }),
    )
    .required(),
  public_summary: Joi.string(),
});

export const draftResultSchema: Joi.ObjectSchema<DraftResult> = Joi.object<DraftResult>({
  kind: Joi.string().valid('reply', 'needs_info', 'interim').required(),
  body_md: Joi.string().min(1).required(),
  language: Joi.string(),
});

export type FixReason = 'verification_failed' | 'tests_failed' | 'tests_not_run_without_reason' | 'other';

export interface FixResult {
  branch: string;
  head_sha: string;
  tests_ran: boolean;
  tests_passed: boolean;
  verify_passed: boolean;
  /** Why the fix is not verified; null when it is. */
  reason: FixReason | null;
}

/** The final result of a job (snake_case: the body of `POST /v1/jobs/{id}/result`). */
export interface JobResult {
  status: JobStatus;
  diagnosis?: DiagnosisResult;
  drafts?: DraftResult[];
  fix?: FixResult;
  cost_usd: number;
  error?: { code: string; detail: string };
}

/** A place in the repository the job's code index found (path, lines, symbol, link, a few lines of text). */
export interface CodeHit {
  path: string;
  line_start?: number;
  line_end?: number;
  symbol?: string;
  url?: string;
  snippet?: string;
}

/**
 * Read access to the job's repository that the fix loop lends in-process executors (absent when
 * the workspace has no repository or no code index yet, and in the contract kit).
 */
export interface JobTools {
  /**
   * Searches the repository's code index (definitions first, then full text).
   *
   * @example const hits = await io.tools?.searchCode('handleLoginError', 5)
   */
  searchCode(query: string, limit?: number): Promise<CodeHit[]>;

  /**
   * A short-lived git access to the job's repository: read only for a diagnosis, with push for a
   * fix job (to its service-prefixed branch). Absent when the loop cannot give one.
   *
   * @example const { cloneUrl, token } = await io.tools!.gitAccess!({ write: true })
   */
  gitAccess?(input: { write: boolean }): Promise<{ cloneUrl: string; token: string; expiresAt: Date }>;
}

/**
 * What the fix loop hands an executor for one job. Checkout helpers (clone, push with a
 * short-lived token) are added here by the fix loop.
 */
export interface JobIO {
  /** Repository helpers for in-process executors; optional (see JobTools). */
  tools?: JobTools;
  /** Appends a line to the job's log (JobEvent). */
  emit(event: JobEventInput): Promise<void>;
  /** Keeps the job's lease; resolves to true when the job was cancelled meanwhile. */
  heartbeat(): Promise<boolean>;
  /** True once someone cancelled the job; long work checks it between steps. */
  isCancelled(): boolean;
  /** Records the final result (idempotent: the first result wins). In-process executors call it. */
  complete(result: JobResult): Promise<void>;
}

/**
 * Who runs a diagnosis or fix job, and where. Several are active (`adapters.agent`); the
 * workspace's execution mode picks one.
 */
export interface AgentExecutor {
  /**
   * Name of the adapter in config and container keys.
   *
   * @example executor.identifier // 'agent-managed'
   */
  readonly identifier: string;

  /**
   * Where jobs run.
   *
   * @example executor.mode // 'runner'
   */
  readonly mode: ExecutorMode;

  /**
   * Where its jobs are driven from (default `worker` in AbstractAgentExecutor). The fixes worker
   * claims only jobs of `worker` executors; a `remote` executor's job waits queued for its remote
   * side (runner claim, MCP submission) and fails `not_claimed` when nobody takes it in time.
   *
   * @example executor.runsIn // 'remote' for agent-runner and agent-mcp
   */
  readonly runsIn: ExecutorPlacement;

  /**
   * Job kinds it can run; `start` refuses the others with NotSupportedError.
   *
   * @example executor.capabilities // { diagnose: true, fix: false } for agent-builtin
   */
  readonly capabilities: { diagnose: boolean; fix: boolean };

  /**
   * Takes a job. In-process executors (builtin, managed) do the work and call `io.complete`;
   * remote ones (runner, mcp) hand it over and resolve at once, and the result arrives through
   * the jobs API. The fixes worker calls it only for `runsIn: 'worker'` executors. Throws
   * NotSupportedError for a kind it cannot run.
   *
   * @example await executor.start(job, { emit, heartbeat, isCancelled, complete })
   */
  start(job: AgentJob, io: JobIO): Promise<void>;

  /**
   * Stops a job it runs; succeeds for an unknown or finished job.
   *
   * @example await executor.cancel('job_01h…')
   */
  cancel(jobId: string): Promise<void>;
}

/** Options every agent executor accepts. */
export interface AgentExecutorOptions {
  /** Jobs one process runs at once. */
  maxConcurrentJobs?: number;
}

export const agentExecutorOptionKeys: Joi.PartialSchemaMap<AgentExecutorOptions> = {
  maxConcurrentJobs: Joi.number().integer().min(1).max(64).default(2),
};

export const agentExecutorOptionsSchema = Joi.object<AgentExecutorOptions>(agentExecutorOptionKeys);

/**
 * Base of agent executors: checks the job kind against `capabilities`, tracks cancellations and
 * hands `run` a JobIO whose `isCancelled` also sees `cancel()`.
 */
export abstract class AbstractAgentExecutor<O extends AgentExecutorOptions = AgentExecutorOptions>
  extends AbstractAdapter<O>
  implements AgentExecutor
{
  static override optionsSchema: Joi.ObjectSchema<AgentExecutorOptions> = agentExecutorOptionsSchema;

  abstract readonly mode: ExecutorMode;
  readonly runsIn: ExecutorPlacement = 'worker';
  abstract readonly capabilities: { diagnose: boolean; fix: boolean };
  private readonly running = new Set<string>();
  private readonly cancelled = new Set<string>();

  /** Does the job (or hands it over). `io.isCancelled` is already combined with `cancel()`. */
  protected abstract run(job: AgentJob, io: JobIO): Promise<void>;

  /** Vendor hook for stopping remote work; the base records the cancellation first. */
  protected async stop(_jobId: string): Promise<void> {}

  async start(job: AgentJob, io: JobIO): Promise<void> {
    if (!this.capabilities[job.kind]) {
      throw new NotSupportedError(`executor ${this.identifier} does not run ${job.kind} jobs`);
    }
    const combined: JobIO = { ...io, isCancelled: () => this.cancelled.has(job.id) || io.isCancelled() };
    this.running.add(job.id);
    try {
      await this.run(job, combined);
    } finally {
      this.running.delete(job.id);
      this.cancelled.delete(job.id);
    }
  }

  /** Records the cancellation of a running job (a job not running here learns it from `io.isCancelled`). */
  async cancel(jobId: string): Promise<void> {
    if (this.running.has(jobId)) this.cancelled.add(jobId);
    await this.stop(jobId);
  }
}

/**
 * Base of executors whose jobs run elsewhere (`runsIn: 'remote'`): the customer's runner or an IDE
 * agent over MCP claims a queued job and answers it later, so `run` only records what the job waits for.
 */
export abstract class RemoteAgentExecutor extends AbstractAgentExecutor<AgentExecutorOptions> {
  override readonly runsIn = 'remote' as const;
  readonly capabilities = { diagnose: true, fix: true };
  /** The event `run` records: its type (e.g. `waiting_runner`) and what the job waits for. */
  protected abstract readonly waiting: { type: string; message: (job: AgentJob) => string };

  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    await io.emit({ level: 'info', type: this.waiting.type, message: this.waiting.message(job) });
  }
}
