import type { Request } from '@hapi/hapi';

/**
 * The key of a call to the payment provider: the client's `Idempotency-Key` header (a retried
 * request opens the same hosted page), else the request id.
 */
export function idempotencyKey(request: Request): string {
  const header = request.headers['idempotency-key'];
  return typeof header === 'string' && header.length > 0 ? `k:${header.slice(0, 200)}` : `r:${request.info.id}`;
}
