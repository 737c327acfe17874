import Joi from 'joi';
import {
  AbstractAgentExecutor,
  adapterModule,
  agentExecutorOptionKeys,
  type AdapterDeps,
  type AgentExecutorOptions,
  type AgentJob,
  type JobIO,
  type JobResult,
} from '../../core/contracts/index.js';
import { checkoutOptionKeys, sandboxAtStart, type CheckoutOptions, type Sandbox } from '../agent-managed/sandbox.js';
import { diagnose } from './diagnose.js';
import { fix } from './fix.js';
import { languageModel, Spend, type ModelPrice, type ModelProvider } from './model.js';
import { promptVersions } from './prompts.js';
import { stopped, type RunContext, type StopReason } from './run-context.js';

export interface ModelAgentOptions extends AgentExecutorOptions, CheckoutOptions {
  /** `openai`: OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp, Ollama); `anthropic`: messages. */
  provider: ModelProvider;
  /** The API's base URL, with its version path (`https://api.openai.com/v1`, `http://localhost:11434/v1`). */
  baseUrl: string;
  /** The model when the workspace's agent_config names none. */
  model: string;
  /**
   * A variable of the service's environment holding a key for every workspace without a model key
   * credential (a self-hosted, single-team install); the workspace's credential comes first.
   */
  apiKeyEnv?: string;
  /** Stream the answers (SSE) rather than wait for whole ones. */
  stream: boolean;
  /** Most tokens one model answer may have. */
  maxOutputTokens: number;
  /** Most tokens (in + out) of all the model calls of one job. */
  maxTokens: number;
  /** Most model turns of a fix's tool loop. */
  maxSteps: number;
  /** Retries of a failed model call (rate limits, 5xx) by the SDK. */
  maxRetries: number;
  /** Wall-clock limit of a job when its max_minutes is longer. */
  timeoutMs: number;
  /** USD per million input and output tokens, by model name: cost_usd and the job's max_cost_usd use them. */
  prices: Record<string, ModelPrice>;
}

/** The onboarding plugin's `agentModelKeys` (a workspace's model key credential in clear). */
interface ModelKeySource {
  keyFor(orgId: string, workspaceId: string): Promise<{ secret: string; kind: string; last4: string } | null>;
}

/** How often a job's cancellation is looked at while the model works. */
const WATCH_MS = 250;

const price = Joi.object<ModelPrice>({ input: Joi.number().min(0).required(), output: Joi.number().min(0).required() });

/**
 * The model-backed executor (docs/agent-model.md): talks to a model API directly through the
 * Vercel AI SDK, with the workspace's model key credential. Diagnoses with passages of the code
 * index (diagnose.ts) and writes fixes with a bounded tool loop in agent-managed's sandboxed
 * checkout (fix.ts). Spend is counted in tokens and, with a price for the model, in USD.
 */
export class ModelAgentExecutor extends AbstractAgentExecutor<ModelAgentOptions> {
  static override identifier = 'agent-model';
  static override optionsSchema = Joi.object<ModelAgentOptions>({
    ...agentExecutorOptionKeys,
    provider: Joi.string().valid('openai', 'anthropic').default('openai'),
    baseUrl: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .default('http://localhost:11434/v1'),
    model: Joi.string().min(1).max(200).default('qwen2.5-coder:7b'),
    apiKeyEnv: Joi.string().pattern(/^[A-Z_][A-Z0-9_]*$/),
    stream: Joi.boolean().default(true),
    maxOutputTokens: Joi.number().integer().min(64).max(200_000).default(4096),
    maxTokens: Joi.number().integer().min(1000).max(50_000_000).default(400_000),
    maxSteps: Joi.number().integer().min(2).max(200).default(30),
    maxRetries: Joi.number().integer().min(0).max(5).default(2),
    timeoutMs: Joi.number()
      .integer()
      .min(1000)
      .max(24 * 3_600_000)
      .default(30 * 60_000),
    prices: Joi.object().pattern(Joi.string(), price).default({}),
    ...checkoutOptionKeys,
  });
  readonly mode = 'managed' as const;
  readonly capabilities = { diagnose: true, fix: true };
  readonly sandbox: Sandbox;

  constructor(options: ModelAgentOptions, deps?: AdapterDeps) {
    super(options, deps);
    this.sandbox = sandboxAtStart(options.sandbox, this.deps.log, 'agent-model');
  }

  /** The onboarding plugin's key source when it runs (the container throws for a key nobody provides). */
  private keySource(): ModelKeySource | undefined {
    try {
      return (this.deps as Record<string, unknown>).agentModelKeys as ModelKeySource | undefined;
    } catch {
      return undefined;
    }
  }

  /** The workspace's model key credential, else the service's environment variable, else none (a local server). */
  private async key(job: AgentJob): Promise<{ secret: string | null; shown: string }> {
    const stored = await this.keySource()?.keyFor(job.org_id, job.workspace_id);
    if (stored) return { secret: stored.secret, shown: `credential ${stored.kind} …${stored.last4}` };
    const env = this.options.apiKeyEnv ? process.env[this.options.apiKeyEnv] : undefined;
    if (env) return { secret: env, shown: `environment ${this.options.apiKeyEnv} …${env.slice(-4)}` };
    return { secret: null, shown: 'none' };
  }

  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    if (io.isCancelled()) return io.complete({ status: 'cancelled', cost_usd: 0 });
    const o = this.options;
    const modelName = job.agent?.model ?? o.model;
    const spend = new Spend(o.prices[modelName]);
    const startedAt = Date.now();
    const limitMs = Math.min(o.timeoutMs, job.limits.max_minutes * 60_000);
    const controller = new AbortController();
    let reason: StopReason | null = null;
    const stop = (r: StopReason) => {
      if (reason) return;
      reason = r;
      controller.abort(new Error(r));
    };
    const watch = setInterval(() => {
      if (io.isCancelled()) stop('cancelled');
    }, WATCH_MS);
    const timer = setTimeout(() => stop('timed_out'), limitMs);
    try {
      const { secret, shown } = await this.key(job);
      if (!secret && o.provider === 'anthropic')
        return await io.complete({
          status: 'failed',
          cost_usd: 0,
          error: {
            code: 'no_model_key',
            detail: 'the workspace has no model key credential (execution settings, api-key)',
          },
        });
      await io.emit({
        level: 'info',
        type: 'model',
        message: `${o.provider} model ${modelName} at ${new URL(o.baseUrl).host}, key: ${shown}; prompts ${promptVersions()}`,
        data: { provider: o.provider, model: modelName, priced: !!spend.price },
      });
      if (!spend.price)
        await io.emit({
          level: 'warn',
          type: 'cost',
          message: `no price configured for ${modelName} (adapters.options.agent-model.prices): cost_usd counts 0, the token limit still applies`,
        });
      const ctx: RunContext = {
        job,
        io,
        model: languageModel(o.provider, o.baseUrl, modelName, secret),
        spend,
        signal: controller.signal,
        stopReason: () => reason ?? (io.isCancelled() ? (stop('cancelled'), reason) : null),
        checkLimits: () => {
          if (spend.costUsd > job.limits.max_cost_usd) stop('cost_limit_reached');
          else if (spend.tokens > o.maxTokens) stop('token_limit_reached');
          return reason;
        },
        stream: o.stream,
        maxOutputTokens: o.maxOutputTokens,
        maxRetries: o.maxRetries,
        maxTokens: o.maxTokens,
        secret,
        end: (status, code, detail) => ({ status, cost_usd: spend.costUsd, error: { code, detail } }),
      };
      const result: JobResult =
        job.kind === 'diagnose'
          ? await diagnose(ctx, limitMs)
          : await fix(ctx, {
              sandbox: this.sandbox,
              ...(o.workRoot ? { workRoot: o.workRoot } : {}),
              maxSteps: o.maxSteps,
              maxEventLines: o.maxEventLines,
              limitMs,
              startedAt,
            });
      await io.emit({
        level: result.status === 'succeeded' ? 'info' : 'warn',
        type: 'cost',
        message: `model spend: ${spend.inputTokens} tokens in, ${spend.outputTokens} out, $${spend.costUsd} (limit $${job.limits.max_cost_usd})`,
        data: { input_tokens: spend.inputTokens, output_tokens: spend.outputTokens, cost_usd: spend.costUsd },
      });
      await io.complete(reason === 'cancelled' ? stopped(ctx, 'cancelled', limitMs) : result);
    } finally {
      clearInterval(watch);
      clearTimeout(timer);
    }
  }
}

export default adapterModule('agent', ModelAgentExecutor);
