import type { Request } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import type { Actor } from '../services/deps.js';

export const OWNERS_ADMINS = { roles: ['owner', 'admin'] };

/** The caller with request details for the audit log. */
export function actorOf(request: Request): Actor {
  return {
    principal: requirePrincipal(request),
    ip: request.info.remoteAddress,
    userAgent: ((request.headers['user-agent'] as string | undefined) ?? '').slice(0, 512) || null,
    requestId: request.info.id,
  };
}
