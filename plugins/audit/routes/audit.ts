import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import { AuditEntryPage, AuditStream, AuditStreamTest, listQuery, streamPayload } from '../schemas.js';
import type { ExportFormat } from '../services/audit-log.js';
import type { AuditFilters } from '../services/entries.js';
import type { StreamInput } from '../services/stream-settings.js';
import { OWNERS_ADMINS, service } from './common.js';

const TAG = 'audit';
const log = (r: Request) => service(r, 'auditLog');
const streams = (r: Request) => service(r, 'auditStreamSettings');

function filtersOf(q: Record<string, unknown>): AuditFilters {
  const f: AuditFilters = {};
  for (const k of ['actor', 'action', 'target_type', 'target_id', 'workspace_id'] as const)
    if (typeof q[k] === 'string') f[k] = q[k];
  if (q.from instanceof Date) f.from = q.from;
  if (q.to instanceof Date) f.to = q.to;
  return f;
}

/** The audit section (7 operations): the log, its export, and the stream to an external log system. */
export function auditRoutes(okSchema: Joi.ObjectSchema): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/audit',
      options: {
        id: 'listAuditEntries',
        tags: [TAG],
        description: 'The organization audit log, newest first',
        notes:
          'Filters: actor (id or email), action (exact, or a prefix ending with . or *), target_type, ' +
          'target_id, workspace_id, from (inclusive), to (exclusive).',
        validate: { query: Joi.object({ ...listQuery, ...paginationQuery }) },
        response: { status: { 200: AuditEntryPage } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) => {
          const q = request.query as Record<string, unknown> & { cursor?: string; limit?: number };
          const principal = requirePrincipal(request);
          return log(request).list(principal.orgId, await log(request).scoped(principal, filtersOf(q)), {
            cursor: q.cursor,
            limit: q.limit,
          });
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/audit/export',
      options: {
        id: 'exportAuditEntries',
        tags: [TAG],
        description: 'Matching entries as CSV or JSON Lines, streamed, newest first',
        notes:
          'format csv (text/csv) or jsonl (application/x-ndjson, one AuditEntry a line). Same filters as the ' +
          'list. Plans without audit_export answer 402 feature_not_in_plan; 10 exports a minute. The export is ' +
          'itself audited (audit.exported).',
        validate: { query: Joi.object({ ...listQuery, format: Joi.string().valid('csv', 'jsonl').default('jsonl') }) },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request, h) => {
          const q = request.query as Record<string, unknown> & { format: ExportFormat };
          const body = await log(request).export(
            request.actor(),
            await log(request).scoped(requirePrincipal(request), filtersOf(q)),
            q.format,
          );
          const stamp = new Date().toISOString().slice(0, 10);
          return h
            .response(body)
            .type(q.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
            .header(
              'content-disposition',
              `attachment; filename="audit-${stamp}.${q.format === 'csv' ? 'csv' : 'jsonl'}"`,
            )
            .header('cache-control', 'no-store');
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/audit/stream',
      options: {
        id: 'getAuditStream',
        tags: [TAG],
        description: 'The stream to an external log system, with its delivery state',
        notes: '404 not_found when the organization has no stream.',
        response: { status: { 200: AuditStream } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) => streams(request).get(requirePrincipal(request).orgId),
      },
    },
    {
      method: 'PUT',
      path: '/v1/audit/stream',
      options: {
        id: 'putAuditStream',
        tags: [TAG],
        description: 'Creates or changes the stream to an external log system',
        notes:
          'kind https (url*) or cloudwatch (cloudwatch {region, log_group, log_stream, access_key_id, ' +
          'secret_access_key}). Creating answers `secret`, the signing secret, once. Entries written from ' +
          'creation on are delivered in order, none lost, none twice. Plans without audit_stream (Enterprise) ' +
          'answer 402 feature_not_in_plan. Audited.',
        validate: { payload: streamPayload },
        response: { status: { 200: AuditStream } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) =>
          (await streams(request).put(request.actor(), request.payload as StreamInput)).stream,
      },
    },
    {
      method: 'DELETE',
      path: '/v1/audit/stream',
      options: {
        id: 'deleteAuditStream',
        tags: [TAG],
        description: 'Deletes the stream and its undelivered entries (the log itself stays)',
        notes: 'Audited.',
        response: { status: { 200: okSchema } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) => {
          await streams(request).remove(request.actor());
          return { ok: true };
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/audit/stream/rotate-secret',
      options: {
        id: 'rotateAuditStreamSecret',
        tags: [TAG],
        description: 'A new signing secret, shown once',
        notes:
          'For 24 hours batches carry a second v1 signature made with the previous secret, so the receiver can switch without losing a batch. Audited.',
        response: { status: { 200: AuditStream } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) => streams(request).rotateSecret(request.actor()),
      },
    },
    {
      method: 'POST',
      path: '/v1/audit/stream/test',
      options: {
        id: 'testAuditStream',
        tags: [TAG],
        description: 'Sends a signed test batch to the destination now',
        notes:
          'One entry with action audit_stream.test and test: true; it is neither written to the log nor queued. 10 tests a minute.',
        response: { status: { 200: AuditStreamTest } },
        plugins: { patchwell: OWNERS_ADMINS },
        handler: async (request) => streams(request).test(request.actor()),
      },
    },
  ];
}
