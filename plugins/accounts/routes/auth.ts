import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { SESSION_COOKIE, principalOf, requirePrincipal } from '../../../core/http/auth.js';
import { redirectTargetSchema } from '../../../core/http/redirect-target.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import { sessionCookie } from '../auth/resolvers.js';
import { AuthContext, Ok, Sent, SignupAuthContext, emailInput, localeSchema, passwordSchema } from '../schemas.js';
import type { SignupInput } from '../services/auth-service.js';
import { callInfo, service, withSession } from './common.js';

const tags = ['auth'];
const token = Joi.string().max(200).required().description('The token from the emailed link');
const optionalSession = { strategy: 'session', mode: 'try' } as const;

export function authRoutes(config: AppConfig): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/auth/signup',
      options: {
        id: 'signup',
        tags,
        description: 'Create an organization and its owner',
        notes:
          'Opens a session (cookie pw_session) and emails a link to verify the address. accept_terms must be true.',
        auth: false,
        validate: {
          payload: Joi.object({
            name: Joi.string().trim().min(1).max(120).required(),
            email: emailInput().required(),
            password: passwordSchema.required(),
            organization_name: Joi.string().trim().min(1).max(120).required(),
            organization_type: Joi.string().valid('direct', 'agency').default('direct'),
            locale: localeSchema.default('en'),
            referral_code: Joi.string().trim().max(64),
            accept_terms: Joi.boolean().valid(true).required().messages({ 'any.only': 'accept_terms must be true' }),
          }),
        },
        response: { status: { 201: SignupAuthContext } },
        plugins: { patchwell: { successStatus: 201 } },
        handler: async (request, h) => {
          const result = await service(request, 'authService').signup(
            request.payload as SignupInput,
            callInfo(request),
          );
          return withSession(
            h,
            { ...result.context, email_verification_required: result.emailVerificationRequired },
            result.token,
            201,
          );
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/login',
      options: {
        id: 'login',
        tags,
        description: 'Sign in with email and password',
        notes:
          'Wrong address or password: 401 invalid_credentials. Throttled per address and per client (429 with ' +
          'Retry-After). A new session replaces the one the request carried.',
        auth: false,
        validate: {
          payload: Joi.object({ email: emailInput().required(), password: Joi.string().max(200).required() }),
        },
        response: { status: { 200: AuthContext } },
        handler: async (request, h) => {
          const { email, password } = request.payload as { email: string; password: string };
          const result = await service(request, 'authService').login(email, password, callInfo(request));
          return withSession(h, result.context, result.token);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/logout',
      options: {
        id: 'logout',
        tags,
        description: 'Sign out',
        notes: 'Closes the current session and clears the cookie; succeeds without a session.',
        auth: false,
        response: { status: { 200: Ok } },
        handler: async (request, h) => {
          const sessions = service(request, 'sessionService');
          await sessions.closeByToken(service(request, 'db'), sessionCookie(request), 'logout');
          return h.response({ ok: true }).unstate(SESSION_COOKIE);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/magic-link',
      options: {
        id: 'requestMagicLink',
        tags,
        description: 'Email a one-time sign-in link',
        notes:
          'Same answer, in about the same time, whether or not the address has an account. The link is valid 15 minutes, once.',
        auth: false,
        validate: {
          payload: Joi.object({ email: emailInput().required(), redirect_to: redirectTargetSchema(config) }),
        },
        response: { status: { 200: Sent } },
        handler: async (request) => {
          const { email, redirect_to } = request.payload as { email: string; redirect_to?: string };
          await service(request, 'emailLinkService').requestMagicLink(email, redirect_to ?? null, callInfo(request));
          return { sent: true };
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/magic-link/verify',
      options: {
        id: 'verifyMagicLink',
        tags,
        description: 'Sign in with the token of a magic link',
        auth: false,
        validate: { payload: Joi.object({ token }) },
        response: { status: { 200: AuthContext } },
        handler: async (request, h) => {
          const { token: t } = request.payload as { token: string };
          const result = await service(request, 'emailLinkService').verifyMagicLink(t, callInfo(request));
          return withSession(h, result.context, result.token);
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/auth/me',
      options: {
        id: 'getMe',
        tags,
        description: 'Who is signed in',
        response: { status: { 200: AuthContext } },
        handler: (request) => service(request, 'authContextBuilder').forPrincipal(requirePrincipal(request)),
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/password-reset',
      options: {
        id: 'requestPasswordReset',
        tags,
        description: 'Email a password reset link',
        notes:
          'Same answer, in about the same time, whether or not the address has an account. The link is valid 30 minutes, once.',
        auth: false,
        validate: { payload: Joi.object({ email: emailInput().required() }) },
        response: { status: { 200: Sent } },
        handler: async (request) => {
          const { email } = request.payload as { email: string };
          await service(request, 'emailLinkService').requestPasswordReset(email, callInfo(request));
          return { sent: true };
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/password-reset/confirm',
      options: {
        id: 'confirmPasswordReset',
        tags,
        description: 'Choose a new password with the token of a reset link',
        notes: 'Closes every other session of the account and opens a new one.',
        auth: false,
        validate: { payload: Joi.object({ token, password: passwordSchema.required() }) },
        response: { status: { 200: AuthContext } },
        handler: async (request, h) => {
          const { token: t, password } = request.payload as { token: string; password: string };
          const result = await service(request, 'emailLinkService').confirmPasswordReset(
            t,
            password,
            callInfo(request),
          );
          return withSession(h, result.context, result.token);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/verify-email',
      options: {
        id: 'verifyEmail',
        tags,
        description: 'Confirm an email address with the token of a verification link',
        notes:
          'Signs in only when nobody is signed in; signed in as the same person: the current session goes on; ' +
          'signed in as someone else: 409 signed_in_as_other_user.',
        auth: optionalSession,
        validate: { payload: Joi.object({ token }) },
        response: { status: { 200: AuthContext } },
        handler: async (request, h) => {
          const { token: t } = request.payload as { token: string };
          const result = await service(request, 'emailLinkService').verifyEmail(
            t,
            principalOf(request),
            callInfo(request),
          );
          return withSession(h, result.context, result.token);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/verify-email/resend',
      options: {
        id: 'resendVerificationEmail',
        tags,
        description: 'Email a new verification link',
        notes: 'Nothing is sent when the address is verified already. At most 5 per hour.',
        response: { status: { 200: Sent } },
        handler: async (request) => {
          await service(request, 'emailLinkService').resendVerification(requirePrincipal(request));
          return { sent: true };
        },
      },
    },
  ];
}
