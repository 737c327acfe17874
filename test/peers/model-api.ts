/**
 * A local model API peer for tests: speaks OpenAI chat completions (`POST /v1/chat/completions`,
 * tool calls, SSE streaming when the request asks) and Anthropic messages (`POST /v1/messages`,
 * tool_use blocks, SSE events when streaming), replaying recorded model turns.
 *
 * A scenario is a JSON file `{ "match": ["<texts found in the request>"], "turns": [ <response body>, … ] }`
 * whose turns are the non-streaming response bodies exactly as the API returns them; a streaming
 * request gets the same turn cut into the API's stream events. Which turn answers a request is
 * the number of assistant messages already in its conversation, so a scenario replays the same
 * way however often it runs. A turn may be wrapped as `{ "delay_ms": n, "status": n, "body": … }`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export type WireProtocol = 'openai' | 'anthropic';

export interface Scenario {
  name: string;
  /** Texts the request must all contain (the ticket's subject, a word of the prompt) for this scenario to answer. */
  match: string[];
  turns: unknown[];
}

export interface PeerRequest {
  path: string;
  scenario: string | null;
  turn: number;
  stream: boolean;
  authorization: string | null;
  body: Record<string, unknown>;
}

export interface ModelPeer {
  baseUrl: string;
  requests: PeerRequest[];
  close(): Promise<void>;
}

interface Wrapped {
  delay_ms?: number;
  status?: number;
  body: Record<string, unknown>;
}

/** The scenarios of a folder of recorded turns (`<name>.json`). */
export function loadScenarios(dir: string): Scenario[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const s = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { match: string | string[]; turns: unknown[] };
      return { name: f.replace(/\.json$/, ''), match: [s.match].flat(), turns: s.turns };
    });
}

const unwrap = (turn: unknown): Wrapped =>
  turn && typeof turn === 'object' && 'body' in turn ? (turn as Wrapped) : { body: turn as Record<string, unknown> };

function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const e of events)
    res.write(
      `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
    );
  res.end();
}

interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A chat.completion cut into chat.completion.chunk events, as the API streams it (usage last, then [DONE]). */
export function openaiChunks(body: Record<string, unknown>, includeUsage: boolean): Array<{ data: unknown }> {
  const choice = (
    body.choices as Array<{ message: { content: string | null; tool_calls?: OpenAIToolCall[] }; finish_reason: string }>
  )[0];
  const base = { id: body.id, object: 'chat.completion.chunk', created: body.created, model: body.model };
  const out: Array<{ data: unknown }> = [
    { data: { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] } },
  ];
  const text = choice.message.content ?? '';
  for (let i = 0; i < text.length; i += 40)
    out.push({
      data: { ...base, choices: [{ index: 0, delta: { content: text.slice(i, i + 40) }, finish_reason: null }] },
    });
  (choice.message.tool_calls ?? []).forEach((c, index) => {
    out.push({
      data: {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }],
            },
            finish_reason: null,
          },
        ],
      },
    });
    out.push({
      data: {
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index, function: { arguments: c.function.arguments } }] },
            finish_reason: null,
          },
        ],
      },
    });
  });
  out.push({ data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }] } });
  if (includeUsage) out.push({ data: { ...base, choices: [], usage: body.usage } });
  out.push({ data: '[DONE]' });
  return out;
}

type AnthropicBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

/** A message cut into the Messages API's stream events (message_start … message_stop). */
export function anthropicEvents(body: Record<string, unknown>): Array<{ event: string; data: unknown }> {
  const usage = body.usage as { input_tokens: number; output_tokens: number };
  const out: Array<{ event: string; data: unknown }> = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          ...body,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
        },
      },
    },
  ];
  (body.content as AnthropicBlock[]).forEach((block, index) => {
    if (block.type === 'text') {
      out.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      });
      for (let i = 0; i < block.text.length; i += 40)
        out.push({
          event: 'content_block_delta',
          data: {
            type: 'content_block_delta',
            index,
            delta: { type: 'text_delta', text: block.text.slice(i, i + 40) },
          },
        });
    } else {
      out.push({
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        },
      });
      out.push({
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        },
      });
    }
    out.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  out.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: body.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
  });
  out.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return out;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/** Starts the peer on a free local port; `baseUrl` ends in /v1 like the real APIs' base URLs. */
export async function startModelPeer(protocol: WireProtocol, scenarios: Scenario[]): Promise<ModelPeer> {
  const requests: PeerRequest[] = [];
  const path = protocol === 'openai' ? '/v1/chat/completions' : '/v1/messages';
  const error = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        protocol === 'openai'
          ? { error: { message, type: 'invalid_request_error', code: null } }
          : { type: 'error', error: { type: 'invalid_request_error', message } },
      ),
    );
  };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url?.split('?')[0] !== path)
        return error(res, 404, `no route ${req.method} ${req.url}`);
      const body = await readBody(req);
      const messages = (body.messages ?? []) as Array<{ role: string }>;
      const text = JSON.stringify(body);
      const scenario = scenarios.find((s) => s.match.every((m) => text.includes(m))) ?? null;
      const turn = messages.filter((m) => m.role === 'assistant').length;
      const stream = body.stream === true;
      const authorization = req.headers.authorization ?? (req.headers['x-api-key'] as string | undefined) ?? null;
      requests.push({ path, scenario: scenario?.name ?? null, turn, stream, authorization, body });
      if (!scenario) return error(res, 400, 'no recorded scenario matches this conversation');
      const recorded = scenario.turns[turn];
      if (!recorded) return error(res, 400, `scenario ${scenario.name} has no turn ${turn}`);
      const w = unwrap(recorded);
      if (w.delay_ms) await new Promise((r) => setTimeout(r, w.delay_ms));
      if (res.destroyed || res.socket?.destroyed) return; // the client went away while the turn waited
      if (w.status && w.status !== 200) {
        res.writeHead(w.status, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(w.body));
      }
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(w.body));
      }
      const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      return sse(res, protocol === 'openai' ? openaiChunks(w.body, includeUsage) : anthropicEvents(w.body));
    })().catch((err: unknown) => error(res, 500, (err as Error).message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
