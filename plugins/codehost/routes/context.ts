import Joi from 'joi';
import type { CodeIndexService } from '../services/code-index.js';
import type { InstallationService } from '../services/installations.js';
import type { OssService } from '../services/oss.js';
import type { RepositoryService } from '../services/repositories.js';
import type { RepositoryOpenSource } from '../services/repository-open-source.js';
import type { SignInService } from '../services/sign-in.js';
import type { WebhookService } from '../services/webhooks.js';

/** The services the route tables call (built once in index.ts). */
export interface CodehostRouteServices {
  installations: InstallationService;
  repositories: RepositoryService;
  repositoryOpenSource: RepositoryOpenSource;
  oss: OssService;
  webhooks: WebhookService;
  signIn: SignInService;
  codeIndex: CodeIndexService;
}

export const idParam = Joi.object({ id: Joi.string().max(100).required() });
export const workspaceParam = Joi.object({ workspaceId: Joi.string().max(100).required() });
export const ADMIN = { patchwell: { roles: ['owner', 'admin'] } };
