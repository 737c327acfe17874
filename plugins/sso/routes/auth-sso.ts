import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { httpError } from '../../../core/http/errors.js';
import { emailInputSchema } from './inputs.js';
import { ConnectionTile, RedirectUrl, redirectTo } from '../schemas.js';
import { browserToken, type BrowserCall, type SignInService } from '../services/sign-in.js';
import { SsoFailure } from '../services/sso-failure.js';
import { BROWSER_COOKIE, TAG, browserCookie, redirect, service, sessionCookie, withSession } from './common.js';

const idParams = Joi.object({ id: Joi.string().max(64).required().description('Connection id') });
const signIn = (r: Request) => service(r, 'ssoSignIn');

function browserCall(request: Request): BrowserCall {
  return { request, currentCookie: sessionCookie(request), browser: browserCookie(request) };
}

/** Starts a sign-in and sets the browser-binding cookie when the browser has none yet. */
async function startFor(
  request: Request,
  h: ResponseToolkit,
  pick: () => Promise<Parameters<SignInService['start']>[0]>,
  redirectToPath: string | null,
) {
  const conn = await pick();
  const browser = browserToken(browserCookie(request));
  let url: string;
  try {
    url = await signIn(request).start(
      conn,
      redirectToPath,
      browser.token,
      request.actor({ anonymous: true }).ip ?? 'unknown',
    );
  } catch (err) {
    if (err instanceof SsoFailure)
      throw httpError(
        502,
        'idp_unavailable',
        'The identity provider cannot be reached; try again or ask your administrator',
        { reason: err.message },
      );
    throw err;
  }
  const res = h.response({ redirect_url: url });
  if (browser.isNew) res.state(BROWSER_COOKIE, browser.token);
  return res;
}

/** Runs a browser step; a refused sign-in lands on the dashboard's sign-in page with the reason. */
async function browserStep(
  request: Request,
  h: ResponseToolkit,
  step: () => Promise<{ token: string; redirect: string }>,
) {
  try {
    const { token, redirect: to } = await step();
    return withSession(redirect(h, to), token).unstate(BROWSER_COOKIE);
  } catch (err) {
    if (!(err instanceof SsoFailure)) throw err;
    request.log(['sso', 'refused'], { code: err.code, message: err.message });
    return redirect(h, signIn(request).failureUrl(err.code));
  }
}

/** The public half of the section: sign-in steps the browser and the IdP call (9 operations). */
export function authSsoRoutes(authContext: Joi.ObjectSchema): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/auth/sso/start',
      options: {
        id: 'startSsoSignIn',
        tags: [TAG],
        auth: false,
        description: 'Starts single sign-on for an email address',
        notes:
          "Finds the connection of the address's verified domain and answers the identity provider's address. " +
          '404 when the email domain has no single sign-on. Sets the short-lived pw_sso cookie that binds the ' +
          'sign-in to this browser.',
        validate: { payload: Joi.object({ email: emailInputSchema().required(), redirect_to: redirectTo() }) },
        response: { status: { 200: RedirectUrl } },
        handler: async (request, h) => {
          const { email, redirect_to } = request.payload as { email: string; redirect_to?: string };
          return startFor(request, h, () => signIn(request).connectionForEmail(email), redirect_to ?? null);
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/auth/sso/connections/{id}',
      options: {
        id: 'getSsoConnectionTile',
        tags: [TAG],
        auth: false,
        description: 'Names a connection for the app tile confirmation page',
        validate: { params: idParams },
        response: { status: { 200: ConnectionTile } },
        handler: async (request) => signIn(request).tile((request.params as { id: string }).id),
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/sso/connections/{id}/start',
      options: {
        id: 'startSsoConnectionSignIn',
        tags: [TAG],
        auth: false,
        description: "Starts the sign-in once confirmed on the app's own page",
        notes:
          'The second step of an identity-provider app tile: the person confirmed on our page, so this sign-in ' +
          'is started by us (SP-initiated) and bound to this browser.',
        validate: { params: idParams, payload: Joi.object({ redirect_to: redirectTo() }).allow(null).default({}) },
        response: { status: { 200: RedirectUrl } },
        handler: async (request, h) => {
          const body = (request.payload ?? {}) as { redirect_to?: string };
          return startFor(
            request,
            h,
            () => signIn(request).usableConnection((request.params as { id: string }).id),
            body.redirect_to ?? null,
          );
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/auth/sso/login',
      options: {
        id: 'ssoAppTileLogin',
        tags: [TAG],
        auth: false,
        description: 'Identity-provider app tile: redirects to the confirmation page',
        notes:
          "Nothing is signed in here: the dashboard's confirmation page shows the connection and starts the sign-in when the person confirms.",
        validate: { query: Joi.object({ connection: Joi.string().max(64).required(), redirect_to: redirectTo() }) },
        plugins: { patchwell: { successStatus: 302 } },
        handler: async (request, h) => {
          const q = request.query as { connection: string; redirect_to?: string };
          try {
            await signIn(request).usableConnection(q.connection);
          } catch {
            return redirect(h, signIn(request).failureUrl('connection_not_found'));
          }
          return redirect(h, signIn(request).confirmUrl(q.connection, q.redirect_to ?? null));
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/auth/sso/oidc/callback',
      options: {
        id: 'ssoOidcCallback',
        tags: [TAG],
        auth: false,
        description: 'OIDC redirect URI: exchanges the code, signs in, redirects to the dashboard',
        notes: 'A refused sign-in redirects to the dashboard sign-in page with `sso_error=<code>`.',
        validate: { query: Joi.object().pattern(Joi.string().max(100), Joi.string().allow('').max(8192)).max(30) },
        plugins: { patchwell: { successStatus: 302 } },
        handler: async (request, h) =>
          browserStep(request, h, () =>
            signIn(request).oidcCallback(request.query as Record<string, string>, browserCall(request)),
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/sso/saml/{id}/acs',
      options: {
        id: 'ssoSamlAcs',
        tags: [TAG],
        auth: false,
        description: 'SAML assertion consumer service (HTTP-POST binding)',
        notes:
          'Validates the response, then 303 to the completion step. A response that answers no sign-in started ' +
          'here (IdP-initiated) is not trusted: 303 to the confirmation page.',
        payload: { allow: ['application/x-www-form-urlencoded'], maxBytes: 512 * 1024, parse: true },
        validate: {
          params: idParams,
          payload: Joi.object({
            SAMLResponse: Joi.string().max(500_000).required(),
            RelayState: Joi.string().allow('').max(1024),
          }).unknown(true),
        },
        plugins: { patchwell: { successStatus: 303, rawBody: { contentType: 'application/x-www-form-urlencoded' } } },
        handler: async (request, h) => {
          const form = request.payload as Record<string, string>;
          try {
            return redirect(
              h,
              await signIn(request).samlAcs(
                (request.params as { id: string }).id,
                form,
                request.actor({ anonymous: true }),
              ),
              303,
            );
          } catch (err) {
            if (!(err instanceof SsoFailure)) throw err;
            request.log(['sso', 'refused'], { code: err.code, message: err.message });
            return redirect(h, signIn(request).failureUrl(err.code), 303);
          }
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/auth/sso/complete',
      options: {
        id: 'completeSsoSignIn',
        tags: [TAG],
        auth: false,
        description: 'Opens the session of a validated SAML sign-in in the browser that started it',
        notes:
          "The token is single use and lives two minutes; the browser must carry the pw_sso cookie of the sign-in's start.",
        validate: { query: Joi.object({ token: Joi.string().max(200).required() }) },
        plugins: { patchwell: { successStatus: 302 } },
        handler: async (request, h) =>
          browserStep(request, h, () =>
            signIn(request).complete((request.query as { token: string }).token, browserCall(request)),
          ),
      },
    },
    {
      method: 'GET',
      path: '/v1/auth/sso/saml/{id}/metadata',
      options: {
        id: 'getSsoSamlMetadata',
        tags: [TAG],
        auth: false,
        description: 'Service-provider metadata (entity id, ACS URL)',
        validate: { params: idParams },
        plugins: { patchwell: { produces: 'application/samlmetadata+xml' } },
        handler: async (request, h) => {
          const conn = await signIn(request).usableConnection((request.params as { id: string }).id);
          const connections = service(request, 'ssoConnections');
          const xml = await connections.provider('saml').serviceProviderMetadata!(connections.settings(conn));
          return h.response(xml).type('application/samlmetadata+xml');
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/sso/recovery',
      options: {
        id: 'ssoRecoveryLogin',
        tags: [TAG],
        auth: false,
        description: 'Break-glass sign-in for an owner while single sign-on is required',
        notes:
          'Email, password and one unused recovery code of the organization; the code is spent. Any wrong part ' +
          'answers 401 invalid_credentials; 409 sso_not_enforced when single sign-on is not required (use the ' +
          'password sign-in).',
        validate: {
          payload: Joi.object({
            email: emailInputSchema().required(),
            password: Joi.string().max(200).required(),
            code: Joi.string().trim().max(40).required(),
          }),
        },
        response: { status: { 200: authContext } },
        handler: async (request, h) => {
          const body = request.payload as { email: string; password: string; code: string };
          const result = await service(request, 'ssoEnforcement').recover(body, {
            request,
            currentCookie: sessionCookie(request),
          });
          return withSession(h.response(result.context), result.token);
        },
      },
    },
  ];
}
