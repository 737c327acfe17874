import type { Request } from '@hapi/hapi';
import { SESSION_COOKIE, type AuthResolver, type Principal } from '../../../core/http/auth.js';
import { unauthenticated } from '../../../core/http/errors.js';
import type { AuthContextBuilder } from '../services/auth-context.js';
import type { SessionService } from '../services/session-service.js';
import type { TokenService } from '../services/token-service.js';

/** The `pw_session` cookie value of a request, if any. */
export function sessionCookie(request: Request): string | null {
  const v = (request.state as Record<string, unknown> | null | undefined)?.[SESSION_COOKIE];
  const s: unknown = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s.length > 0 ? s : null;
}

/** Session cookie → Principal. */
export function sessionResolver(deps: {
  sessionService: SessionService;
  authContextBuilder: AuthContextBuilder;
}): AuthResolver {
  return {
    strategy: 'session',
    name: 'accounts.session',
    async authenticate(request) {
      const cookie = sessionCookie(request);
      if (!cookie) return null;
      const found = await deps.sessionService.resolve(cookie);
      if (!found) throw unauthenticated('Your session has ended; sign in again');
      const { session, user } = found;
      const principal: Principal = {
        kind: 'session',
        userId: user.id,
        orgId: user.org_id,
        role: user.role,
        staff: deps.authContextBuilder.isStaff(user),
        email: user.email,
        locale: user.locale,
        workspaceIds: user.workspace_ids,
        sessionId: session.id,
        sso: session.sso,
      };
      return principal;
    },
  };
}

/** `Authorization: Bearer pwt_…` → Principal. Other bearer kinds are left to other resolvers. */
export function apiTokenResolver(deps: { tokenService: TokenService }): AuthResolver {
  return {
    strategy: 'session',
    name: 'accounts.api_token',
    async authenticate(request) {
      const header = request.headers.authorization;
      if (typeof header !== 'string') return null;
      const m = /^Bearer\s+(pwt_[A-Za-z0-9_-]+)\s*$/i.exec(header);
      if (!m) return null;
      return deps.tokenService.authenticate(m[1]);
    },
  };
}
