import type { Request } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { Actor } from '../services/deps.js';

export const OWNERS_ADMINS = { roles: ['owner', 'admin'] };

export function service<T>(request: Request, key: string): T {
  return request.app.scope.resolve<T>(key);
}

function clientIp(request: Request): string {
  const config = service<AppConfig>(request, 'config');
  if (config.server.trustProxy) {
    const fwd = String(request.headers['x-forwarded-for'] ?? '').split(',')[0]?.trim();
    if (fwd) return fwd;
  }
  return request.info.remoteAddress || 'unknown';
}

/** The signed-in caller with the request details the audit log records. */
export function actorOf(request: Request): Actor {
  const p = requirePrincipal(request);
  return {
    orgId: p.orgId,
    userId: p.userId,
    email: p.email,
    kind: p.kind,
    tokenId: p.tokenId ?? null,
    ip: clientIp(request),
    userAgent: ((request.headers['user-agent'] as string | undefined) ?? '').slice(0, 512) || null,
    requestId: request.info.id,
  };
}
