/**
 * Contract kit of AgentExecutor. Every executor runs it in its own test:
 *
 *   await runAgentExecutorContract(t, { name: 'agent-builtin', mode: 'builtin', completes: true, create });
 */
import Joi from 'joi';
import {
  EXECUTOR_MODES,
  EXECUTOR_PLACEMENTS,
  JOB_STATUSES,
  TICKET_CATEGORIES,
  type AgentExecutor,
  type AgentJob,
  type ExecutorMode,
  type ExecutorPlacement,
  type JobEventInput,
  type JobIO,
  type JobKind,
  type JobResult,
} from '../../core/contracts/index.js';
import {
  expectAdapterError,
  kitSuffix,
  problems,
  runCommonCases,
  shapes,
  withAdapter,
  within,
  type ContractTest,
  type KitOptions,
} from './common.js';

export interface AgentExecutorKitOptions extends KitOptions<AgentExecutor> {
  mode: ExecutorMode;
  /** True when jobs run in this process and end with `io.complete` (builtin, managed). */
  completes: boolean;
  /** Where its jobs are driven from (default: `worker` when it completes, else `remote`). */
  runsIn?: ExecutorPlacement;
  /** A job the executor can run here (default: a small diagnose job without repository). */
  job?: (kind: JobKind) => AgentJob;
  /** Longest a job may take in the kit (default 20 s). */
  timeoutMs?: number;
}

const jobEventSchema = Joi.object({
  level: Joi.string().valid('info', 'warn', 'error').required(),
  type: shapes.nonEmpty.required(),
  message: Joi.string().required(),
  data: shapes.record,
});

const jobResultSchema = Joi.object({
  status: Joi.string()
    .valid(...JOB_STATUSES)
    .required(),
  diagnosis: Joi.object({
    category: Joi.string()
      .valid(...TICKET_CATEGORIES)
      .required(),
    confidence: Joi.number().min(0).max(1).required(),
    root_cause_md: Joi.string().required(),
    references: Joi.array()
      .items(
        Joi.object({
          path: shapes.nonEmpty.required(),
          line_start: Joi.number().integer().min(1),
          line_end: Joi.number().integer().min(1),
          symbol: Joi.string(),
          url: shapes.url,
        }),
      )
      .required(),
    public_summary: Joi.string(),
  }),
  drafts: Joi.array().items(
    Joi.object({
      kind: Joi.string().valid('reply', 'needs_info', 'interim').required(),
      body_md: shapes.nonEmpty.required(),
      language: Joi.string(),
    }),
  ),
  fix: Joi.object({
    branch: shapes.nonEmpty.required(),
    head_sha: Joi.string()
      .pattern(/^[0-9a-f]{40,64}$/)
      .required(),
    tests_ran: Joi.boolean().required(),
    tests_passed: Joi.boolean().required(),
    verify_passed: Joi.boolean().required(),
    reason: Joi.string()
      .valid('verification_failed', 'tests_failed', 'tests_not_run_without_reason', 'other')
      .allow(null)
      .required(),
  }),
  cost_usd: Joi.number().min(0).required(),
  error: Joi.object({ code: shapes.nonEmpty.required(), detail: Joi.string().required() }),
});

/** Problems of a JobResult for the job it ends. */
export function checkJobResult(result: unknown, job: AgentJob): string[] {
  const found = problems(jobResultSchema, result);
  if (found.length) return found;
  const r = result as JobResult;
  // A job stopped for its spend reports what was spent (above the limit); any other result stays within it.
  if (r.cost_usd > job.limits.max_cost_usd && r.error?.code !== 'cost_limit_reached')
    found.push(`cost_usd: ${r.cost_usd} is above the limit ${job.limits.max_cost_usd}`);
  if (r.status === 'succeeded' && job.kind === 'diagnose' && !r.diagnosis)
    found.push('diagnosis: a succeeded diagnose job has one');
  if (r.status === 'succeeded' && job.kind === 'fix' && !r.fix) found.push('fix: a succeeded fix job has one');
  if (r.status === 'failed' && !r.error) found.push('error: a failed job says why');
  if (r.fix && r.fix.verify_passed && r.fix.reason !== null) found.push('fix.reason: null when verified');
  return found;
}

/** Problems of one job event. */
export function checkJobEvent(event: unknown): string[] {
  return problems(jobEventSchema, event);
}

export function kitJob(kind: JobKind): AgentJob {
  const id = kitSuffix();
  return {
    id: `job_kit${id}`,
    kind,
    org_id: 'org_kit',
    workspace_id: 'wsp_kit',
    ticket: {
      id: `tkt_kit${id}`,
      subject: 'The login button does nothing',
      body: 'When I click Login on the home page nothing happens. Console: TypeError: form is null',
      origin: 'email',
    },
    repository: null,
    instructions: kind === 'diagnose' ? 'Diagnose the report and draft a reply.' : 'Fix the defect and run the tests.',
    limits: { max_minutes: 5, max_cost_usd: 1 },
  };
}

/** A JobIO that records what the executor did. */
export function recordingIO(
  cancelled = false,
): JobIO & { events: JobEventInput[]; results: JobResult[]; heartbeats: number } {
  const io = {
    events: [] as JobEventInput[],
    results: [] as JobResult[],
    heartbeats: 0,
    emit: (e: JobEventInput) => {
      io.events.push(e);
      return Promise.resolve();
    },
    heartbeat: () => {
      io.heartbeats++;
      return Promise.resolve(cancelled);
    },
    isCancelled: () => cancelled,
    complete: (r: JobResult) => {
      io.results.push(r);
      return Promise.resolve();
    },
  };
  return io;
}

/** Drives an AgentExecutor through the cases every executor must pass. */
export async function runAgentExecutorContract(t: ContractTest, opts: AgentExecutorKitOptions): Promise<void> {
  await runCommonCases(t, 'agent', opts);
  const makeJob = opts.job ?? kitJob;
  const timeout = opts.timeoutMs ?? 20_000;

  const runsIn = opts.runsIn ?? (opts.completes ? 'worker' : 'remote');
  await t.test(`mode is ${opts.mode}, it runs in the ${runsIn} and capabilities are stated`, async (t) => {
    await withAdapter(opts, (a) => {
      t.equal(a.mode, opts.mode, 'mode');
      t.ok(EXECUTOR_MODES.includes(a.mode), 'mode is a known executor mode');
      t.ok(EXECUTOR_PLACEMENTS.includes(a.runsIn), 'runsIn is worker or remote');
      t.equal(a.runsIn, runsIn, 'runsIn');
      if (opts.completes) t.equal(a.runsIn, 'worker', 'an executor that completes jobs itself runs in the worker');
      t.equal(typeof a.capabilities.diagnose, 'boolean', 'capabilities.diagnose');
      t.equal(typeof a.capabilities.fix, 'boolean', 'capabilities.fix');
      t.ok(a.capabilities.diagnose || a.capabilities.fix, 'it runs at least one kind of job');
    });
  });

  await t.test('cancel() of an unknown job succeeds', async (t) => {
    await withAdapter(opts, async (a) => {
      await within(timeout, a.cancel(`job_kit_unknown_${kitSuffix()}`), 'cancel');
      t.ok(true, 'resolved');
    });
  });

  await t.test('a job of a kind it cannot run is refused with not_supported', async (t) => {
    await withAdapter(opts, async (a) => {
      const missing = (['diagnose', 'fix'] as const).find((k) => !a.capabilities[k]);
      if (!missing) return void t.ok(true, 'it runs both kinds');
      const io = recordingIO();
      await expectAdapterError(t, () => a.start(makeJob(missing), io), ['not_supported'], `a ${missing} job`);
      t.equal(io.results.length, 0, 'no result recorded');
    });
  });

  for (const kind of ['diagnose', 'fix'] as const) {
    await t.test(
      `a ${kind} job ${opts.completes ? 'ends with one well-formed result' : 'is handed over'}`,
      async (t) => {
        await withAdapter(opts, async (a) => {
          if (!a.capabilities[kind]) return void t.ok(true, `skipped: the executor runs no ${kind} jobs`);
          const job = makeJob(kind);
          const io = recordingIO();
          await within(timeout, a.start(job, io), 'start');
          io.events.forEach((e, i) => t.same(checkJobEvent(e), [], `event ${i} is well formed`));
          if (!opts.completes)
            return void t.equal(io.results.length, 0, 'the result comes later, through the jobs API');
          t.equal(io.results.length, 1, 'complete() called once');
          const result = io.results[0];
          t.same(checkJobResult(result, job), [], 'JobResult fits the contract');
          t.ok(result?.status !== 'cancelled', 'a job nobody cancelled is not cancelled');
        });
      },
    );
  }

  if (opts.completes) {
    await t.test('a job cancelled before it starts ends cancelled', async (t) => {
      await withAdapter(opts, async (a) => {
        const kind = a.capabilities.diagnose ? 'diagnose' : 'fix';
        const job = makeJob(kind);
        const io = recordingIO(true);
        await within(timeout, a.start(job, io), 'start');
        t.equal(io.results.length, 1, 'complete() called once');
        t.equal(io.results[0]?.status, 'cancelled', 'status cancelled');
        t.same(checkJobResult(io.results[0], job), [], 'JobResult fits the contract');
      });
    });
  }
}
