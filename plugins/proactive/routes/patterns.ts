import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery, pageSchema } from '../../../core/http/pagination.js';
import type { PatternService } from '../services/patterns.js';
import {} from './context.js';
import { isoTime } from '../../../core/http/times.js';

/** Section patterns (6): learned problem → fix patterns; docs/proactive.md "Patterns". */

const CATEGORIES = ['usage', 'config', 'docs', 'bug', 'feature_request', 'unknown'] as const;
const id = () => Joi.string().max(100);

export const PatternSchema = Joi.object({
  id: Joi.string().required(),
  owned: Joi.boolean()
    .required()
    .description(
      "Whether the pattern belongs to the caller's organization (else it is shared by another, anonymously)",
    ),
  shared: Joi.boolean().required(),
  workspace_id: Joi.string().allow(null).required().description("Null for another organization's pattern"),
  source_ticket_id: Joi.string().allow(null).required().description("Null for another organization's pattern"),
  title: Joi.string().allow('').required(),
  category: Joi.string().required(),
  problem: Joi.object({
    error_type: Joi.string().allow(null).required(),
    normalized_message: Joi.string().allow('').required(),
    frames: Joi.array()
      .items(Joi.object({ file: Joi.string().allow('').required(), function: Joi.string().allow('').required() }))
      .required(),
    keywords: Joi.array().items(Joi.string()).required(),
    signature: Joi.string().required(),
  }).required(),
  fix: Joi.object({
    summary: Joi.string().allow('').required(),
    files_changed: Joi.number().integer().allow(null).required(),
    additions: Joi.number().integer().allow(null).required(),
    deletions: Joi.number().integer().allow(null).required(),
  }).required(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
}).id('Pattern');

const PatternListSchema = pageSchema(PatternSchema).id('PatternList');

const PatternMatchListSchema = Joi.object({
  ticket_id: Joi.string().required(),
  items: Joi.array()
    .items(
      Joi.object({
        score: Joi.number().min(0).max(1).required(),
        reasons: Joi.array()
          .items(
            Joi.string().valid(
              'same_error_group',
              'same_signature',
              'error_type',
              'message',
              'frames',
              'keywords',
              'category',
            ),
          )
          .required(),
        pattern: PatternSchema.required(),
      }),
    )
    .required(),
}).id('PatternMatchList');

const WORKERS = { roles: ['owner', 'admin', 'reviewer'] };

export function patternRoutes(svc: () => PatternService): ServerRoute[] {
  const params = Joi.object({ id: id().required() });
  return [
    {
      method: 'GET',
      path: '/v1/patterns',
      options: {
        id: 'listPatterns',
        tags: ['patterns'],
        description:
          'Patterns the organization may use: its own, and (when it opted in) those other opted-in organizations share',
        notes:
          "Newest first. scope own | shared | all (default). Another organization's pattern carries no workspace, ticket or organization.",
        validate: {
          query: Joi.object({
            ...paginationQuery,
            scope: Joi.string().valid('all', 'own', 'shared').default('all'),
            workspace_id: id(),
            category: Joi.string().valid(...CATEGORIES),
            q: Joi.string().max(200),
          }),
        },
        response: { status: { 200: PatternListSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) => svc().list(requirePrincipal(request), request.query),
      },
    },
    {
      method: 'GET',
      path: '/v1/patterns/{id}',
      options: {
        id: 'getPattern',
        tags: ['patterns'],
        description:
          "One pattern (404 for another organization's private pattern, or any shared one when the caller did not opt in)",
        validate: { params },
        response: { status: { 200: PatternSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) => svc().get(requirePrincipal(request), (request.params as { id: string }).id),
      },
    },
    {
      method: 'POST',
      path: '/v1/patterns',
      options: {
        id: 'createPattern',
        tags: ['patterns'],
        description:
          'Learns a pattern from a resolved ticket: the problem signature and the fix, scrubbed of customer and tenant data',
        notes:
          '409 ticket_not_resolved, 409 pattern_exists (details.pattern_id), 409 patterns_opt_in_required (shared without the opt-in). ' +
          'shared defaults to true when both the organization and the workspace have patterns_opt_in.',
        validate: {
          payload: Joi.object({
            ticket_id: id().required(),
            title: Joi.string().trim().min(1).max(200),
            fix_summary: Joi.string().max(4000).allow(''),
            shared: Joi.boolean(),
            diff_stats: Joi.object({
              files_changed: Joi.number().integer().min(0),
              additions: Joi.number().integer().min(0),
              deletions: Joi.number().integer().min(0),
            }),
          }),
        },
        response: { status: { 201: PatternSchema } },
        plugins: { patchwell: { ...WORKERS, successStatus: 201 } },
        handler: async (request, h) =>
          h
            .response(await svc().create(request.actor(), request.payload as Parameters<PatternService['create']>[1]))
            .code(201),
      },
    },
    {
      method: 'PATCH',
      path: '/v1/patterns/{id}',
      options: {
        id: 'updatePattern',
        tags: ['patterns'],
        description: 'Changes the title, fix summary, keywords or sharing of an own pattern (texts are masked again)',
        validate: {
          params,
          payload: Joi.object({
            title: Joi.string().trim().min(1).max(200),
            fix_summary: Joi.string().max(4000).allow(''),
            shared: Joi.boolean(),
            keywords: Joi.array().items(Joi.string().trim().min(1).max(40)).max(20),
          }).min(1),
        },
        response: { status: { 200: PatternSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          svc().update(
            request.actor(),
            (request.params as { id: string }).id,
            request.payload as Parameters<PatternService['update']>[2],
          ),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/patterns/{id}',
      options: {
        id: 'deletePattern',
        tags: ['patterns'],
        description: 'Deletes an own pattern (owners, admins); it stops being shared at once',
        validate: { params },
        response: { status: { 200: Joi.object({ ok: Joi.boolean().valid(true).required() }) } },
        plugins: { patchwell: { roles: ['owner', 'admin'] } },
        handler: async (request) => {
          await svc().remove(request.actor(), (request.params as { id: string }).id);
          return { ok: true };
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/patterns/match',
      options: {
        id: 'matchPatterns',
        tags: ['patterns'],
        description: 'Ranks the patterns that may fix a ticket (score 0–1 with the reasons)',
        notes:
          "Shared patterns take part when the ticket's organization and workspace opted in. The ticket's own pattern is left out.",
        validate: {
          payload: Joi.object({ ticket_id: id().required(), limit: Joi.number().integer().min(1).max(20).default(5) }),
        },
        response: { status: { 200: PatternMatchListSchema } },
        plugins: { patchwell: WORKERS },
        handler: async (request) =>
          svc().match(requirePrincipal(request), request.payload as { ticket_id: string; limit?: number }),
      },
    },
  ];
}
