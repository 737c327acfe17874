import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import { INBOUND_STATUSES, type InboundStatus } from '../models/index.js';
import { ChannelSchema, FORWARDING_PROVIDERS, InboundPageSchema, ReleaseSchema } from '../schemas.js';
import type { ChannelService } from '../services/channels.js';
import { OWNERS_ADMINS } from './common.js';

const tags = ['channels'];
const wsParams = Joi.object({ workspaceId: Joi.string().max(64).required().description('Workspace id') });
type WsParams = { workspaceId: string };

/** Route table of the channels section (7 operations). */
export function channelRoutes(service: () => ChannelService): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/channels/{workspaceId}',
      options: {
        id: 'getChannel',
        tags,
        description: 'The email inbox of a workspace',
        notes:
          'forwarding is null until a support address is recorded; sending tells how replies leave (kind ' +
          'custom, default, white_label or not_ready, with what is missing).',
        validate: { params: wsParams },
        response: { status: { 200: ChannelSchema } },
        handler: (request) => service().get(requirePrincipal(request), (request.params as WsParams).workspaceId),
      },
    },
    {
      method: 'PATCH',
      path: '/v1/channels/{workspaceId}',
      options: {
        id: 'updateChannel',
        tags,
        description: 'Turns the inbox on or off, and accepts or refuses mailing-list mail',
        notes: 'Audited. An archived workspace cannot be turned on (409 workspace_archived).',
        validate: {
          params: wsParams,
          payload: Joi.object({ enabled: Joi.boolean(), accept_list_mail: Joi.boolean() }).min(1).required(),
        },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: ChannelSchema } },
        handler: (request) =>
          service().update(
            request.actor(),
            (request.params as WsParams).workspaceId,
            request.payload as { enabled?: boolean; accept_list_mail?: boolean },
          ),
      },
    },
    {
      method: 'PUT',
      path: '/v1/channels/{workspaceId}/forwarding',
      options: {
        id: 'setChannelForwarding',
        tags,
        description: 'Records the support address that forwards to the inbound address',
        notes: 'A new address starts unverified (send a forwarding test). Audited.',
        validate: {
          params: wsParams,
          payload: Joi.object({
            address: Joi.string().email({ tlds: false }).max(254).required(),
            provider: Joi.string()
              .valid(...FORWARDING_PROVIDERS)
              .required(),
          }).required(),
        },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: ChannelSchema } },
        handler: (request) =>
          service().setForwarding(
            request.actor(),
            (request.params as WsParams).workspaceId,
            request.payload as { address: string; provider: 'mail_a' | 'mail_b' | 'other' },
          ),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/channels/{workspaceId}/forwarding',
      options: {
        id: 'deleteChannelForwarding',
        tags,
        description: 'Forgets the forwarding address',
        notes: 'Audited. Mail that still arrives through the forwarding keeps opening tickets.',
        validate: { params: wsParams },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: ChannelSchema } },
        handler: (request) => service().removeForwarding(request.actor(), (request.params as WsParams).workspaceId),
      },
    },
    {
      method: 'POST',
      path: '/v1/channels/{workspaceId}/forwarding/test',
      options: {
        id: 'testChannelForwarding',
        tags,
        description: 'Sends a test email carrying a code to the forwarding address',
        notes:
          'The code is in the subject and the body. When the email comes back through the forwarding, ' +
          'forwarding.verified_at is set. One test a minute per workspace: 429 rate_limited with Retry-After. ' +
          '409 forwarding_not_set without a forwarding address.',
        validate: { params: wsParams },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: ChannelSchema } },
        handler: (request) => service().sendForwardingTest(request.actor(), (request.params as WsParams).workspaceId),
      },
    },
    {
      method: 'GET',
      path: '/v1/channels/{workspaceId}/inbound',
      options: {
        id: 'listInboundEmails',
        tags,
        description: 'The inbound log: every email received, newest first, with how it was classified',
        validate: {
          params: wsParams,
          query: Joi.object({ ...paginationQuery, status: Joi.string().valid(...INBOUND_STATUSES) }),
        },
        response: { status: { 200: InboundPageSchema } },
        handler: (request) => {
          const q = request.query as { cursor?: string; limit: number; status?: InboundStatus };
          return service().log(requirePrincipal(request), (request.params as WsParams).workspaceId, q);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/channels/{workspaceId}/inbound/{provider}/{emailId}/release',
      options: {
        id: 'releaseInboundEmail',
        tags,
        description: 'Lets a quarantined email through: it opens a ticket or joins the one it continues',
        notes: 'Only quarantined emails (spam, rate_limited, not_in_plan): 409 not_quarantined otherwise. Audited.',
        validate: {
          params: wsParams.keys({
            provider: Joi.string().max(40).required(),
            emailId: Joi.string().max(64).required(),
          }),
        },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: ReleaseSchema } },
        handler: (request) => {
          const p = request.params as WsParams & { provider: string; emailId: string };
          return service().release(request.actor(), p.workspaceId, p.provider, p.emailId);
        },
      },
    },
  ];
}
