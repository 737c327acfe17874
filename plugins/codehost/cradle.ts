import type { CodeIndexService } from './services/code-index.js';
import type { CommentService } from './services/comments.js';
import type { RepositoryService } from './services/repositories.js';

/** What the codehost plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    codeIndex: CodeIndexService;
    codehostRepositories: RepositoryService;
    codehostComments: CommentService;
  }
}
