import type { ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import {
  WorkspacePageSchema,
  WorkspaceSchema,
  createWorkspacePayload,
  includeArchived,
  updateWorkspacePayload,
} from '../schemas.js';
import { workspaceListItem, workspaceSingle } from '../services/serialize.js';
import type { CreateWorkspaceInput, UpdateWorkspaceInput, WorkspaceService } from '../services/workspace-service.js';
import type { Workspace } from '../models/workspace.js';

const TAG = 'workspaces';
const ADMINS = { roles: ['owner', 'admin'] };
const idParams = Joi.object({ id: Joi.string().max(64).required().description('Workspace id') });

/** Route table of the workspaces section (5 operations). */
export function workspaceRoutes(service: () => WorkspaceService): ServerRoute[] {
  const single = async (ws: Workspace) => workspaceSingle(ws, await service().availableFixCredits(ws));
  return [
    {
      method: 'GET',
      path: '/v1/workspaces',
      options: {
        id: 'listWorkspaces',
        tags: [TAG],
        description: 'Lists the workspaces the caller can open, by name',
        notes:
          'Archived workspaces appear only with include_archived. List items omit inbound_address, widget, release_strategy and available_fix_credits.',
        validate: { query: Joi.object({ ...paginationQuery, include_archived: includeArchived }) },
        response: { status: { 200: WorkspacePageSchema } },
        handler: async (request) => {
          const q = request.query as { cursor?: string; limit: number; include_archived: boolean };
          const page = await service().list(requirePrincipal(request), {
            includeArchived: q.include_archived,
            cursor: q.cursor,
            limit: q.limit,
          });
          return { items: page.items.map(workspaceListItem), next_cursor: page.next_cursor };
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/workspaces',
      options: {
        id: 'createWorkspace',
        tags: [TAG],
        description: 'Creates a workspace with its inbound address and widget install',
        notes:
          "Within the plan's included workspaces; beyond them, an extra workspace (billed at the plan's " +
          'extra_workspace_price_usd a month) on plans that price extra workspaces, else 402 ' +
          'plan_limit_reached with details.reason workspaces_included.',
        validate: { payload: createWorkspacePayload },
        response: { status: { 201: WorkspaceSchema } },
        plugins: { patchwell: { ...ADMINS, successStatus: 201 } },
        handler: async (request, h: ResponseToolkit) => {
          const ws = await service().create(request.actor(), request.payload as CreateWorkspaceInput);
          return h.response(await single(ws)).code(201);
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/workspaces/{id}',
      options: {
        id: 'getWorkspace',
        tags: [TAG],
        description: 'Gets a workspace',
        validate: { params: idParams },
        response: { status: { 200: WorkspaceSchema } },
        handler: async (request) =>
          single(await service().open(requirePrincipal(request), (request.params as { id: string }).id)),
      },
    },
    {
      method: 'PATCH',
      path: '/v1/workspaces/{id}',
      options: {
        id: 'updateWorkspace',
        tags: [TAG],
        description: 'Updates workspace settings; every change is audited',
        notes:
          'All fields optional, at least one. agent_config is merged into the stored configuration (a key set ' +
          'to null is removed). An archived workspace answers 409 workspace_archived.',
        validate: { params: idParams, payload: updateWorkspacePayload },
        response: { status: { 200: WorkspaceSchema } },
        // The onboarding plugin's rules sit behind an optional port the error walk does not reach (docs/openapi.md).
        plugins: { patchwell: { ...ADMINS, errors: [{ status: 422, code: 'forbidden_combination' }] } },
        handler: async (request) => {
          const ws = await service().update(
            requirePrincipal(request),
            (request.params as { id: string }).id,
            request.payload as UpdateWorkspaceInput,
            request.actor(),
          );
          return single(ws);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/workspaces/{id}/archive',
      options: {
        id: 'archiveWorkspace',
        tags: [TAG],
        description: 'Archives a workspace',
        notes:
          'Sets archived_at, stops the mailbox receiving, revokes the widget key and the API tokens restricted ' +
          'to the workspace. 409 workspace_archived when it already is.',
        validate: { params: idParams },
        response: { status: { 200: WorkspaceSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) =>
          single(await service().archive(request.actor(), (request.params as { id: string }).id)),
      },
    },
  ];
}
