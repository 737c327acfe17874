import type { Request } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import type { Actor } from '../services/connectors.js';

export function actorOf(request: Request): Actor {
  return {
    principal: requirePrincipal(request),
    ip: request.info.remoteAddress,
    userAgent: (request.headers['user-agent'] as string | undefined) ?? null,
    requestId: request.info.id,
  };
}

export const ADMINS = { roles: ['owner', 'admin'] };
export const WORKERS = { roles: ['owner', 'admin', 'reviewer'] };
