/**
 * Opt-in: the diagnosis and the two-step fix against a real model endpoint. Skipped unless
 * MODEL_BASE_URL is set; MODEL_API_KEY (none for a local server), MODEL_NAME and MODEL_PROVIDER
 * (`openai` for chat completions: OpenAI, vLLM, llama.cpp, Ollama; `anthropic`) complete it, e.g.
 *   MODEL_BASE_URL=http://localhost:11434/v1 MODEL_NAME=qwen2.5-coder:7b npx tap adapters/agent-model/test/live.test.ts
 */
import t from 'tap';
import { checkJobResult } from '../../../test/contracts/agent-executor.js';
import { bareRepo, fixJob } from '../../agent-managed/test/helpers.js';
import { createExecutor, diagnoseJob, gitTo, indexTools, ioWith } from './helpers.js';

const baseUrl = process.env.MODEL_BASE_URL;
const provider = process.env.MODEL_PROVIDER === 'anthropic' ? 'anthropic' : 'openai';
const options = { model: process.env.MODEL_NAME ?? 'qwen2.5-coder:7b', prices: {}, timeoutMs: 10 * 60_000 };
const skip = baseUrl ? false : 'MODEL_BASE_URL is not set (opt-in test against a real model endpoint)';

void t.test(
  'a real model diagnoses the cart report with references from the code index',
  { skip, timeout: 600_000 },
  async (t) => {
    const job = diagnoseJob(
      'Cart total ignores quantity',
      'Two shirts at 10 € cost 10 € in the cart: the total is wrong.',
    );
    const io = ioWith(indexTools());
    await createExecutor(provider, baseUrl!, options, process.env.MODEL_API_KEY ?? null).start(job, io);
    t.same(checkJobResult(io.results[0], job), [], 'the result fits the contract');
    t.match(
      io.results[0],
      { status: 'succeeded', diagnosis: { category: 'bug' } },
      JSON.stringify(io.results[0]?.error),
    );
  },
);

void t.test(
  'a real model fixes the cart in the sandboxed checkout and the tests pass',
  { skip, timeout: 600_000 },
  async (t) => {
    const bare = bareRepo(t);
    const base = fixJob();
    const job = {
      ...base,
      ticket: {
        ...base.ticket,
        subject: 'Checkout total is wrong for several items',
        body: 'The total of cart.js ignores the quantity of each item (price 2, qty 3 gives 2, not 6); node test.js fails.',
      },
      limits: { max_minutes: 10, max_cost_usd: 1 },
    };
    const io = ioWith(indexTools(gitTo(bare, 600_000)));
    await createExecutor(provider, baseUrl!, options, process.env.MODEL_API_KEY ?? null).start(job, io);
    t.same(checkJobResult(io.results[0], job), [], 'the result fits the contract');
    t.match(io.results[0], { status: 'succeeded', fix: { verify_passed: true } }, JSON.stringify(io.results[0]?.error));
  },
);
