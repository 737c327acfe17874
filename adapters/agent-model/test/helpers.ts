import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import type { AgentJob, CodeHit, JobTools } from '../../../core/contracts/index.js';
import { kitJob, recordingIO } from '../../../test/contracts/agent-executor.js';
import { testSandboxOptions } from '../../../test/helpers/sandbox.js';
import { loadScenarios, startModelPeer, type ModelPeer, type WireProtocol } from '../../../test/peers/model-api.js';
import { ModelAgentExecutor } from '../index.js';

export const PROTOCOLS: readonly WireProtocol[] = ['openai', 'anthropic'];
/** The model of the recorded turns of each protocol, and the key the workspace's credential holds. */
export const MODEL: Record<WireProtocol, string> = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5' };
export const KEY = 'sk-test-4c1d9e7f0a2b3c4d5e6f';
/** USD per million tokens of the test models (cost_usd and max_cost_usd use them). */
export const PRICE = { input: 3, output: 15 };

export const turnsDir = (protocol: WireProtocol): string =>
  fileURLToPath(new URL(`./turns/${protocol}/`, import.meta.url));

/** The peer for one protocol with every recorded scenario; closed when the test ends. */
export async function peerFor(t: Test, protocol: WireProtocol): Promise<ModelPeer> {
  const peer = await startModelPeer(protocol, loadScenarios(turnsDir(protocol)));
  t.teardown(() => peer.close());
  return peer;
}

/** An executor against the peer, whose workspaces' model key credential is KEY. */
export function createExecutor(
  protocol: WireProtocol,
  baseUrl: string,
  opts: Record<string, unknown> = {},
  key: string | null = KEY,
): ModelAgentExecutor {
  const options = ModelAgentExecutor.validateOptions({
    provider: protocol,
    baseUrl,
    model: MODEL[protocol],
    prices: { [MODEL[protocol]]: PRICE },
    ...testSandboxOptions,
    ...opts,
  });
  return new ModelAgentExecutor(options, {
    config: {},
    log: undefined,
    agentModelKeys: {
      keyFor: () => Promise.resolve(key ? { secret: key, kind: 'model_key_a', last4: key.slice(-4) } : null),
    },
  });
}

/** The job's code index: a documentation passage and the cart's code; a search for a path finds that file only. */
export const INDEX: CodeHit[] = [
  {
    path: 'docs/checkout.md',
    line_start: 3,
    line_end: 6,
    snippet:
      'Discount codes: enter the code in the "Discount code" field of the payment page, before you confirm the order.',
    url: 'https://git.example/acme/shop/blob/main/docs/checkout.md#L3-L6',
  },
  {
    path: 'cart.js',
    line_start: 1,
    line_end: 1,
    symbol: 'total',
    snippet: 'exports.total = (items) => items.reduce((sum, i) => sum + i.price, 0);',
  },
];

export const indexTools = (gitAccess?: JobTools['gitAccess']): JobTools => ({
  searchCode: (query: string, limit = 5) =>
    Promise.resolve((/^[\w./-]+\.\w+$/.test(query) ? INDEX.filter((h) => h.path === query) : INDEX).slice(0, limit)),
  ...(gitAccess ? { gitAccess } : {}),
});

/** Git access to a local bare repository for `ms`. */
export const gitTo =
  (bare: string, ms: number): NonNullable<JobTools['gitAccess']> =>
  () =>
    Promise.resolve({ cloneUrl: bare, token: 'tok', expiresAt: new Date(Date.now() + ms) });

export const diagnoseJob = (subject: string, body: string, extra: Partial<AgentJob> = {}): AgentJob => ({
  ...kitJob('diagnose'),
  ticket: { id: 'tkt_model1', subject, body, origin: 'email' },
  repository: { id: 'rep_1', full_name: 'acme/shop', default_branch: 'main', is_public: true },
  ...extra,
});

export const ioWith = (tools: JobTools, cancelled = false) => Object.assign(recordingIO(cancelled), { tools });
