import Joi from 'joi';
import type { ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { SESSION_COOKIE, principalOf } from '../../../core/http/auth.js';
import { redirectTargetSchema } from '../../../core/http/redirect-target.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import { OAUTH_COOKIE, type Redirect } from '../services/sign-in.js';
import type { CodehostRouteServices } from './context.js';

const tags = ['auth'];

function cookieOf(state: unknown, name: string): string | null {
  const v = (state as Record<string, unknown> | null | undefined)?.[name];
  const s: unknown = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.length > 0 ? s : null;
}

function redirect(h: ResponseToolkit, r: Redirect) {
  const res = h.redirect(r.location).code(302);
  for (const [name, value] of Object.entries(r.cookies)) {
    if (value === null) res.unstate(name);
    else res.state(name, value);
  }
  return res.header('cache-control', 'no-store');
}

export function signInRoutes(s: CodehostRouteServices, config: AppConfig): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/auth/codehost/start',
      options: {
        id: 'startCodeHostSignIn',
        tags,
        description: 'Sign in with the code host, or link your code-host login',
        notes:
          'Redirects (302) to the code host with a single-use state and a PKCE challenge. intent link needs a ' +
          'signed-in user. Failures redirect to the sign-in page with ?error=<code>.',
        auth: { strategy: 'session', mode: 'try' },
        plugins: { patchwell: { successStatus: 302 } },
        validate: {
          query: Joi.object({
            redirect_to: redirectTargetSchema(config),
            intent: Joi.string().valid('signin', 'link').default('signin'),
          }),
        },
        handler: async (request, h) => {
          const q = request.query as { intent: 'signin' | 'link'; redirect_to?: string };
          return redirect(h, await s.signIn.start(principalOf(request), q));
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/auth/codehost/callback',
      options: {
        id: 'completeCodeHostSignIn',
        tags,
        description: 'Where the code host returns: signs in or links, then redirects to the dashboard',
        notes:
          'Exchanges the code (with the PKCE verifier kept with the state), then opens a session (cookie ' +
          'pw_session) for the user whose code-host login it is, or links the login to the user who started a ' +
          'link. Errors (?error=): codehost_state_invalid, codehost_access_denied, codehost_exchange_failed, ' +
          'codehost_account_not_linked, sso_required.',
        auth: { strategy: 'session', mode: 'try' },
        plugins: { patchwell: { successStatus: 302 } },
        validate: {
          query: Joi.object({
            code: Joi.string().max(500),
            state: Joi.string().max(500),
            error: Joi.string().max(200),
            error_description: Joi.string().max(1000).allow(''),
            error_uri: Joi.string().max(1000),
          }),
        },
        handler: async (request, h) => {
          const q = request.query as { code?: string; state?: string; error?: string };
          const out = await s.signIn.callback(
            request,
            q,
            cookieOf(request.state, OAUTH_COOKIE),
            cookieOf(request.state, SESSION_COOKIE),
          );
          return redirect(h, out);
        },
      },
    },
  ];
}
