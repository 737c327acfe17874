import type { ServerRoute } from '@hapi/hapi';
import {
  SourceMapDeleteResultSchema,
  SourceMapListSchema,
  SourceMapReleaseListSchema,
  SourceMapUploadResultSchema,
  sourceMapDeleteQuery,
  sourceMapQuery,
  sourceMapReleaseQuery,
  sourceMapUploadPayload,
} from '../schemas.js';
import type { SourceMapService } from '../services/sourcemaps.js';
import { ADMINS, WORKERS } from './context.js';

const TAG = 'sourcemaps';

/** Route table of sourcemaps (4 operations). */
export function sourceMapRoutes(
  svc: () => SourceMapService,
  limits: { maxUploadBytes: number; maxFiles: number },
): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/sourcemaps',
      options: {
        id: 'listSourceMaps',
        tags: [TAG],
        description: 'Source maps of one release by bundle URL path',
        notes: 'Query workspace_id and release; ordered by url_path. The maps themselves are not answered.',
        validate: { query: sourceMapQuery },
        response: { status: { 200: SourceMapListSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          svc().list(
            request.actor(),
            request.query as { workspace_id: string; release: string; cursor?: string; limit?: number },
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/sourcemaps',
      options: {
        id: 'uploadSourceMaps',
        tags: [TAG],
        description: "Stores a release's source maps for symbolication",
        notes:
          'Body {workspace_id, release, files: [{url_path, map}]}: map is the source map JSON as text; a ' +
          'url_path already stored for the release is replaced. ' +
          'All or nothing: 422 invalid_source_map with details.errors [{index, url_path, code (invalid_json, ' +
          'invalid_source_map, unsupported_version, invalid_url_path, duplicate_url_path), message}]; ' +
          '413 source_map_too_large for one map over the limit, 413 payload_too_large for the whole body.',
        payload: { maxBytes: limits.maxUploadBytes, allow: ['application/json'] },
        validate: { payload: sourceMapUploadPayload(limits.maxFiles) },
        response: { status: { 201: SourceMapUploadResultSchema } },
        plugins: { patchwell: { ...ADMINS, successStatus: 201 } },
        handler: async (request, h) =>
          h
            .response(
              await svc().upload(
                request.actor(),
                request.payload as {
                  workspace_id: string;
                  release: string;
                  files: Array<{ url_path: string; map: string }>;
                },
              ),
            )
            .code(201),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/sourcemaps',
      options: {
        id: 'deleteSourceMaps',
        tags: [TAG],
        description: 'Removes every source map of a release',
        notes:
          'Query workspace_id and release. 404 not_found when the release has no maps. Events already stored keep their symbolicated frames.',
        validate: { query: sourceMapDeleteQuery },
        response: { status: { 200: SourceMapDeleteResultSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) =>
          svc().remove(request.actor(), request.query as { workspace_id: string; release: string }),
      },
    },
    {
      method: 'GET',
      path: '/v1/sourcemaps/releases',
      options: {
        id: 'listSourceMapReleases',
        tags: [TAG],
        description: 'Releases with uploaded source maps',
        notes: 'Query workspace_id; most recently uploaded first.',
        validate: { query: sourceMapReleaseQuery },
        response: { status: { 200: SourceMapReleaseListSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          svc().releases(request.actor(), request.query as { workspace_id: string; cursor?: string; limit?: number }),
      },
    },
  ];
}
