import type { Server, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { Logger } from 'pino';
import { requirePrincipal } from '../../../core/http/auth.js';
import { httpError } from '../../../core/http/errors.js';
import { lazyImport } from '../../../core/kernel/lazy.js';
import type { McpService } from '../services/mcp-service.js';

/** The MCP SDK (with zod) costs a third of a second of CPU to load: it loads with the first MCP request. */
const loadSdk = lazyImport(() =>
  Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('../services/tools.js'),
  ]),
);

const message = Joi.object({ jsonrpc: Joi.string().valid('2.0').required() }).unknown(true);

/** POST /v1/mcp: the MCP endpoint (streamable HTTP, stateless, JSON answers). */
export function mcpRoutes(service: () => McpService, log: () => Logger, version: string): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/mcp',
      options: {
        id: 'mcp',
        tags: ['mcp'],
        description: 'The MCP endpoint for IDE agents (streamable HTTP)',
        notes:
          'Model Context Protocol over streamable HTTP, stateless, JSON answers (send `Accept: application/json, text/event-stream`). ' +
          'Authenticate with an API token of the user (`Authorization: Bearer pwt_…`); its workspace_ids scope what the agent sees. ' +
          'Tools: list_tickets, get_ticket, submit_diagnosis, submit_draft, submit_fix (docs/mcp.md). Invalid tool input is a JSON-RPC error; ' +
          'a refusal (404, 403, 409, 422) is a tool result with isError and {status, code, message, details}.',
        validate: { payload: Joi.alternatives().try(message, Joi.array().items(message).min(1).max(20)).required() },
        handler: async (request, h) => {
          const principal = requirePrincipal(request);
          if (principal.kind !== 'token')
            throw httpError(403, 'forbidden', 'The MCP endpoint takes an API token (Authorization: Bearer pwt_…)');
          const [{ WebStandardStreamableHTTPServerTransport }, { mcpServer }] = await loadSdk();
          const server = mcpServer(service(), principal, log(), version);
          // The SDK's web-standard transport answers a Request with a Response; hapi keeps owning the HTTP exchange.
          const transport = new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: undefined,
            enableJsonResponse: true,
          });
          await server.connect(transport);
          try {
            const headers = new Headers();
            // Node's own headers (request.headers is the same object, typed unknown by hapi).
            for (const [name, value] of Object.entries(request.raw.req.headers)) {
              if (name === 'content-length' || name === 'transfer-encoding' || value === undefined) continue;
              headers.set(name, Array.isArray(value) ? value.join(', ') : value);
            }
            const url = new URL(request.path, 'http://localhost');
            const answer = await transport.handleRequest(new Request(url, { method: 'POST', headers }), {
              parsedBody: request.payload,
            });
            const text = await answer.text();
            const response = h.response(text === '' ? undefined : text).code(answer.status);
            answer.headers.forEach((value, name) => {
              if (name !== 'content-length') response.header(name, value);
            });
            return response;
          } finally {
            await transport.close().catch(() => undefined);
            await server.close().catch(() => undefined);
          }
        },
      },
    },
  ];
}

/**
 * The transport's GET (event stream) and DELETE (session end) do not exist on a stateless server
 * with JSON answers: 405 with `Allow: POST`, as the MCP transport prescribes (its clients take 405
 * as "no stream"). An extension, not a route: they are no operation of the spec.
 */
export function mcpMethodGuard(server: Server): void {
  server.ext('onRequest', (request, h) => {
    if (request.path !== '/v1/mcp' || request.method === 'post' || request.method === 'options') return h.continue;
    return h
      .response({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP server is stateless and answers POST only' },
        id: null,
      })
      .code(405)
      .header('allow', 'POST')
      .takeover();
  });
}
