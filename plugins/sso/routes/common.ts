import type { Request, ResponseToolkit, ResponseObject } from '@hapi/hapi';
import { SESSION_COOKIE, requirePrincipal } from '../../../core/http/auth.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { Actor } from '../services/deps.js';

export const TAG = 'sso and security';
export const BROWSER_COOKIE = 'pw_sso';
export const OWNERS = { roles: ['owner'] };
export const OWNERS_ADMINS = { roles: ['owner', 'admin'] };

/** A service from the request's container scope. */
export function service<T>(request: Request, key: string): T {
  return request.app.scope.resolve<T>(key);
}

const cookieOf = (request: Request, name: string): string | null => {
  const v = (request.state as Record<string, unknown> | null | undefined)?.[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.length > 0 ? s : null;
};

export const sessionCookie = (request: Request) => cookieOf(request, SESSION_COOKIE);
export const browserCookie = (request: Request) => cookieOf(request, BROWSER_COOKIE);

export function clientIp(request: Request): string {
  const config = service<AppConfig>(request, 'config');
  if (config.server.trustProxy) {
    const fwd = String(request.headers['x-forwarded-for'] ?? '').split(',')[0]?.trim();
    if (fwd) return fwd;
  }
  return request.info.remoteAddress || 'unknown';
}

export function actorOf(request: Request): Actor {
  const p = requirePrincipal(request);
  return {
    userId: p.userId,
    email: p.email,
    kind: p.kind,
    tokenId: p.tokenId,
    ip: clientIp(request),
    userAgent: ((request.headers['user-agent'] as string | undefined) ?? '').slice(0, 512) || null,
    requestId: request.info.id,
  };
}

/** Sets the session cookie (its attributes are defined once by the accounts plugin). */
export function withSession(res: ResponseObject, token: string | null): ResponseObject {
  if (token) res.state(SESSION_COOKIE, token);
  return res;
}

/** A redirect answer: 302 for GET, 303 after a POST. */
export const redirect = (h: ResponseToolkit, url: string, code: 302 | 303 = 302): ResponseObject => h.redirect(url).code(code);
