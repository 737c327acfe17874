import type { Request, ResponseToolkit } from '@hapi/hapi';
import { SESSION_COOKIE, requirePrincipal } from '../../../core/http/auth.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import { sessionCookie } from '../auth/resolvers.js';
import type { CallInfo } from '../services/auth-service.js';
import { clientIp, userAgent } from '../services/client.js';
import type { Actor } from '../services/deps.js';

/** A service from the request's container scope. */
export function service<T>(request: Request, key: string): T {
  return request.app.scope.resolve<T>(key);
}

export function callInfo(request: Request): CallInfo {
  return { request, currentCookie: sessionCookie(request) };
}

export function actorOf(request: Request): Actor {
  const p = requirePrincipal(request);
  const config = service<AppConfig>(request, 'config');
  return {
    userId: p.userId,
    email: p.email,
    kind: p.kind,
    tokenId: p.tokenId,
    ip: clientIp(request, config.server.trustProxy),
    userAgent: userAgent(request),
    requestId: request.info.id,
  };
}

/** Sets the session cookie on an answer (attributes are defined once in the plugin's register). */
export function withSession<T extends object>(h: ResponseToolkit, body: T, token: string | null, code = 200) {
  const res = h.response(body).code(code);
  if (token) res.state(SESSION_COOKIE, token);
  return res;
}
