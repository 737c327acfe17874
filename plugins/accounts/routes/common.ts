import type { Request, ResponseToolkit } from '@hapi/hapi';
import { SESSION_COOKIE } from '../../../core/http/auth.js';
import { sessionCookie } from '../auth/resolvers.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { CallInfo } from '../services/auth-service.js';

/** A service from the request's container scope. */
export function service<K extends keyof Cradle>(request: Request, key: K): Cradle[K] {
  return request.app.scope.resolve(key);
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
