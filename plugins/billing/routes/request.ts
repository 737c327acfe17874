import type { Request } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { actorOf, type RequestMeta } from '../services/deps.js';

/** Who asked, for audit entries. */
export function requestMeta(request: Request): RequestMeta {
  return {
    actor: actorOf(requirePrincipal(request)),
    ip: request.info.remoteAddress ?? null,
    userAgent: (request.headers['user-agent'] as string | undefined) ?? null,
    requestId: request.info.id,
  };
}

/**
 * The key of a call to the payment provider: the client's `Idempotency-Key` header (a retried
 * request opens the same hosted page), else the request id.
 */
export function idempotencyKey(request: Request): string {
  const header = request.headers['idempotency-key'];
  return typeof header === 'string' && header.length > 0 ? `k:${header.slice(0, 200)}` : `r:${request.info.id}`;
}
