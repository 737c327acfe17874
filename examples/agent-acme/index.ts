// A partner's agent adapter: runs the "acme-agent" command line tool for diagnosis jobs.
//
// The tool reads the job (AgentJob JSON) on stdin and writes JSON lines on stdout:
//   {"event": {"level": "info", "type": "phase", "message": "reading the report"}}
//   {"result": {"status": "succeeded", "diagnosis": {...}, "drafts": [...], "cost_usd": 0.02}}
// Anything else it prints is passed on as an `output` event. Enable it in config:
//   "adapters": { "agent": ["agent-builtin", "./examples/agent-acme/index.ts"],
//                 "options": { "./examples/agent-acme/index.ts": { "command": ["acme-agent", "--json"] } } }
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import Joi from 'joi';
import {
  AbstractAgentExecutor,
  adapterModule,
  agentExecutorOptionKeys,
  type AgentExecutorOptions,
  type AgentJob,
  type JobEventInput,
  type JobIO,
  type JobResult,
} from '../../core/contracts/index.js';

export interface AcmeAgentOptions extends AgentExecutorOptions {
  /** The tool and its arguments (no shell). */
  command: string[];
  /** Wall-clock limit of one run, on top of the job's own max_minutes. */
  timeoutMs: number;
}

const LEVELS = new Set(['info', 'warn', 'error']);

export class AcmeAgentExecutor extends AbstractAgentExecutor<AcmeAgentOptions> {
  static override identifier = 'agent-acme';
  static override optionsSchema = Joi.object<AcmeAgentOptions>({
    ...agentExecutorOptionKeys,
    command: Joi.array().items(Joi.string().min(1)).min(1).default(['acme-agent', '--json']),
    timeoutMs: Joi.number().integer().min(1000).max(3_600_000).default(600_000),
  });
  readonly mode = 'managed' as const;
  // runsIn stays the base's 'worker': the fixes worker claims these jobs and calls start in-process.
  // A partner executor whose jobs are taken over an API (like agent-runner) sets `override readonly runsIn = 'remote' as const`.
  readonly capabilities = { diagnose: true, fix: false };
  private readonly children = new Map<string, ChildProcess>();

  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    if (io.isCancelled()) return io.complete({ status: 'cancelled', cost_usd: 0 });
    const [bin, ...args] = this.options.command;
    // Only what the tool needs: no service secrets leak into a partner's process.
    const child = spawn(bin, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', ACME_JOB_ID: job.id },
    });
    this.children.set(job.id, child);
    const limitMs = Math.min(this.options.timeoutMs, job.limits.max_minutes * 60_000);
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    let result: JobResult | null = null;
    const pending: Promise<void>[] = [];
    try {
      const exited = new Promise<number | null>((resolve) => {
        child.on('error', () => resolve(-1));
        child.on('close', (code) => resolve(code));
      });
      child.stdin.end(JSON.stringify(job));
      for await (const line of createInterface({ input: child.stdout })) {
        const parsed = parseLine(line);
        if (parsed.result) result = parsed.result;
        else pending.push(io.emit(parsed.event));
      }
      const code = await exited;
      await Promise.all(pending);
      if (io.isCancelled()) return await io.complete({ status: 'cancelled', cost_usd: result?.cost_usd ?? 0 });
      if (result && code === 0) return await io.complete(result);
      await io.complete({
        status: 'failed',
        cost_usd: result?.cost_usd ?? 0,
        error: {
          code: code === null ? 'timed_out' : 'agent_failed',
          detail:
            code === null
              ? `no answer within ${limitMs} ms`
              : `acme-agent exited with ${code}${result ? '' : ' without a result'}`,
        },
      });
    } finally {
      clearTimeout(timer);
      this.children.delete(job.id);
    }
  }

  protected override stop(jobId: string): Promise<void> {
    this.children.get(jobId)?.kill('SIGTERM');
    return Promise.resolve();
  }
}

/** One stdout line: a result, an event, or plain output. */
export function parseLine(line: string): { result?: JobResult; event: JobEventInput } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { event: { level: 'info', type: 'output', message: line.slice(0, 2000) } };
  }
  const v = value as { result?: JobResult; event?: Partial<JobEventInput> };
  if (v && typeof v === 'object' && v.result && typeof v.result === 'object')
    return { result: v.result, event: { level: 'info', type: 'result', message: 'result received' } };
  const e = v?.event;
  if (e && typeof e.message === 'string') {
    return {
      event: {
        level: LEVELS.has(e.level as string) ? (e.level as JobEventInput['level']) : 'info',
        type: typeof e.type === 'string' ? e.type : 'output',
        message: e.message.slice(0, 2000),
        ...(e.data && typeof e.data === 'object' ? { data: e.data } : {}),
      },
    };
  }
  return { event: { level: 'info', type: 'output', message: line.slice(0, 2000) } };
}

export default adapterModule('agent', AcmeAgentExecutor);
