import type { Request, ResponseToolkit } from '@hapi/hapi';
import { SESSION_COOKIE } from '../../../core/http/auth.js';
import { sessionCookie } from '../auth/resolvers.js';
import type { CallInfo } from '../services/auth-service.js';

/** A service from the request's container scope. */
export function service<T>(request: Request, key: string): T {
  return request.app.scope.resolve<T>(key);
}

export function callInfo(request: Request): CallInfo {
  return { request, currentCookie: sessionCookie(request) };
}

/** Sets the session cookie on an answer (attributes are defined once in the plugin's register). */
export function withSession<T extends object>(h: ResponseToolkit, body: T, token: string | null, code = 200) {
  const res = h.response(body).code(code);
  if (token) res.state(SESSION_COOKIE, token);
  return res;
}
