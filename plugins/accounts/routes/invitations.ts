import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { paginationQuery } from '../../../core/http/pagination.js';
import {
  AuthContext,
  INVITATION_STATUSES,
  Invitation,
  InvitationPreview,
  emailInput,
  page,
  passwordSchema,
  roleSchema,
} from '../schemas.js';
import type { AcceptInput, CreateInvitationInput } from '../services/invitation-service.js';
import { callInfo, service, withSession } from './common.js';

const tags = ['invitations'];
const token = Joi.string().max(200).required().description('The token from the emailed invitation link');

export function invitationRoutes(): ServerRoute[] {
  const invitations = (request: Parameters<typeof service>[0]) => service(request, 'invitationService');
  return [
    {
      method: 'GET',
      path: '/v1/invitations',
      options: {
        id: 'listInvitations',
        tags,
        description: 'Invitations of your organization, newest first',
        validate: { query: Joi.object({ ...paginationQuery, status: Joi.string().valid(...INVITATION_STATUSES) }) },
        response: { status: { 200: page(Invitation, 'InvitationPage') } },
        plugins: { patchwell: { roles: ['owner', 'admin'] } },
        handler: (request) => invitations(request).list(requirePrincipal(request), request.query),
      },
    },
    {
      method: 'POST',
      path: '/v1/invitations',
      options: {
        id: 'createInvitation',
        tags,
        description: 'Invite someone by email',
        notes:
          'Emails a link valid for 7 days; a new invitation to the same address replaces a pending one. Only ' +
          'owners invite owners. workspace_ids apply to reviewers and client viewers. Audited.',
        validate: {
          payload: Joi.object({
            email: emailInput().required(),
            role: roleSchema.required(),
            workspace_ids: Joi.array().items(Joi.string().max(64)).max(500).default([]),
          }),
        },
        response: { status: { 201: Invitation } },
        plugins: { patchwell: { roles: ['owner', 'admin'], successStatus: 201 } },
        handler: async (request, h) => {
          const inv = await invitations(request).create(
            requirePrincipal(request),
            request.payload as CreateInvitationInput,
            request.actor(),
          );
          return h.response(inv).code(201);
        },
      },
    },
    {
      method: 'DELETE',
      path: '/v1/invitations/{id}',
      options: {
        id: 'revokeInvitation',
        tags,
        description: 'Revoke a pending invitation',
        notes: 'An invitation that is not pending answers 409 invitation_not_pending. Audited.',
        validate: { params: Joi.object({ id: Joi.string().max(64).required() }) },
        plugins: { patchwell: { roles: ['owner', 'admin'], successStatus: 204 } },
        handler: async (request, h) => {
          await invitations(request).revoke(
            requirePrincipal(request),
            (request.params as { id: string }).id,
            request.actor(),
          );
          return h.response().code(204);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/invitations/accept',
      options: {
        id: 'acceptInvitation',
        tags,
        description: 'Join an organization with an invitation token',
        notes:
          'A new address needs name and password and gets an account; an existing account needs only the token and moves to this organization ' +
          '(409 last_owner when it is the last owner of its own). Opens a session and answers the AuthContext.',
        auth: false,
        validate: {
          payload: Joi.object({ token, name: Joi.string().trim().min(1).max(120), password: passwordSchema }),
        },
        response: { status: { 200: AuthContext } },
        handler: async (request, h) => {
          const result = await invitations(request).accept(request.payload as AcceptInput, callInfo(request));
          return withSession(h, result.context, result.token);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/invitations/preview',
      options: {
        id: 'previewInvitation',
        tags,
        description: 'Who invited whom, to which organization, with which role',
        notes:
          'The emailed token is the credential. An unknown, used, revoked or expired token answers 400 invalid_token.',
        auth: false,
        validate: { payload: Joi.object({ token }) },
        response: { status: { 200: InvitationPreview } },
        handler: (request) => invitations(request).preview((request.payload as { token: string }).token),
      },
    },
  ];
}
