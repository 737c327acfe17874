import type { WorkspaceService } from './services/workspace-service.js';

/** What the workspaces plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    workspaceService: WorkspaceService;
  }
}
