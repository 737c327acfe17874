import type { LanguageModel, StepResult, ToolSet } from 'ai';
import type { AgentJob, JobIO, JobResult } from '../../core/contracts/index.js';
import type { Spend } from './model.js';

/** Why a job's model work stopped before its end. */
export type StopReason = 'cancelled' | 'timed_out' | 'cost_limit_reached' | 'token_limit_reached';

/** What the diagnosis and the fix loop of one job share (built by the executor in index.ts). */
export interface RunContext {
  job: AgentJob;
  io: JobIO;
  model: LanguageModel;
  spend: Spend;
  /** Aborted on cancellation and at the wall-clock limit. */
  signal: AbortSignal;
  /** The reason the job must stop now, if any (checked after every model turn and tool call). */
  stopReason(): StopReason | null;
  /** Sets the stop reason for a limit found after a turn. */
  checkLimits(): StopReason | null;
  stream: boolean;
  maxOutputTokens: number;
  maxRetries: number;
  maxTokens: number;
  /** The model key, only to scrub it from error texts. */
  secret: string | null;
  /** Ends the job with what was spent. */
  end(status: 'failed', code: string, detail: string): JobResult;
}

/** The result a stopped job ends with. */
export function stopped(ctx: RunContext, reason: StopReason, limitMs: number): JobResult {
  const { spend, job } = ctx;
  switch (reason) {
    case 'cancelled':
      return { status: 'cancelled', cost_usd: spend.costUsd };
    case 'timed_out':
      return ctx.end('failed', 'timed_out', `the model work ran past ${Math.round(limitMs / 1000)} s`);
    case 'cost_limit_reached':
      return ctx.end(
        'failed',
        'cost_limit_reached',
        `the model calls cost $${spend.costUsd}, above the job's limit of $${job.limits.max_cost_usd}`,
      );
    case 'token_limit_reached':
      return ctx.end(
        'failed',
        'token_limit_reached',
        `the model calls used ${spend.tokens} tokens, above the job's limit of ${ctx.maxTokens}`,
      );
  }
}

/** A model error as a job error: the HTTP status when there is one, never the key. */
export function modelError(ctx: RunContext, err: unknown): JobResult {
  const e = err as { statusCode?: number; message?: string };
  let detail = `${e.statusCode ? `HTTP ${e.statusCode}: ` : ''}${e.message ?? String(err)}`.slice(0, 500);
  if (ctx.secret) detail = detail.split(ctx.secret).join('[key]');
  const code = e.statusCode === 401 || e.statusCode === 403 ? 'model_auth_failed' : 'model_error';
  return ctx.end('failed', code, `the model API answered with an error (${detail})`);
}

/**
 * The settings of every model call of a job, and its turn bookkeeping: each answer's tokens are
 * added to the job's spend and logged as a `model_turn` event (with the model's words, if any).
 */
export function callSettings<T extends ToolSet>(ctx: RunContext) {
  return {
    model: ctx.model,
    maxOutputTokens: ctx.maxOutputTokens,
    maxRetries: ctx.maxRetries,
    abortSignal: ctx.signal,
    stream: ctx.stream,
    onStep: async (step: StepResult<T>): Promise<void> => {
      ctx.spend.add(step.usage);
      await ctx.io.emit({
        level: 'info',
        type: 'model_turn',
        message: `model turn: ${step.toolCalls.length} tool call(s) (${step.usage.inputTokens ?? 0} in, ${step.usage.outputTokens ?? 0} out)`,
        data: { tokens: ctx.spend.tokens, cost_usd: ctx.spend.costUsd, finish_reason: step.finishReason },
      });
      if (step.toolCalls.length && step.text.trim())
        await ctx.io.emit({ level: 'info', type: 'model_note', message: step.text.trim().slice(0, 2000) });
    },
  };
}
