import type { Boom } from '@hapi/boom';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import * as z from 'zod';
import type { Principal } from '../../../core/http/auth.js';
import { TICKET_CATEGORIES } from '../../../core/contracts/index.js';
import type { McpService } from './mcp-service.js';

const id = z.string().min(1).max(64);
const reference = z
  .object({
    path: z.string().min(1).max(1000),
    line_start: z.number().int().min(1).optional(),
    line_end: z.number().int().min(1).optional(),
    symbol: z.string().max(300).optional(),
    url: z.string().url().max(2000).optional(),
  })
  .strict();

/** The tools: name, description (what the IDE agent reads), input schema (validated here; invalid input is a JSON-RPC error). */
export const TOOLS = {
  list_tickets: {
    description:
      'Lists tickets of the workspaces your token opens, most recently updated first. waiting_only: only ' +
      'tickets whose diagnosis or fix job waits for you (oldest first). Each item names its waiting_job.',
    schema: z
      .object({
        workspace_id: id.optional(),
        state: z.array(z.string().max(40)).max(20).optional(),
        category: z
          .array(z.enum(TICKET_CATEGORIES as [string, ...string[]]))
          .max(6)
          .optional(),
        q: z.string().max(200).optional(),
        waiting_only: z.boolean().optional(),
        cursor: z.string().max(500).optional(),
        limit: z.number().int().min(1).max(50).optional(),
      })
      .strict(),
  },
  get_ticket: {
    description:
      'One ticket as the ticket page shows it ({ticket, waiting_job}): ticket carries the conversation, ' +
      'the latest diagnosis (ticket.diagnosis, with references into the repository), drafts, fix attempts ' +
      'with their pull requests and approvals, the release, recent audit entries and jobs; waiting_job is ' +
      'the job waiting for you (branch to push, instructions, test command) or null.',
    schema: z.object({ ticket_id: id }).strict(),
  },
  submit_diagnosis: {
    description:
      'Submits the diagnosis of a ticket whose diagnosis job waits for you: category, confidence 0..1, ' +
      'root cause (markdown), references, optional public summary and a draft reply. The loop continues ' +
      '(drafts, autonomy, a fix job for a confident bug).',
    schema: z
      .object({
        ticket_id: id,
        category: z.enum(TICKET_CATEGORIES as [string, ...string[]]),
        confidence: z.number().min(0).max(1),
        root_cause_md: z.string().min(1).max(20_000),
        references: z.array(reference).max(50).default([]),
        public_summary: z.string().max(2000).optional(),
        draft: z
          .object({
            kind: z.enum(['reply', 'needs_info', 'interim']),
            body_md: z.string().min(1).max(20_000),
            language: z.string().min(2).max(10).optional(),
          })
          .strict()
          .optional(),
        cost_usd: z.number().min(0).max(1000).optional(),
      })
      .strict(),
  },
  submit_draft: {
    description:
      'Writes a draft reply on a ticket (a person sends it with their own click). One draft waits at a time.',
    schema: z
      .object({
        ticket_id: id,
        kind: z.enum(['reply', 'needs_info']),
        body_md: z.string().min(1).max(20_000),
        public_summary: z.string().max(2000).nullable().optional(),
      })
      .strict(),
  },
  submit_fix: {
    description:
      "Submits the fix of a ticket whose fix job waits for you: push your commit to the job's branch " +
      'first, then name it with your test outcome. The service checks the branch at the code host and ' +
      'hands it to the loop (pull request, approval at the commit SHA, release).',
    schema: z
      .object({
        ticket_id: id,
        branch: z.string().min(1).max(250),
        head_sha: z
          .string()
          .regex(/^[0-9a-f]{40}$/)
          .optional(),
        tests_ran: z.boolean(),
        tests_passed: z.boolean(),
        verify_passed: z.boolean().optional(),
        cost_usd: z.number().min(0).max(1000).optional(),
      })
      .strict(),
  },
} as const;

type ToolName = keyof typeof TOOLS;

function listed() {
  return Object.entries(TOOLS).map(([name, t]) => {
    const { $schema: _drop, ...inputSchema } = z.toJSONSchema(t.schema, { io: 'input' }) as Record<string, unknown>;
    return { name, description: t.description, inputSchema: inputSchema as { type: 'object'; [k: string]: unknown } };
  });
}

const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  422: 'unprocessable_entity',
  429: 'rate_limited',
};

const isBoom = (err: unknown): err is Boom => !!(err as { isBoom?: boolean }).isBoom;

/** A refusal of the service (404, 403, 409, 422 …) as a tool result the agent can read. */
function refusal(err: Boom): CallToolResult {
  const data = (err.data ?? {}) as { code?: string; details?: Record<string, unknown> };
  const status = err.output.statusCode;
  const body = {
    status,
    code: data.code ?? CODES[status] ?? 'invalid_request',
    message: err.message,
    details: data.details ?? {},
  };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/** An MCP server for one request of one principal (stateless: the SDK's server is cheap to build). */
export function mcpServer(service: McpService, principal: Principal, log: Logger, version: string): Server {
  const server = new Server(
    { name: 'patchwell', version },
    {
      capabilities: { tools: {} },
      instructions:
        'Patchwell support tickets: list_tickets (waiting_only for your queue), get_ticket, then submit_diagnosis, submit_draft or submit_fix.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed() }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = request.params.name as ToolName;
    const tool = TOOLS[name];
    if (!tool || !Object.prototype.hasOwnProperty.call(TOOLS, name))
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}`);
    const parsed = tool.schema.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
        { issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
      );
    }
    const args = parsed.data as never;
    try {
      let out: Record<string, unknown>;
      switch (name) {
        case 'list_tickets':
          out = await service.listTickets(principal, args);
          break;
        case 'get_ticket':
          out = await service.getTicket(principal, (args as { ticket_id: string }).ticket_id);
          break;
        case 'submit_diagnosis':
          out = await service.submitDiagnosis(principal, args);
          break;
        case 'submit_draft':
          out = await service.submitDraft(principal, args);
          break;
        case 'submit_fix':
          out = await service.submitFix(principal, args);
          break;
      }
      return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
    } catch (err) {
      if (isBoom(err) && err.output.statusCode < 500) return refusal(err);
      log.error({ err, tool: name }, 'mcp: tool failed');
      throw new McpError(ErrorCode.InternalError, isBoom(err) ? err.message : 'The tool failed; try again later');
    }
  });
  return server;
}
