import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery, pageSchema } from '../../../core/http/pagination.js';
import { Ok, Repository } from '../schemas.js';
import type { ConnectInput } from '../services/repositories.js';
import { ADMIN, idParam, type CodehostRouteServices } from './context.js';

const tags = ['repositories'];

export function repositoryRoutes(s: CodehostRouteServices): ServerRoute[] {
  const id = (request: { params: unknown }) => (request.params as { id: string }).id;
  return [
    {
      method: 'GET',
      path: '/v1/repositories',
      options: {
        id: 'listRepositories',
        tags,
        description: 'Connected repositories, by name',
        notes: 'Only repositories of workspaces you can open.',
        validate: {
          query: Joi.object({
            ...paginationQuery,
            workspace_id: Joi.string().max(100),
            installation_id: Joi.string().max(100),
          }),
        },
        response: {
          status: {
            200: pageSchema(Repository),
          },
        },
        handler: (request) => s.repositories.list(requirePrincipal(request), request.query as { limit: number }),
      },
    },
    {
      method: 'POST',
      path: '/v1/repositories',
      options: {
        id: 'connectRepository',
        tags,
        description: 'Connect a repository of an installation to a workspace',
        notes:
          'Name it by external_id or full_name. Plan limits apply (402 plan_limit_reached, details.reason ' +
          'repositories_per_workspace or public_repos_only). 409 repository_already_connected, 422 ' +
          'repository_not_in_installation or repository_archived. The code index is built in the background ' +
          '(index.status).',
        plugins: { patchwell: { roles: ['owner', 'admin'], successStatus: 201 } },
        validate: {
          payload: Joi.object({
            installation_id: Joi.string().max(100).required(),
            workspace_id: Joi.string().max(100).required(),
            external_id: Joi.alternatives(Joi.string().max(100), Joi.number().integer()).custom((v) => String(v)),
            full_name: Joi.string()
              .pattern(/^[^/\s]+\/[^/\s]+$/)
              .max(200),
          }).or('external_id', 'full_name'),
        },
        response: { status: { 201: Repository } },
        handler: async (request, h) => {
          const row = await s.repositories.connect(request.actor(), request.payload as ConnectInput);
          return h.response(s.repositories.json(row)).code(201);
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/repositories/{id}',
      options: {
        id: 'getRepository',
        tags,
        description: 'One connected repository',
        validate: { params: idParam },
        response: { status: { 200: Repository } },
        handler: async (request) =>
          s.repositories.json(await s.repositories.load(requirePrincipal(request), id(request))),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/repositories/{id}',
      options: {
        id: 'deleteRepository',
        tags,
        description: 'Disconnect a repository',
        notes: 'Its code index and the index cache are deleted; the repository on the code host is untouched. Audited.',
        plugins: ADMIN,
        validate: { params: idParam },
        response: { status: { 200: Ok } },
        handler: async (request) => {
          await s.repositories.disconnect(request.actor(), id(request));
          return { ok: true };
        },
      },
    },
    {
      method: 'PUT',
      path: '/v1/repositories/{id}/agent-key',
      options: {
        id: 'setRepositoryAgentKey',
        tags,
        description: 'Store the agent key as a CI secret of the repository',
        notes:
          'The key goes to the code host (sealed as the host requires) and is never stored here; agent_key.last4 keeps its last four characters. Audited.',
        plugins: ADMIN,
        validate: { params: idParam, payload: Joi.object({ key: Joi.string().trim().min(8).max(4096).required() }) },
        response: { status: { 200: Repository } },
        handler: async (request) =>
          s.repositories.json(
            await s.repositories.setAgentKey(request.actor(), id(request), (request.payload as { key: string }).key),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/repositories/{id}/guidelines',
      options: {
        id: 'readRepositoryGuidelines',
        tags,
        description: 'Re-read the contributing and code-of-conduct files of a public repository',
        notes: 'Looks in the root, .github/ and docs/. 422 repository_not_public for a private repository.',
        plugins: ADMIN,
        validate: { params: idParam },
        response: { status: { 200: Repository } },
        handler: async (request) =>
          s.repositories.json(await s.repositoryOpenSource.readGuidelines(request.actor(), id(request))),
      },
    },
    {
      method: 'POST',
      path: '/v1/repositories/{id}/labels',
      options: {
        id: 'createRepositoryLabels',
        tags,
        description: 'Create the open-source labels: one that opts in, one that opts out',
        notes: "Names come from the workspace's open-source settings; existing labels get the colour and description.",
        plugins: ADMIN,
        validate: { params: idParam },
        response: { status: { 200: Repository } },
        handler: async (request) =>
          s.repositories.json(await s.repositoryOpenSource.createLabels(request.actor(), id(request))),
      },
    },
    {
      method: 'POST',
      path: '/v1/repositories/{id}/onboarding-pr',
      options: {
        id: 'openRepositoryOnboardingPr',
        tags,
        description: 'Open or update the onboarding pull request',
        notes:
          'Pushes the runner workflow and the Patchwell config to the onboarding branch and opens its pull ' +
          'request, or updates the open one. A code-host refusal is recorded in onboarding_pr.error.',
        plugins: ADMIN,
        validate: { params: idParam },
        response: { status: { 200: Repository } },
        handler: async (request) =>
          s.repositories.json(await s.repositories.openOnboardingPr(request.actor(), id(request))),
      },
    },
    {
      method: 'POST',
      path: '/v1/repositories/{id}/refresh',
      options: {
        id: 'refreshRepository',
        tags,
        description: 'Re-read name, default branch and visibility',
        notes:
          '409 repository_unavailable when the code host no longer gives access. A changed default branch is indexed again.',
        plugins: ADMIN,
        validate: { params: idParam },
        response: { status: { 200: Repository } },
        handler: async (request) => s.repositories.json(await s.repositories.refresh(request.actor(), id(request))),
      },
    },
  ];
}
