import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  generateText,
  streamText,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  type StepResult,
  type StopCondition,
  type ToolSet,
} from 'ai';

export type ModelProvider = 'openai' | 'anthropic';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** One model endpoint: `openai` speaks chat completions (OpenAI, vLLM, llama.cpp, Ollama), `anthropic` speaks messages. */
export function languageModel(
  provider: ModelProvider,
  baseUrl: string,
  model: string,
  apiKey: string | null,
): LanguageModel {
  if (provider === 'anthropic') return createAnthropic({ baseURL: baseUrl, apiKey: apiKey ?? '' })(model);
  return createOpenAICompatible({
    name: 'patchwell-model',
    baseURL: baseUrl,
    ...(apiKey ? { apiKey } : {}),
    includeUsage: true,
  }).chatModel(model);
}

/**
 * What a job spent: tokens in and out, and their price when the model has one. The job's limits
 * (tokens, max_cost_usd) are checked against it after every model turn.
 */
export class Spend {
  inputTokens = 0;
  outputTokens = 0;

  constructor(readonly price: ModelPrice | undefined) {}

  add(usage: Partial<LanguageModelUsage> | undefined): void {
    this.inputTokens += usage?.inputTokens ?? 0;
    this.outputTokens += usage?.outputTokens ?? 0;
  }

  get tokens(): number {
    return this.inputTokens + this.outputTokens;
  }

  get costUsd(): number {
    if (!this.price) return 0;
    const usd = (this.inputTokens * this.price.input + this.outputTokens * this.price.output) / 1e6;
    return Math.round(usd * 1e6) / 1e6;
  }
}

export interface Turns<T extends ToolSet> {
  model: LanguageModel;
  system: string;
  messages: ModelMessage[];
  tools?: T;
  stopWhen?: StopCondition<T> | Array<StopCondition<T>>;
  maxOutputTokens: number;
  maxRetries: number;
  abortSignal: AbortSignal;
  stream: boolean;
  onStep: (step: StepResult<T>) => void | Promise<void>;
}

export interface TurnsResult {
  text: string;
  /** The assistant and tool messages of these turns, to continue the conversation. */
  messages: ModelMessage[];
}

/**
 * One exchange with the model (with tools: the SDK's loop of steps until `stopWhen`). Streaming or
 * not, the outcome is the same; an error of the stream is thrown like one of a plain request.
 */
export async function converse<T extends ToolSet>(c: Turns<T>): Promise<TurnsResult> {
  const common = {
    model: c.model,
    system: c.system,
    messages: c.messages,
    maxOutputTokens: c.maxOutputTokens,
    maxRetries: c.maxRetries,
    abortSignal: c.abortSignal,
    temperature: 0,
    ...(c.tools ? { tools: c.tools } : {}),
    ...(c.stopWhen ? { stopWhen: c.stopWhen } : {}),
    onStepFinish: c.onStep,
  };
  if (!c.stream) {
    const r = await generateText(common);
    return { text: r.text, messages: r.response.messages };
  }
  let failure: Error | undefined;
  const r = streamText({
    ...common,
    onError: ({ error }) => {
      failure ??= error instanceof Error ? error : new Error(String(error));
    },
  });
  try {
    const [text, response] = await Promise.all([r.text, r.response]);
    if (failure) throw failure;
    return { text, messages: response.messages };
  } catch (err) {
    throw failure ?? err;
  }
}
