import type { McpService } from './services/mcp-service.js';

/** What the mcp plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    mcpService: McpService;
  }
}
