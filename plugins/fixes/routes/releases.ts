import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import {
  ReleaseListSchema,
  ReleaseSchema,
  approveReleasePayload,
  releaseListFilters,
  releaseParams,
  releaseVersionPayload,
  retryPayload,
} from '../schemas.js';
import type { Releases } from '../services/releases.js';

const TAG = 'releases';
/** Client viewers read; approver roles (governance) act, checked in the service. */
const WORKERS = { roles: ['owner', 'admin', 'reviewer'] };

const idOf = (r: Request) => (r.params as { id: string }).id;
const answer = { status: { 200: ReleaseSchema } };

/** Section `releases` (5): history with CI status, batched proposals approved at a SHA, retry, manual versions (docs/fixes.md, "Releases"). */
export function releaseRoutes(releases: () => Releases): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/releases',
      options: {
        id: 'listReleases',
        tags: [TAG],
        description: 'Release history with CI status, newest first, with the open batched proposals',
        notes:
          "Filters: workspace_id, status (proposed lists the open batched proposals). A ticket's merge that " +
          'joined a batched release is shown inside it (tickets).',
        validate: { query: Joi.object({ ...paginationQuery, ...releaseListFilters }) },
        response: { status: { 200: ReleaseListSchema } },
        // A workspace_id filter is checked as a path id (docs/security.md).
        plugins: {
          patchwell: {
            errors: [
              { status: 404, code: 'not_found' },
              { status: 403, code: 'forbidden' },
            ],
          },
        },
        handler: async (request) => releases().list(requirePrincipal(request), request.query),
      },
    },
    {
      method: 'GET',
      path: '/v1/releases/{id}',
      options: {
        id: 'getRelease',
        tags: [TAG],
        description: 'A release, with its tickets and the CI state of its commit as last reported by the code host',
        notes:
          'The CI state is stored: it is recorded when the release is published and updated when the code host ' +
          'reports a CI change (codehost.ci_updated); a read does not call the code host.',
        validate: { params: releaseParams },
        response: answer,
        handler: async (request) => releases().get(requirePrincipal(request), idOf(request)),
      },
    },
    {
      method: 'POST',
      path: '/v1/releases/{id}/approve',
      options: {
        id: 'approveRelease',
        tags: [TAG],
        description:
          "Approves a batched proposal at the default branch's head; tag, release, CI and the notices follow",
        notes:
          'Approver roles (governance, min approvers). 409 sha_mismatch (details.head_sha) when the default ' +
          'branch moved; 409 invalid_transition unless the release is an open proposal; version (manual ' +
          'strategy; else the release waits in waiting_version): 422 invalid_version, 409 version_exists.',
        validate: { params: releaseParams, payload: approveReleasePayload },
        response: answer,
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          releases().approveProposal(
            request.actor(),
            idOf(request),
            request.payload as { sha: string; comment?: string | null; version?: string | null },
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/releases/{id}/retry',
      options: {
        id: 'retryRelease',
        tags: [TAG],
        description: 'Resumes a release stopped after the merge, with the same approvals and commit',
        notes:
          'Approver roles. Resumes at the step that stopped (merge, tag, release and CI, notice); `version` ' +
          'sets the version of a release not yet tagged. 409 invalid_transition unless the release failed.',
        validate: { params: releaseParams, payload: retryPayload.allow(null) },
        response: answer,
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          releases().retryRelease(
            request.actor(),
            idOf(request),
            (request.payload ?? {}) as { version?: string | null },
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/releases/{id}/version',
      options: {
        id: 'setReleaseVersion',
        tags: [TAG],
        description:
          'Sets the version of a release waiting for one (release_strategy manual); tag, release and notices follow',
        notes:
          'Approver roles. 409 invalid_transition unless the release is waiting_version; 422 invalid_version; ' +
          '409 version_exists when another release of the workspace has it.',
        validate: { params: releaseParams, payload: releaseVersionPayload },
        response: answer,
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          releases().setVersion(request.actor(), idOf(request), request.payload as { version: string }),
      },
    },
  ];
}
