import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { principalOf } from '../../../core/http/auth.js';
import { SETUP_PATH, type CodehostOptions } from '../options.js';
import type { CodehostRouteServices } from './context.js';

/**
 * The code host's setup redirect, `GET /codehost/setup?installation_id=&state=&setup_action=`:
 * the signed-in owner or admin who started the install links the installation here (the same
 * single-use state as POST /v1/codehost/installations), and the browser goes on to the console's
 * page with the id the API uses: `<pages.installed>?installation_id=chi_…&setup_action=…`. A
 * failure goes there with `error=<code>` instead; without a session, to the sign-in page, which
 * comes back here after (`redirect_to`). No operationId: HTML navigation, not an API operation.
 */
export function setupRoutes(s: CodehostRouteServices, options: CodehostOptions, baseUrl: string): ServerRoute[] {
  const to = (path: string, params: Record<string, string>) => {
    const u = new URL(path, `${baseUrl}/`);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u.pathname + u.search;
  };
  return [
    {
      method: 'GET',
      path: SETUP_PATH,
      options: {
        auth: { strategy: 'session', mode: 'try' },
        validate: {
          query: Joi.object({
            installation_id: Joi.string()
              .max(100)
              .pattern(/^[A-Za-z0-9_-]+$/)
              .required(),
            state: Joi.string().max(200).required(),
            setup_action: Joi.string().valid('install', 'update', 'request'),
          }).unknown(true),
          failAction: (_request, h) =>
            h
              .redirect(to(options.pages.installed, { error: 'invalid_request' }))
              .code(302)
              .takeover(),
        },
        handler: async (request, h) => {
          const q = request.query as { installation_id: string; state: string; setup_action?: string };
          const principal = principalOf(request);
          if (!principal)
            return h
              .redirect(to(options.pages.signIn, { redirect_to: request.url.pathname + request.url.search }))
              .code(302);
          if (!['owner', 'admin'].includes(principal.role))
            return h.redirect(to(options.pages.installed, { error: 'forbidden' })).code(302);
          try {
            const out = await s.installations.link(request.actor(), {
              installation_id: q.installation_id,
              state: q.state,
            });
            return h
              .redirect(
                to(options.pages.installed, {
                  installation_id: out.installation.id,
                  setup_action: q.setup_action ?? 'install',
                }),
              )
              .code(302);
          } catch (err) {
            const code = (err as { data?: { code?: string } }).data?.code;
            if (!code) throw err;
            return h.redirect(to(options.pages.installed, { error: code })).code(302);
          }
        },
      },
    },
  ];
}
