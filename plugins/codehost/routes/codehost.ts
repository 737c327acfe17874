import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import type { RawHeaders } from '../../../core/contracts/index.js';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery, pageSchema } from '../../../core/http/pagination.js';
import {
  CodeHostInstallation,
  CodeHostInstallUrl,
  CodeHostStatus,
  InstallationRepository,
  INTAKES,
  OssSettings,
  UnlinkResult,
  WebhookAck,
} from '../schemas.js';
import { ADMIN, idParam, workspaceParam, type CodehostRouteServices } from './context.js';

const tags = ['codehost'];

export function codehostRoutes(s: CodehostRouteServices, opts: { webhookMaxBytes: number }): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/codehost',
      options: {
        id: 'getCodeHost',
        tags,
        description: 'Code host status: the app, the installations and your link',
        notes:
          'app.host names the adapter in use; link tells whether your user has a code-host login linked (GET /v1/auth/codehost/start?intent=link).',
        response: { status: { 200: CodeHostStatus } },
        handler: (request) => s.installations.status(requirePrincipal(request)),
      },
    },
    {
      method: 'POST',
      path: '/v1/codehost/install',
      options: {
        id: 'startCodeHostInstall',
        tags,
        description: 'Install URL of the app, with a single-use state bound to your organization',
        notes:
          'Send the browser to url. The code host comes back to the dashboard with installation_id and state; ' +
          'then POST /v1/codehost/installations. The state expires after an hour.',
        plugins: ADMIN,
        response: { status: { 200: CodeHostInstallUrl } },
        handler: (request) => s.installations.startInstall(requirePrincipal(request)),
      },
    },
    {
      method: 'POST',
      path: '/v1/codehost/installations',
      options: {
        id: 'linkCodeHostInstallation',
        tags,
        description: "Link an installation after the code host's setup redirect",
        notes:
          'The state must be the one POST /v1/codehost/install gave this organization (single use): 400 ' +
          'invalid_state otherwise. 409 installation_linked_elsewhere when another organization holds it; ' +
          'linking again from the same organization answers 200 with the installation.',
        plugins: { patchwell: { roles: ['owner', 'admin'], successStatus: 201 } },
        validate: {
          payload: Joi.object({
            installation_id: Joi.alternatives(Joi.string().max(100), Joi.number().integer().min(1))
              .required()
              .custom((v) => String(v)),
            state: Joi.string().max(200).required(),
            setup_action: Joi.string()
              .valid('install', 'update', 'request')
              .description('As the setup redirect gave it; informative'),
          }),
        },
        response: { status: { 201: CodeHostInstallation, 200: CodeHostInstallation } },
        handler: async (request, h) => {
          const input = request.payload as { installation_id: string; state: string };
          const out = await s.installations.link(request.actor(), input);
          return h.response(out.installation).code(out.created ? 201 : 200);
        },
      },
    },
    {
      method: 'DELETE',
      path: '/v1/codehost/installations/{id}',
      options: {
        id: 'unlinkCodeHostInstallation',
        tags,
        description: 'Unlink an installation and disconnect its repositories',
        notes:
          'The app stays installed on the code host (remove it there); its repositories leave their workspaces and their code indexes are deleted. Audited.',
        plugins: ADMIN,
        validate: { params: idParam },
        response: { status: { 200: UnlinkResult } },
        handler: (request) => s.installations.unlink(request.actor(), (request.params as { id: string }).id),
      },
    },
    {
      method: 'GET',
      path: '/v1/codehost/installations/{id}/repositories',
      options: {
        id: 'listCodeHostInstallationRepositories',
        tags,
        description: 'Repositories an installation reaches, by name, with their connection',
        plugins: ADMIN,
        validate: { params: idParam, query: Joi.object(paginationQuery) },
        response: {
          status: {
            200: pageSchema(InstallationRepository),
          },
        },
        handler: (request) => {
          const q = request.query as { cursor?: string; limit: number };
          return s.installations.hostRepositories(requirePrincipal(request), (request.params as { id: string }).id, q);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/codehost/installations/{id}/sync',
      options: {
        id: 'syncCodeHostInstallation',
        tags,
        description: 'Re-read the account, permissions and suspension of an installation',
        notes:
          'When the code host no longer knows the installation, removed_at is set and its repositories are disconnected. Changes are audited.',
        plugins: ADMIN,
        validate: { params: idParam },
        response: { status: { 200: CodeHostInstallation } },
        handler: (request) => s.installations.sync(request.actor(), (request.params as { id: string }).id),
      },
    },
    {
      method: 'GET',
      path: '/v1/codehost/oss/{workspaceId}',
      options: {
        id: 'getCodeHostOssSettings',
        tags,
        description: 'Open-source settings of a workspace',
        validate: { params: workspaceParam },
        response: { status: { 200: OssSettings } },
        handler: (request) =>
          s.oss.get(requirePrincipal(request), (request.params as { workspaceId: string }).workspaceId),
      },
    },
    {
      method: 'PATCH',
      path: '/v1/codehost/oss/{workspaceId}',
      options: {
        id: 'updateCodeHostOssSettings',
        tags,
        description: 'Change the open-source settings of a workspace',
        notes:
          'Every change is audited. auto_close_issues and comments_per_hour are the workspace settings ' +
          'oss_auto_close_issues and oss_comments_per_hour. 409 labels_equal when both labels would be the ' +
          'same.',
        plugins: ADMIN,
        validate: {
          params: workspaceParam,
          payload: Joi.object({
            enabled: Joi.boolean(),
            intake: Joi.string().valid(...INTAKES),
            opt_in_label: Joi.string().trim().min(1).max(50),
            opt_out_label: Joi.string().trim().min(1).max(50),
            issues: Joi.boolean(),
            pull_requests: Joi.boolean(),
            follow_guidelines: Joi.boolean(),
            ignore_bots: Joi.boolean(),
            auto_close_issues: Joi.boolean(),
            comments_per_hour: Joi.number().integer().min(0).max(1000),
          }).min(1),
        },
        response: { status: { 200: OssSettings } },
        handler: (request) =>
          s.oss.update(
            request.actor(),
            (request.params as { workspaceId: string }).workspaceId,
            request.payload as Record<string, never>,
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/webhooks/codehost',
      options: {
        id: 'receiveCodeHostWebhook',
        tags,
        description: 'Code-host webhook',
        notes:
          'Signed with X-Hub-Signature-256 (HMAC-SHA256 of the raw body with the webhook secret): 401 ' +
          'invalid_signature otherwise. X-GitHub-Event names the event and X-GitHub-Delivery the delivery; a ' +
          'delivery already received answers 200 with duplicate true and changes nothing. New deliveries ' +
          'answer 202 and are handled asynchronously.',
        auth: false,
        payload: {
          parse: false,
          output: 'data',
          allow: ['application/json', 'application/x-www-form-urlencoded'],
          maxBytes: opts.webhookMaxBytes,
        },
        plugins: { patchwell: { rawBody: { contentType: 'application/json' }, successStatus: 202 } },
        response: { status: { 202: WebhookAck, 200: WebhookAck } },
        handler: async (request, h) => {
          const raw = Buffer.isBuffer(request.payload)
            ? request.payload
            : Buffer.from((request.payload as string | null) ?? '');
          const out = await s.webhooks.receive(request.headers as RawHeaders, raw);
          return h
            .response({ ok: true, delivery_id: out.deliveryId, event: out.event, duplicate: out.duplicate })
            .code(out.duplicate ? 200 : 202);
        },
      },
    },
  ];
}
