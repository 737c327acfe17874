import type { Request, ResponseToolkit, ResponseObject } from '@hapi/hapi';
import type { Cradle } from '../../../core/kernel/cradle.js';
import { SESSION_COOKIE } from '../../../core/http/auth.js';

export const TAG = 'sso and security';
export const BROWSER_COOKIE = 'pw_sso';
export const OWNERS = { roles: ['owner'] };
export const OWNERS_ADMINS = { roles: ['owner', 'admin'] };

/** A service from the request's container scope. */
export function service<K extends keyof Cradle>(request: Request, key: K): Cradle[K] {
  return request.app.scope.resolve(key);
}

const cookieOf = (request: Request, name: string): string | null => {
  const v = (request.state as Record<string, unknown> | null | undefined)?.[name];
  const s: unknown = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.length > 0 ? s : null;
};

export const sessionCookie = (request: Request) => cookieOf(request, SESSION_COOKIE);
export const browserCookie = (request: Request) => cookieOf(request, BROWSER_COOKIE);

/** Sets the session cookie (its attributes are defined once by the accounts plugin). */
export function withSession(res: ResponseObject, token: string | null): ResponseObject {
  if (token) res.state(SESSION_COOKIE, token);
  return res;
}

/** A redirect answer: 302 for GET, 303 after a POST. */
export const redirect = (h: ResponseToolkit, url: string, code: 302 | 303 = 302): ResponseObject =>
  h.redirect(url).code(code);
